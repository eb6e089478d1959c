"""The translators' configurations and their named presets, torch-free (``--help`` answers at once).

``TranslatorConfig`` holds every size and training setting of the
encoder-decoder translator; ``PRESETS`` names the ones the command line
offers. The model that reads them is ``tutorlib.translation.model``.
``GPTConfig`` and ``GPT_PRESETS`` do the same for the decoder-only
translator of ``tutorlib.translation.gpt``: its own sizes, the same training
settings under the same names, so that one training loop reads both.

Derived in chapters 9 (Training a translator) and 13 (The translator as a GPT).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from ..checks import head_width

__all__ = [
    "TranslatorConfig",
    "PRESETS",
    "PRETRAINED_PATH",
    "GPTConfig",
    "GPT_PRESETS",
    "PRETRAINED_GPT_PATH",
    "PRETRAINED_GPT_WORDS_PATH",
    "TrainingSettings",
    "TRAINING_FIELDS",
    "VOCAB_FIELDS",
    "shape_fields",
    "COMMAND_LINE_KINDS",
]

PRETRAINED_PATH = Path(__file__).parents[1] / "pretrained" / "translator.pt"  # tutorlib/pretrained
# The decoder-only translators: on BPE tokens (chapter 14, tutorlib.gpt.load_pretrained()) and on
# chapter 9's words (chapter 13's comparison, load_pretrained("words")).
PRETRAINED_GPT_PATH = Path(__file__).parents[1] / "pretrained" / "gpt.pt"
PRETRAINED_GPT_WORDS_PATH = Path(__file__).parents[1] / "pretrained" / "gpt_words.pt"


# --- the config -------------------------------------------------------------------


class TrainingSettings:
    """The training settings both translators' configs end with, written once: the same names,
    defaults and meanings, so that one loop (``tutorlib.translation.training.train``) reads
    either config. ``@with_training`` appends them, in this order, after a config's own fields
    (a dataclass base would put them first and change the configs' order and ``asdict``)."""

    label_smoothing: float = 0.1  # the target: 1 - 0.1 on the right token, 0.1 spread over all
    lr: float = 1e-3  # peak learning rate of AdamW, reached after warmup_steps
    min_lr: float = 1e-5  # after the warmup the learning rate falls to it along a half cosine
    warmup_steps: int = 200  # steps of linear warmup from 0 to lr
    weight_decay: float = 0.01  # AdamW's, on matrices only (not on biases, LayerNorms)
    batch_size: int = 64  # sentence pairs per step, in each process under torchrun
    epochs: int = 10
    grad_clip: float = 1.0  # a gradient with a larger norm is scaled down to it
    seed: int = 0


TRAINING_FIELDS = tuple(TrainingSettings.__annotations__)
# The sizes train() sets from the vocabularies, never given by hand (nor on the command line):
# the translator's two vocabularies, the GPT's one.
VOCAB_FIELDS = ("src_vocab_size", "tgt_vocab_size", "vocab_size")


def shape_fields(config) -> tuple[str, ...]:
    """The fields of a config (or its class) that shape the model it builds: all but the
    training settings and ``bpe_vocab_size`` (how a tokenizer is made, not the model's own)."""
    return tuple(
        f.name
        for f in fields(config)
        if f.name not in TRAINING_FIELDS and f.name != "bpe_vocab_size"
    )


def with_training(cls):
    """``cls`` with ``TrainingSettings``' fields after its own; put it under ``@dataclass``."""
    own = cls.__dict__.get("__annotations__", {})
    for name in TRAINING_FIELDS:
        own[name] = TrainingSettings.__annotations__[name]
        setattr(cls, name, getattr(TrainingSettings, name))
    cls.__annotations__ = own
    return cls


class _AsDict:
    """A config as the plain dict a checkpoint stores, and back, refusing fields it does not know
    (a checkpoint of another kind or version); shared by both models' configs."""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {sorted(known)}")
        return cls(**d)


@dataclass
@with_training
class TranslatorConfig(_AsDict):
    """Every size and training setting of the translator; ``PRESETS`` holds named ones.

    Derived in chapter 9 (Training a translator).
    """

    # the model
    src_vocab_size: int = 0  # filled in by train() from the vocabularies it builds
    tgt_vocab_size: int = 0
    d_model: int = 128  # D, the width of every token's vector (512 in the paper)
    num_heads: int = 4  # H; each head is Dh = D // H wide
    d_ff: int = 256  # hidden width of the feed-forward network (2048 in the paper)
    num_encoder_layers: int = 3
    num_decoder_layers: int = 3
    dropout: float = 0.1
    max_len: int = (
        32  # positions: at most max_len source words, max_len - 1 target words (after BOS)
    )
    norm_first: bool = (
        True  # pre-norm (trains steadily without tuning) instead of the paper's post-norm
    )
    share_embeddings: bool = (
        False  # one vocabulary of both languages and one embedding table for both sides
    )
    tie_output: bool = (
        True  # the output layer reuses the target embedding matrix (the paper, section 3.4)
    )
    # then TrainingSettings' fields (tutorlib.translation.training.train), by @with_training

    def __post_init__(self):
        head_width(self.d_model, self.num_heads)
        if self.max_len < 2:
            raise ValueError(
                f"max_len={self.max_len} leaves no room for a word next to BOS or EOS; use at "
                "least 2"
            )


# Named configurations for `python -m tutorlib train --preset NAME`.
PRESETS = {
    # chapter 9 in CI: visibly learns in a minute or two on a laptop CPU
    "tiny": TranslatorConfig(
        d_model=64,
        num_heads=4,
        d_ff=128,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dropout=0.0,
        lr=2e-3,
        warmup_steps=50,
        epochs=1,
        batch_size=64,
    ),
    # the shipped checkpoint, tutorlib/pretrained/translator.pt: 1.2 M parameters. Its training is
    # tuned for
    # throughput (issue 14): batches of 256 (about 1.4x the tokens/s of 64 on 2 CPU cores), so a
    # peak lr of 2e-3
    # after 100 warmup steps; no dropout (its random numbers cost time, and the validation loss
    # stays at the
    # training loss: nothing to regularise); 6 epochs: of the 46,000 pairs, 1,080 steps; of the
    # 70,000 that `train --relations` adds up to (the shipped model), 1,644.
    "pretrained": TranslatorConfig(
        d_model=128,
        num_heads=4,
        d_ff=256,
        num_encoder_layers=3,
        num_decoder_layers=3,
        dropout=0.0,
        lr=2e-3,
        warmup_steps=100,
        epochs=6,
        batch_size=256,
    ),
    # twice as wide, for benchmarks/translator_bench.py: larger matrix products use more of the
    # CPU's peak
    "wide": TranslatorConfig(
        d_model=256,
        num_heads=4,
        d_ff=1024,
        num_encoder_layers=3,
        num_decoder_layers=3,
        dropout=0.0,
        lr=1e-3,
        warmup_steps=100,
        epochs=4,
        batch_size=256,
    ),
}


# --- the decoder-only translator (chapter 13) ------------------------------------------------


@dataclass
@with_training
class GPTConfig(_AsDict):
    """Every size and training setting of the decoder-only translator
    (``tutorlib.translation.gpt.GPT``).

    One sequence per pair, ``[English tokens] <sep> [Portuguese tokens] <eos>``,
    read by one stack of causal self-attention blocks. The training settings
    carry ``TranslatorConfig``'s names and meanings, so that
    ``tutorlib.translation.training.train`` runs either model.

    Derived in chapter 13 (The translator as a GPT).
    """

    # the model
    vocab_size: int = 0  # one vocabulary for both languages; train() sets it
    d_model: int = 128  # D, the width of every token's vector
    num_heads: int = 4  # H; each head is Dh = D // H wide
    d_ff: int = 384  # hidden width of the feed-forward network
    num_layers: int = 6  # blocks of causal self-attention + feed-forward
    dropout: float = 0.1
    max_len: int = 64  # positions of source, <sep> and translation together (<eos> is never read)
    norm_first: bool = True  # pre-norm, as the translator (and every GPT since GPT-2)
    tie_output: bool = True  # the output layer reads with the embedding matrix
    # the tokens: 0 reads chapter 9's words (one Vocab of both languages); a size trains chapter
    # 14's byte-level BPE (SubwordTokenizer) of that many tokens on the training pairs instead
    bpe_vocab_size: int = 0
    # then TrainingSettings' fields, as the translator's (the label smoothing on the
    # translation's targets only: the prompt has no loss), by @with_training

    def __post_init__(self):
        head_width(self.d_model, self.num_heads)
        if self.bpe_vocab_size and self.bpe_vocab_size < 259:
            raise ValueError(
                f"bpe_vocab_size={self.bpe_vocab_size}: a byte-level BPE needs at least 259 tokens "
                "(the 256 bytes and <pad>, <sep>, <eos>); 0 reads words instead"
            )
        if self.max_len < 4:
            raise ValueError(
                f"max_len={self.max_len} positions cannot hold a source word, <sep> and a "
                "translated "
                "word; use at least 4"
            )

    # Read by train() when it builds the vocabularies itself: a GPT reads both languages through one
    # table.
    share_embeddings = property(lambda self: True, doc="Always True: one vocabulary.")

    @property
    def max_source_len(self) -> int:
        """The most source tokens a prompt may hold: half the positions less one, so that the
        translation gets at least as many positions as the source has tokens (``max_len=64``: 31).
        """
        return (self.max_len - 2) // 2


# Named configurations for `python -m tutorlib train --model gpt --preset NAME`.
GPT_PRESETS = {
    # the chapter's own run, a couple of minutes on a two-core laptop
    "tiny": GPTConfig(
        d_model=64,
        num_heads=4,
        d_ff=128,
        num_layers=4,
        dropout=0.0,
        lr=2e-3,
        warmup_steps=50,
        epochs=1,
        batch_size=64,
    ),
    # chapter 13's GPT on words, matched to PRESETS["pretrained"] (1,230,354 parameters with its 665
    # + 1,170 words): the same width and
    # training, six blocks of self-attention whose feed-forward is 384 wide (each 165,376
    # parameters; six of
    # them, 992,256, against the 993,792 of the translator's 3 encoder + 3 decoder layers), one
    # table of the
    # 1,818 words of both languages (tied to the output). GPT: 1,227,034 parameters, 0.3 % fewer.
    "words": GPTConfig(
        d_model=128,
        num_heads=4,
        d_ff=384,
        num_layers=6,
        dropout=0.0,
        lr=2e-3,
        warmup_steps=100,
        epochs=6,
        batch_size=256,
    ),
}

# the shipped GPT (tutorlib/pretrained/gpt.pt, chapter 14): "words" on a byte-level BPE of 2,048
# tokens trained on both languages of the training pairs, which spells out names and numbers it
# never saw. 1,256,704 parameters (+2.4 %: the table has 2,048 rows instead of 1,818). It is
# trained on the phrasebook with real names (`--names real`: phrasebook.world, 78,169 pairs),
# for 24 epochs: it must learn to spell as well as to translate. On the made-up names (issue
# 36's first model, 46,000 pairs): 6 epochs gave test BLEU 91.8, 12 gave 96.8, 20 gave 98.2.
# On real names, 20 and 40 epochs of the 46,000 pairs without copies wrote 76 % and 80 % of
# held-out names; the copies and 24 epochs 93 %; the shipped model then trains 5 epochs more on
# each of seven other draws of names and numbers, the last five with the sentences that put a
# relation before a name, the last two at half the learning rate, the last with a third of the
# names of its phrasebook pairs respelled (--init, --draw, --relations:
# PRETRAINED_GPT_COMMANDS): 96.3 % (tutorlib/pretrained/README.md).
GPT_PRESETS["pretrained"] = replace(GPT_PRESETS["words"], bpe_vocab_size=2048, epochs=24)

# The model kinds the command line trains (`--model NAME`), each its config class and presets, here
# without torch so that `python -m tutorlib --help` answers at once. tutorlib.translation.kinds
# reads them from here and completes each kind (its model, builder, loss, batcher, translate).
COMMAND_LINE_KINDS = {"translator": (TranslatorConfig, PRESETS), "gpt": (GPTConfig, GPT_PRESETS)}
