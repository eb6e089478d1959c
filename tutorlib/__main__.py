"""``python -m tutorlib train|evaluate|translate``: the translator's command line (chapters 9
and 10).

The commands live in ``tutorlib.translation.cli``; this entry point only
starts them. The names the tests use stay importable here.

    python -m tutorlib train --preset tiny --out runs/tiny   # train (torchrun works too)
    python -m tutorlib evaluate --checkpoint runs/tiny --beam 4
        # BLEU, chrF, exact match on the test split
    python -m tutorlib translate "I am happy" "the red car"  # the shipped model, or --checkpoint
"""

from __future__ import annotations

import sys

from .translation.cli import CommandError, _pairs, main, split_sentences  # noqa: F401 (re-exported)

if __name__ == "__main__":
    sys.exit(main())
