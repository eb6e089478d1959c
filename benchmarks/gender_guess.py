"""How often a first name's ending tells a woman's name (``world.guess_gender``, issue 36).

    .venv/bin/python benchmarks/gender_guess.py

The translator and the GPT on words read a word, not its letters: for a name after "friend"
that the course's list of names does not have ("Priya"), they write the masculine, as
Portuguese does for a person of unknown gender. ``copying.guessed_genders`` reads the feminine
from the name's ending for them, from a table of the list's own first names
(``world.ending_table``), and leaves the masculine otherwise. This measures that rule on names
the table was not built from, two ways:

1. **by language**: for each of the list's languages, the names of known gender only that
   language has, guessed with a table of the names the other languages have (a learner's name
   is often of a language the list lacks);
2. **by name**: the list's names in ten folds (by a hash of the name), each guessed with a
   table of the other nine.

It prints, for each, the women read as women, the men left in the masculine, and all the names
right, beside the masculine for every name (what the models wrote before): every man and no
woman. A figure, not a test; nothing here is trained.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutorlib.translation.phrasebook.world import (
    _genders,
    ending_table,
    guess_gender,
    name_languages,
    real_names,
)


def folds_by_language(genders: dict[str, str]):
    """``(held out, table's names)`` for each language: its own names, and the others'."""
    for lang in sorted(real_names()):
        held = [n for n in genders if name_languages(n) == frozenset({lang})]
        rest = {n: g for n, g in genders.items() if lang not in name_languages(n)}
        if held:
            yield held, rest


def folds_by_name(genders: dict[str, str], k: int = 10):
    """``(held out, table's names)`` for each of ``k`` folds, by the CRC-32 of the name."""
    fold = {n: zlib.crc32(n.encode("utf-8")) % k for n in genders}
    for i in range(k):
        yield (
            [n for n in genders if fold[n] == i],
            {n: g for n, g in genders.items() if fold[n] != i},
        )


def score(genders: dict[str, str], folds) -> dict[str, int]:
    """Women and men held out, women read as women, men not read as women."""
    out = dict.fromkeys(("women", "men", "women right", "men right"), 0)
    for held, rest in folds:
        table = ending_table(rest)
        for name in held:
            feminine = guess_gender(name, table).gender == "f"
            if genders[name] == "f":
                out["women"] += 1
                out["women right"] += feminine
            else:
                out["men"] += 1
                out["men right"] += not feminine
    return out


def main() -> int:
    genders = _genders()
    print(f"{len(genders)} first names of known gender on the list")
    heads = ("women read as women", "men kept masculine", "all right", "masculine alone")
    print(f"{'held out':<14}" + "".join(f"{h:>24}" for h in heads))
    for label, folds in (
        ("by language", folds_by_language(genders)),
        ("by name", folds_by_name(genders)),
    ):
        s = score(genders, folds)
        w, m = s["women"], s["men"]
        right = s["women right"] + s["men right"]
        cells = [
            f"{s['women right']} of {w} ({s['women right'] / w:.1%})",
            f"{s['men right']} of {m} ({s['men right'] / m:.1%})",
            f"{right} of {w + m} ({right / (w + m):.1%})",
            f"{m} of {w + m} ({m / (w + m):.1%})",
        ]
        print(f"{label:<14}" + "".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
