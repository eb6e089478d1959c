"""``python -m tutorlib train|evaluate|translate``: the translator's command line (chapters 9
and 10).

A stable public entry point. The commands live in ``tutorlib.translation.cli``;
this module only starts them.

    python -m tutorlib train --preset tiny --out runs/tiny   # train (torchrun works too)
    python -m tutorlib evaluate --checkpoint runs/tiny --beam 4
        # BLEU, chrF, exact match on the test split
    python -m tutorlib translate "I am happy" "the red car"  # the shipped model, or --checkpoint
"""

from __future__ import annotations

import sys

from .translation.cli import main

if __name__ == "__main__":
    sys.exit(main())
