"""Export the shipped translator for the book's in-page translator (chapter 10, the front page).

    .venv/bin/python tools/export_web.py _build/html/_static/web    # what the build does

Writes translator.bin (every weight once, float16, 2.5 MB) and translator.json (the model's
shape, its vocabularies and the input path's rules, read from tutorlib) into the folder, from
the checkpoint in the tree (tutorlib/pretrained/translator.pt). The book's build runs it after
the HTML is written (tools/book_pages.py, ``build-finished``), so the weights exist only under
_build/html, never in the repository; assets/web/ holds the JavaScript that reads them. See
tutorlib.translation.web for why float16 and what "one specification" means here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 3_000_000  # bytes the page may fetch (issue 37)


def export_into(folder: Path) -> dict:
    """Export into ``folder``; a ValueError when the files pass the page's budget."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tutorlib.translation.web import export

    sizes = export(folder)
    total = sum(sizes.values())
    if total > BUDGET:
        raise ValueError(
            f"the in-page translator would fetch {total:,} bytes ({sizes}), more than its "
            f"budget of {BUDGET:,}: a larger model needs int8 weights (tutorlib.translation.web)"
        )
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where translator.bin and translator.json go")
    args = parser.parse_args(argv)
    try:
        sizes = export_into(args.folder)
    except (OSError, ValueError) as err:
        print(f"tools/export_web.py: {err}", file=sys.stderr)
        return 1
    listed = ", ".join(f"{name} {size:,} bytes" for name, size in sizes.items())
    print(f"exported the translator for the page into {args.folder}: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
