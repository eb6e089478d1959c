"""How often a first name's ending tells its gender (``world.guess_gender``, issue 36).

    .venv/bin/python benchmarks/gender_guess.py

The translator and the GPT on words read a word, not its letters: for a name after "friend"
that the course's list of names gives no gender ("Priya"), they would write the masculine, as
Portuguese does for a person of unknown gender. ``world.guess_gender`` reads the name's ending
for them, from a table of the list's own first names (``world.ending_table``). This measures
the table on names it was not built from, two ways:

1. **by language**: for each of the list's languages, the names only that language has,
   guessed with a table of the names the other languages have (a learner's name is often of a
   language the list lacks);
2. **by name**: the list's names in ten folds (by a hash of the name), each guessed with a
   table of the other nine.

It prints, for each, how many names get a guess, how many guesses are right, and how many
names come out right when a name with no guess takes the masculine, beside the masculine for
every name (what the models wrote before). A figure, not a test; nothing here is trained.
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
    """Names, guessed, right guesses, right with the masculine for no guess, masculine right."""
    out = dict.fromkeys(("names", "guessed", "right", "with masculine", "masculine"), 0)
    for held, rest in folds:
        table = ending_table(rest)
        for name in held:
            guess = guess_gender(name, table).gender
            truth = genders[name]
            out["names"] += 1
            out["guessed"] += bool(guess)
            out["right"] += guess == truth
            out["with masculine"] += (guess or "m") == truth
            out["masculine"] += truth == "m"
    return out


def main() -> int:
    genders = _genders()
    print(f"{len(genders)} first names of known gender on the list")
    print(
        f"{'held out':<14}{'names':>7}{'guessed':>13}{'right of guessed':>19}"
        f"{'right, masculine if none':>27}{'masculine alone':>18}"
    )
    for label, folds in (
        ("by language", folds_by_language(genders)),
        ("by name", folds_by_name(genders)),
    ):
        s = score(genders, folds)
        n, g = s["names"], s["guessed"]
        cells = [
            f"{g} ({g / n:.0%})",
            f"{s['right']} ({s['right'] / g:.1%})",
            f"{s['with masculine']} ({s['with masculine'] / n:.1%})",
            f"{s['masculine']} ({s['masculine'] / n:.1%})",
        ]
        print(f"{label:<14}{n:>7}" + "".join(f"{c:>{w}}" for c, w in zip(cells, (13, 19, 27, 18))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
