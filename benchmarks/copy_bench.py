"""The copy trick with two or more unknown words, as it was before 2026-11-28 and as it is now
(``copying.copy_positions``, issue 36).

    .venv/bin/python benchmarks/copy_bench.py [--show N]

Held-out sentences that both word models read with two or more unknown words (names,
numbers): the phrasebook's valid and test splits with real names (draws 0, 1 and 2) and their
relation sentences, without repeats. For the shipped encoder–decoder (greedy) and the GPT on
words, in one run, under the two copies side by side: the sentences translated exactly; those in
which every unknown word is written as many times as the reference writes it ("counts", which
does not look at the order); and those whose unknown words come in the reference's order
("order": the same words, as often, in the same order). Before: each ``<unk>`` took the
unknown source word its attention weighs most (the GPT's of its own kind first), and in the
encoder–decoder a ``<unk>`` right after a copied one the next source word when unknown. Now:
a word not copied yet first, and a name of several words whole and in order in both models.
``--show N`` prints, for each model, N of the sentences the two copies translate
differently. Typos are not read (``evaluate``'s convention: the phrasebook's names are lower
case). No timing.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutorlib.translation import decoding  # noqa: E402
from tutorlib.translation.checkpoints import load_checkpoint  # noqa: E402
from tutorlib.translation.data import tokenize  # noqa: E402
from tutorlib.translation.gpt import decoding as gpt_decoding  # noqa: E402
from tutorlib.translation.phrasebook import phrasebook  # noqa: E402
from tutorlib.translation.phrasebook.splits import relation_pairs  # noqa: E402
from tutorlib.translation.shipped import translate as translator_translate  # noqa: E402

PRETRAINED = Path(__file__).resolve().parent.parent / "tutorlib" / "pretrained"


def sentences(*vocabs) -> list[tuple[str, str]]:
    """The held-out pairs whose English has two or more words each of ``vocabs`` reads as
    unknown."""
    pairs = []
    for split in ("valid", "test"):
        for draw in (0, 1, 2):
            pairs += phrasebook(split, names="real", draw=draw)
        pairs += relation_pairs(split, "real")
    return [
        (en, pt)
        for en, pt in dict.fromkeys(pairs)
        if all(len(_unknown_words(en, vocab)) >= 2 for vocab in vocabs)
    ]


def _unknown_words(english: str, vocab) -> list[str]:
    return [w for w in tokenize(english) if vocab.token_to_id(w) in vocab.unknown_ids]


def _positions_before(next_word: bool):
    """``copy_positions`` as it was before 2026-11-28: the strongest unknown word (of its own kind
    first), copied or not; with ``next_word`` (the encoder–decoder's), a ``<unk>`` right after a
    copied one takes the next source word when that word is unknown."""

    def positions(weights, unknown_out, unknown_at, own_kind=None):
        copied, previous = {}, None
        for t, is_unknown in enumerate(unknown_out):
            if not is_unknown:
                previous = None
                continue
            if next_word and previous is not None and previous + 1 in unknown_at:
                j = previous + 1
            else:
                kind = set(own_kind(t)) if own_kind is not None else set()
                pool = [j for j in unknown_at if j in kind] or unknown_at
                j = pool[int(weights[t][pool].argmax())]
            copied[t] = previous = j
        return copied

    return positions


@contextlib.contextmanager
def copy_before():
    """Both models with the copy of before 2026-11-28, while the block runs."""
    real = decoding.copy_positions
    decoding.copy_positions = _positions_before(next_word=True)
    gpt_decoding.copy_positions = _positions_before(next_word=False)
    try:
        yield
    finally:
        decoding.copy_positions = gpt_decoding.copy_positions = real


def _count(text: str, word: str) -> int:
    return len(re.findall(rf"(?<![\w'-]){re.escape(word)}(?![\w'-])", text.lower()))


def _in_order(text: str, words: set[str]) -> list[str]:
    return [w for w in tokenize(text) if w in words]


def score(pairs, outputs, vocab) -> tuple[int, int, int]:
    """(exactly right, every unknown word written as often as in the reference, and the unknown
    words in the reference's order)."""
    exact = counted = ordered = 0
    for (en, pt), o in zip(pairs, outputs):
        unknown = set(_unknown_words(en, vocab))
        exact += o == pt
        counted += all(_count(o, w) == _count(pt, w) for w in unknown)
        ordered += _in_order(o, unknown) == _in_order(pt, unknown)
    return exact, counted, ordered


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print N sentences that differ")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    quiet = {"on_notice": lambda i, m: None, "typos": False}
    translator, src_vocab, _ = load_checkpoint(PRETRAINED / "translator.pt", what="translator")
    gpt_words, _, _ = load_checkpoint(PRETRAINED / "gpt_words.pt", what="GPT")
    models = {  # name: (translate a list, the vocabulary that reads the English)
        "encoder-decoder": (lambda xs: translator_translate(xs, translator, **quiet), src_vocab),
        "GPT on words": (
            lambda xs: gpt_decoding.translate(xs, gpt_words, skip_errors=True, **quiet),
            gpt_words.vocab,
        ),
    }
    pairs = sentences(src_vocab, gpt_words.vocab)
    print(f"{len(pairs)} held-out sentences with two or more unknown words to both models\n")
    print(f"{'':16}{'before 2026-11-28':>34}{'now':>34}")
    for name, (run, vocab) in models.items():
        english = [en for en, _ in pairs]
        with copy_before():
            before = run(english)
        after = run(english)
        cells = [
            "exact {}, counts {}, order {}".format(*score(pairs, out, vocab))
            for out in (before, after)
        ]
        print(f"{name:16}{cells[0]:>34}{cells[1]:>34}")
        shown = 0
        for (en, pt), b, a in zip(pairs, before, after):
            if b != a and shown < args.show:
                print(f"    {en}\n      before: {b}\n      now:    {a}\n      want:   {pt}")
                shown += 1
    print("\n(exact: the whole translation right; counts: every unknown word written as often")
    print(" as the reference writes it; order: and in the reference's order)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
