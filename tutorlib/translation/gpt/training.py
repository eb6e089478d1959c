"""Training a GPT (chapters 13 to 15) with the translator's loop.

``train_gpt`` is ``tutorlib.translation.training.train`` on the kind ``"gpt"``
(``tutorlib.translation.kinds``: ``build_gpt``, ``gpt_loss``, ``gpt_batcher``):
the same batches, schedule, progress bar, checkpoints, resuming and Ctrl-C,
after leaving out the pairs that do not fit the positions (``fits_gpt``) and
choosing the tokens (the joint word vocabulary, or chapter 14's BPE).
``train_modern_gpt`` does it for chapter 15's ``ModernGPT``.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

from ..checkpoints import read_checkpoint
from ..config import GPTConfig, shape_fields
from ..data import Vocab
from ..training import TOO_LONG_SHARE, train
from .batches import fits_gpt
from .model import GPT, gpt_loss_with_prompt
from .modern import ModernGPT, ModernGPTConfig
from .tokens import SubwordTokenizer, joint_vocab, splitter

__all__ = ["train_gpt", "train_modern_gpt"]


def train_gpt(
    config: GPTConfig | None,
    train_pairs,
    valid_pairs,
    out_dir=None,
    *,
    vocab: Vocab | None = None,
    prompt_loss: bool = False,
    model: GPT | None = None,
    **train_options,
):
    """Train a ``GPT`` translator with the translator's loop; returns its ``TrainResult``.

    ``tutorlib.translation.training.train`` on the config's kind (``"gpt"``, or
    ``"modern_gpt"`` for a ``ModernGPTConfig``): ``build_gpt``, ``gpt_loss``
    (``gpt_loss_with_prompt`` with ``prompt_loss``) and ``gpt_batcher``; the
    same batches, schedule, progress bar, checkpoints, resuming and Ctrl-C.
    The vocabulary is ``joint_vocab(train_pairs)`` unless given; with
    ``config.bpe_vocab_size`` it is a ``SubwordTokenizer`` of that size trained
    on both sides of the training pairs, and the batches are
    ``make_gpt_batches`` of its ids (chapter 14). ``model`` hands over a model
    to go on training (``train``'s). Pairs that do not fit (``fits_gpt``) are
    left out; more than 1 % of the training pairs is an error.
    ``train_options`` are ``train``'s (``max_steps``, ``progress``, ``resume``,
    ``device``...).

    Derived in chapter 13 (The translator as a GPT).
    """
    if config is None:
        if not train_options.get("resume") or out_dir is None:
            raise ValueError("config is None: give a GPTConfig (or resume=True and out_dir)")
        config = read_checkpoint(out_dir)["config"]
    if not isinstance(config, GPTConfig):
        raise ValueError(f"train_gpt needs a GPTConfig, got {type(config).__name__}")
    train_pairs, valid_pairs = list(train_pairs), list(valid_pairs)
    if vocab is None and train_options.get("resume"):
        vocab = read_checkpoint(out_dir)["src_vocab"]  # the run's own tokens
    if vocab is None and config.bpe_vocab_size:
        vocab = SubwordTokenizer.train(
            [t for pair in train_pairs for t in pair], config.bpe_vocab_size
        )
    split = splitter(vocab)
    kept = [(e, p) for e, p in train_pairs if fits_gpt(split(e), split(p), config)]
    if len(train_pairs) - len(kept) > TOO_LONG_SHARE * len(train_pairs):
        raise ValueError(
            f"{len(train_pairs) - len(kept)} of {len(train_pairs)} training pairs do not fit "
            f"max_len={config.max_len} positions (source, <sep> and target) and would be left "
            "out; raise max_len"
        )
    valid_pairs = [(e, p) for e, p in valid_pairs if fits_gpt(split(e), split(p), config)]
    vocab = vocab if vocab is not None else joint_vocab(kept)
    if prompt_loss:
        train_options["batch_loss"] = gpt_loss_with_prompt
    return train(
        config,
        kept,
        valid_pairs,
        out_dir,
        src_vocab=vocab,
        tgt_vocab=vocab,
        model=model,
        **train_options,
    )


def train_modern_gpt(
    config: ModernGPTConfig | None,
    train_pairs,
    valid_pairs,
    *,
    vocab=None,
    model: ModernGPT | None = None,
    **options,
):
    """Train a ``ModernGPT`` with chapter 9's loop and chapter 13's loss; returns a ``TrainResult``.

    ``train_gpt`` on a ``ModernGPTConfig`` (the kind ``"modern_gpt"``: its
    model is a ``ModernGPT``; a ``LatentGPTConfig``, chapter 17's, gives a
    ``LatentGPT``) or, with ``model``, going on training that one (the pooled
    model of ``group_kv_heads``; ``config`` then defaults to the model's and
    may change only the training settings). As there, pairs that do not fit
    the positions (``fits_gpt``) are left out (more than 1 % is an error) and
    ``vocab`` defaults to ``joint_vocab`` of the training pairs; ``options``
    are ``train``'s (``max_steps``, ``progress``, ``log``...).

    Derived in chapter 15 (Attention in today's models).
    """
    if model is not None:
        if not isinstance(model, ModernGPT):
            raise ValueError(f"model must be a ModernGPT, got {type(model).__name__}")
        config = model.config if config is None else config
        for name in shape_fields(config):
            if getattr(config, name) != getattr(model.config, name):
                raise ValueError(
                    f"config.{name}={getattr(config, name)!r} but the model has "
                    f"{getattr(model.config, name)!r}: with model=, config may change the "
                    "training settings only (lr, warmup_steps, epochs...), or give config=None"
                )
        model.config, vocab = config, model.vocab  # the loop reads model.config
    if not isinstance(config, ModernGPTConfig):
        raise ValueError(f"config must be a ModernGPTConfig, got {type(config).__name__}")
    # chapter 13's training: its fit filter, joint vocabulary, loss and loop
    return train_gpt(config, train_pairs, valid_pairs, vocab=vocab, model=model, **options)
