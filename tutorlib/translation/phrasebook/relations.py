"""Sentences with a relation before a name: "my friend ana is tired." -> "minha amiga ana está
cansada." (issue 36).

``draw_relations`` draws them with the phrasebook's own clauses (``drawing``)
and a seeded generator of their own, so that the splits stay what they were;
``splits.relation_pairs(split, names, draw)`` checks its arguments and calls
it, and ``phrasebook(..., relations=True)`` adds them to a split. The
relation and what agrees with it take the name's gender (``world.gender_of``),
which a model can only read from the name's letters. No torch.
"""

from __future__ import annotations

from .drawing import _SEED, _Copied, _random_clause, _Rng, _spelling
from .grammar import NOT_NAMES, Name, Sentence, combinations, render
from .lexicon import NOUN, RELATION_FEMININE, RELATIONS
from .world import _number, _pools, gender_of

# Sentences with a relation before a name ("my friend ana is tired", issue 36), added to a split
# by phrasebook(..., relations=True): their own generator, so nothing else changes.
RELATION_SIZES = {"train": 12_000, "valid": 300, "test": 500}
_RELATION_SEED = _SEED + 3
_RELATION_KINDS = [(3, "be"), (1, "with"), (1, "loc"), (4, "verb"), (1, "where"), (1, "what")]


class _Relatives:
    """What ``_random_clause`` asks for names and numbers, for ``relation_pairs``: a name after a
    relation ("my friend ana", "your brother kwame"), made up or one of the split's real first
    names (with a family name a third of the time) of a gender the relation allows."""

    def __init__(self, rng: _Rng, split: str, names: str, salt: str, used: set[str]):
        self.rng, self.split, self.names, self.salt = rng, split, names, salt
        self.copied = _Copied(rng)
        self.copied.used = used  # the phrasebook's words: a made-up name is a new one
        self.copied.words |= NOT_NAMES
        self.count = 0

    def name(self) -> Name:
        relation = self.rng.choice(RELATIONS)
        owner = self.rng.choice(("my", "your"))
        if self.names == "made-up":  # its gender is unknown: the masculine, as for "dr kora"
            return Name(self.copied.name().word, relation=relation, owner=owner)
        fixed = "" if relation in RELATION_FEMININE else NOUN[relation].gender
        pools = _pools(self.split)
        while True:
            first = self.rng.choice(pools["first"])
            gender = gender_of(first)
            if gender in ("", fixed) or not fixed:
                break
        if self.rng.chance(1 / 3):
            first = f"{first} {self.rng.choice(pools['family'])}"
        return Name(first, relation=relation, owner=owner, gender=gender)

    def number(self) -> str:
        if self.names == "made-up":
            return self.copied.number()
        self.count += 1
        return _number(str(self.count), self.salt, shapes=True)


def _has_relation(spec: Sentence) -> bool:
    x = spec.x[1] if spec.kind == "verb" else spec.x
    return any(isinstance(np, Name) and np.relation for np in (spec.subject, x))


def draw_relations(
    split: str, names: str, draw: int, splits: dict, held: dict
) -> tuple[tuple[str, str], ...]:
    """``RELATION_SIZES[split]`` pairs with a relation before a name, drawn for ``split``
    beside the phrasebook's ``splits`` and the combinations they hold out (``held``);
    ``splits.relation_pairs`` says what they are and checks the arguments."""
    avoid = {"train": held["test"] | held["valid"], "valid": held["test"], "test": held["valid"]}
    rng = _Rng(_RELATION_SEED + 7919 * draw + 104_729 * sorted(RELATION_SIZES).index(split))
    used = {w for pairs in splits.values() for en, _ in pairs for w in en.split()}
    namer = _Relatives(rng, split, names, f"relations {split} {draw} ", used)
    seen = {en.rstrip(".!?") for en, _ in splits[split]}
    out: list[tuple[str, str]] = []
    while len(out) < RELATION_SIZES[split]:
        kind = rng.weighted(_RELATION_KINDS)
        clause = _random_clause(
            rng, namer, kind, question=kind in ("where", "what") or rng.chance(0.2)
        )
        if not _has_relation(clause) or combinations(clause) & avoid[split]:
            continue
        en, pt = render(clause, *_spelling(rng, clause))
        if en.rstrip(".!?") not in seen:
            seen.add(en.rstrip(".!?"))
            out.append((en, pt))
    return tuple(out)
