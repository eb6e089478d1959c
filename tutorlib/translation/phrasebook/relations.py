"""Sentences with a relation before a name: "my friend ana is tired." -> "minha amiga ana está
cansada." (issue 36).

``draw_relations`` draws them with the phrasebook's own clauses (``drawing``)
and a seeded generator of their own, so that the splits stay what they were;
``splits.relation_pairs(split, names, draw)`` checks its arguments and calls
it, and ``phrasebook(..., relations=True)`` adds them to a split. The relation
("friend": "amigo" or "amiga") and what agrees with it take the name's gender
(``world.gender_of``): unless the relation says it ("sister"), a model can
only read it from the name's letters. No torch.
"""

from __future__ import annotations

from .drawing import _SEED, _Copied, _random_clause, _Rng, _spelling
from .grammar import NOT_NAMES, Name, Sentence, combinations, render
from .lexicon import RELATIONS, relation_gender
from .world import _TOKEN, _number, _pools, gender_of

# Sentences with a relation before a name ("my friend ana is tired", issue 36), added to a split
# by phrasebook(..., relations=True): their own generator, so nothing else changes.
RELATION_SIZES = {"train": 12_000, "valid": 300, "test": 500}
_RELATION_SEED = _SEED + 3
_RELATION_KINDS = [(3, "be"), (1, "with"), (1, "loc"), (4, "verb"), (1, "where"), (1, "what")]


class _Relatives:
    """What ``_random_clause`` asks for names and numbers, for ``draw_relations``: a name after a
    relation ("my friend ana", "your brother kwame"), made up or one of the split's real first
    names (with a family name a third of the time) of a known gender that the relation allows
    (``world.gender_of``: a name of unknown gender would have to take the masculine, and a
    model could not learn the gender from the name)."""

    def __init__(self, rng: _Rng, names: str, salt: str, used: set[str], shapes: bool):
        self.rng, self.names, self.salt, self.shapes = rng, names, salt, shapes
        self.split = ""  # the split being drawn: its names (real ones are split by name)
        self.copied = _Copied(rng)
        self.copied.used = used  # the phrasebook's words and the names handed out: new ones
        self.copied.words |= NOT_NAMES
        self.count = 0

    def name(self) -> Name:
        relation = self.rng.choice(RELATIONS)
        owner = self.rng.choice(("my", "your"))
        if self.names == "made-up":  # its gender is unknown: the masculine, as for "dr kora"
            return Name(self.copied.name().word, relation=relation, owner=owner)
        fixed = relation_gender(relation)
        pools = _pools(self.split)
        while True:
            first = self.rng.choice(pools["first"])
            gender = gender_of(first)
            if gender and (not fixed or gender == fixed):
                break
        if self.rng.chance(1 / 3):
            first = f"{first} {self.rng.choice(pools['family'])}"
        return Name(first, relation=relation, owner=owner, gender=gender)

    def number(self) -> str:
        if self.names == "made-up":
            return self.copied.number()
        self.count += 1
        return _number(str(self.count), self.salt, shapes=self.shapes)


def _has_relation(spec: Sentence) -> bool:
    """Whether a name after a relation is the clause's subject or object; and not the same
    one-of-a-kind relation twice ("my mother ana sees my mother eva")."""
    x = spec.x[1] if spec.kind == "verb" else spec.x
    named = [np for np in (spec.subject, x) if isinstance(np, Name) and np.relation]
    said = [(np.owner, np.relation) for np in named if np.relation in ("mother", "father")]
    return bool(named) and len(said) == len(set(said))


# The splits drawn in this order, each with the names the ones before it handed out: a made-up
# name is in one relation sentence of one split.
_ORDER = ("test", "valid", "train")


def draw_specs(names: str, draw: int, splits: dict, held: dict) -> dict[str, list]:
    """``{split: [(spec, contracted, mark), ...]}``: ``RELATION_SIZES[split]`` clauses with a
    relation before a name for each split, beside the phrasebook's ``splits`` and the
    combinations they hold out (``held``): a split's clauses hold none of the other splits'."""
    avoid = {"train": held["test"] | held["valid"], "valid": held["test"], "test": held["valid"]}
    # the phrasebook's words, without their marks ("kora." holds "kora")
    used = {w for pairs in splits.values() for en, _ in pairs for w in _TOKEN.findall(en)}
    rng = _Rng(_RELATION_SEED + 7919 * draw)
    namer = _Relatives(rng, names, f"relations {draw} ", used, shapes=draw > 0)
    out: dict[str, list] = {}
    for split in _ORDER:
        namer.split = split
        seen = {en.rstrip(".!?") for en, _ in splits[split]}
        out[split] = []
        while len(out[split]) < RELATION_SIZES[split]:
            kind = rng.weighted(_RELATION_KINDS)
            clause = _random_clause(
                rng, namer, kind, question=kind in ("where", "what") or rng.chance(0.2)
            )
            if not _has_relation(clause) or combinations(clause) & avoid[split]:
                continue
            contracted, mark = _spelling(rng, clause)
            en = render(clause, contracted, mark)[0].rstrip(".!?")
            if en not in seen:
                seen.add(en)
                out[split].append((clause, contracted, mark))
    return out


def draw_relations(
    names: str, draw: int, splits: dict, held: dict
) -> dict[str, tuple[tuple[str, str], ...]]:
    """``{split: pairs}``: ``draw_specs``'s clauses rendered; ``splits.relation_pairs`` says
    what they are and checks the arguments."""
    return {
        split: tuple(render(spec, contracted, mark) for spec, contracted, mark in specs)
        for split, specs in draw_specs(names, draw, splits, held).items()
    }
