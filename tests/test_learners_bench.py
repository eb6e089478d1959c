"""benchmarks/learners_bench.py's sentences (issue 36's measure): new, and well formed. The
figure itself (right / total per model) is the benchmark's to print, never asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tutorlib.translation.data import is_punctuation, tokenize
from tutorlib.translation.phrasebook import phrasebook
from tutorlib.translation.phrasebook.grammar import portuguese_words
from tutorlib.translation.phrasebook.splits import relation_pairs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def groups():
    path = ROOT / "benchmarks" / "learners_bench.py"
    spec = importlib.util.spec_from_file_location("learners_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GROUPS


def test_seven_groups_of_at_least_22_new_sentences(groups):
    assert list(groups) == [
        "combinations",
        "names",
        "numbers",
        "negation",
        "persons",
        "noise",
        "relations",
    ]
    assert all(len(pairs) >= 22 for pairs in groups.values()), {
        g: len(p) for g, p in groups.items()
    }
    english = [en for pairs in groups.values() for en, _ in pairs]
    assert len(set(english)) == len(english), "a sentence twice"
    seen = {en for split in ("train", "valid", "test") for en, _ in phrasebook(split)}
    sweep = (ROOT / "benchmarks" / "translator_sweep.py").read_text(encoding="utf-8")
    old = [en for en in english if en in seen or en.strip() in seen or f'"{en}"' in sweep]
    assert not old, f"in the phrasebook's splits or translator_sweep.py: {old}"
    # nor, in the lower case the phrasebook writes, a sentence with a relation before a name
    relations = {
        en for split in ("train", "valid", "test") for names in ("made-up", "real")
        for en, _ in relation_pairs(split, names)
    }  # fmt: skip
    old = [en for en in english if en.strip().lower() in relations]
    assert not old, f"in relation_pairs: {old}"
    # nor in the training pairs of any stage of the shipped GPT on BPE: the real-name draws it
    # read, with their relation sentences from RELATION_DRAW on
    from tutorlib.translation.gpt.checkpoints import BPE_LATER_DRAWS, RELATION_DRAW

    read = {en.lower() for d in (0, *BPE_LATER_DRAWS)
            for en, _ in phrasebook("train", names="real", draw=d)}  # fmt: skip
    read |= {en.lower() for d in BPE_LATER_DRAWS if d >= RELATION_DRAW
             for en, _ in relation_pairs("train", "real", d)}  # fmt: skip
    old = [en for en in english if en.strip().lower() in read]
    assert not old, f"in the GPT on BPE's training pairs: {old}"


def test_each_expected_translation_is_well_formed(groups):
    """Every word of an expected translation is a Portuguese word of the phrasebook (lower
    case: one its grammar writes, or one of its training pairs), or a name or number of its
    English copied exactly as typed; the final mark is the English one (none when the English
    has none)."""
    known = portuguese_words() | {w for _, pt in phrasebook("train") for w in tokenize(pt)}
    for group, pairs in groups.items():
        for en, pt in pairs:
            assert pt == pt.strip() and pt, (group, en, pt)
            typed = set(tokenize(en, lower=False))
            for word in tokenize(pt, lower=False):
                ok = is_punctuation(word) or word in known or word in typed
                assert ok, f"{group}: {en!r} -> {pt!r}: {word!r} is no phrasebook word nor copied"
                if word[0].isdigit() or word != word.lower():
                    assert word in typed, (group, en, pt, word)
            end = en.strip()[-1]
            assert pt[-1] == end if end in ".!?" else pt[-1] not in ".!?", (group, en, pt)
            assert sum(c.isdigit() for c in pt) == sum(c.isdigit() for c in en), (en, pt)
