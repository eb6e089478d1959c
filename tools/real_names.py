"""Write tutorlib/translation/phrasebook/names.json: real first and family names of many languages.

    pip download --no-deps faker==40.63.0 -d /tmp/faker && unzip -q /tmp/faker/*.whl -d /tmp/faker
    .venv/bin/python tools/real_names.py /tmp/faker

The names come from Faker's person providers (https://github.com/joke2k/faker,
MIT licence; version 40.63.0 made the committed file): for every locale whose
names are written in Latin letters, its first names (male and female, taken in
turn) and its family names. Locales of one language are pooled and each
language keeps at most ``PER_LANGUAGE`` first and ``PER_LANGUAGE`` family names,
evenly spread over the providers' lists (some are alphabetical), so that no
language outweighs the others. A name is kept when it is letters, with at most
one space, apostrophe or hyphen between them ("Jean-Pierre", "O'Brien", "van
Dijk"), curly apostrophes made straight. The phrasebook (``world.py``) decides
which names each split may use; this tool only gathers them. Not run by the tests.

It also writes ``genders.json``: each first name of ``names.json`` (lower case)
that some locale lists among its female first names and none among its male
ones, as "f", or the reverse, as "m"; a name listed both ways ("Andrea" is
female in most lists, male in the Swiss German and Belgian French ones) or only
by locales whose lists say no gender (Lithuanian's) is left out: its gender is
unknown, and the phrasebook puts no such name after a relation.

And ``leanings.json``: for each first name listed both ways, how many languages list it among
their female first names only, how many among their male ones only, and how many both ways:
"olga": [16, 1, 0], "andrea": [12, 0, 2]. The translator's guess reads it
(``world.name_leaning``); the phrasebook does not.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tutorlib/translation/phrasebook/names.json"
GENDERS_OUT = OUT.with_name("genders.json")
LEANINGS_OUT = OUT.with_name("leanings.json")
PER_LANGUAGE = 160
_NAME = re.compile(r"[^\W\d_]+(?:[ '\-][^\W\d_]+)?")


def _latin(name: str) -> bool:
    return all("LATIN" in unicodedata.name(c, "") for c in name if c.isalpha())


def _clean(name: str) -> str | None:
    name = unicodedata.normalize("NFC", name.strip().replace("\u2019", "'").replace("\u2018", "'"))
    return name if _NAME.fullmatch(name) and _latin(name) else None


def _names(provider, prefix: str) -> list[str]:
    """The names of the provider's attributes that start with ``prefix`` (``first_names_male``,
    ``first_names_female``...), the lists taken in turn so that a cap keeps some of each."""
    lists = [
        [n for n in value if isinstance(n, str)]
        for attr, value in sorted(vars(provider).items())
        if attr.startswith(prefix) and isinstance(value, (dict, tuple, list))
    ]
    longest = max(map(len, lists), default=0)
    return [lst[i] for i in range(longest) for lst in lists if i < len(lst)]


def _spread(names: list[str], k: int) -> list[str]:
    """At most ``k`` of ``names``, evenly spread over the list (some providers list them
    alphabetically: the first ``k`` would all start with A)."""
    if len(names) <= k:
        return names
    return [names[i * len(names) // k] for i in range(k)]


def gather(faker_root: Path) -> tuple[dict, dict, dict]:
    """``names.json``'s contents, ``genders.json``'s and ``leanings.json``'s."""
    sys.path.insert(0, str(faker_root))
    person = importlib.import_module("faker.providers.person")
    languages: dict[str, dict[str, list[str]]] = {}
    listed: dict[str, set[str]] = {"f": set(), "m": set()}  # lower case, every locale
    by_language: dict[str, dict[str, set[str]]] = {"f": {}, "m": {}}  # name -> languages
    for module in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):
            continue
        first = _names(provider, "first_names")
        family = _names(provider, "last_names") + _names(provider, "unisex_last_names")
        everything = first + family
        if not everything or sum(map(_latin, everything)) < 0.9 * len(everything):
            continue  # a locale written in another script
        language = languages.setdefault(module.name.split("_")[0], {"first": [], "family": []})
        for gender, prefix in (("f", "first_names_female"), ("m", "first_names_male")):
            lowered = {n.lower() for n in filter(None, map(_clean, _names(provider, prefix)))}
            listed[gender].update(lowered)
            for name in lowered:
                by_language[gender].setdefault(name, set()).add(module.name.split("_")[0])
        for kind, names in (("first", first), ("family", family)):
            for name in filter(None, map(_clean, names)):
                if name not in language[kind]:
                    language[kind].append(name)
    names = {
        lang: {kind: _spread(names, PER_LANGUAGE) for kind, names in sorted(kinds.items())}
        for lang, kinds in sorted(languages.items())
    }
    first = {n.lower() for kinds in names.values() for n in kinds["first"]}
    genders = {
        name: "f" if name in listed["f"] else "m"
        for name in sorted(first)
        if (name in listed["f"]) != (name in listed["m"])
    }
    leanings = {
        name: [
            len(by_language["f"][name] - by_language["m"][name]),
            len(by_language["m"][name] - by_language["f"][name]),
            len(by_language["f"][name] & by_language["m"][name]),
        ]
        for name in sorted(first)
        if name in listed["f"] and name in listed["m"]
    }
    return names, genders, leanings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("faker_root", type=Path, help="the folder that holds faker/ (unzipped)")
    args = parser.parse_args()
    if not (args.faker_root / "faker" / "providers" / "person").is_dir():
        parser.error(
            f"{args.faker_root} holds no faker/providers/person: unzip Faker's wheel there"
        )
    names, genders, leanings = gather(args.faker_root)
    OUT.write_text(json.dumps(names, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
    GENDERS_OUT.write_text(json.dumps(genders, ensure_ascii=False, indent=0) + "\n")
    LEANINGS_OUT.write_text(json.dumps(leanings, ensure_ascii=False, separators=(",", ":")) + "\n")
    total = sum(len(v) for kinds in names.values() for v in kinds.values())
    women = sum(g == "f" for g in genders.values())
    print(f"{len(names)} languages, {total} names -> {OUT}")
    print(f"{women} female and {len(genders) - women} male first names -> {GENDERS_OUT}")
    print(f"{len(leanings)} first names listed both ways -> {LEANINGS_OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
