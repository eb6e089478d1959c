"""The encoder-decoder translator of chapter 9: ``Translator``, built from ``tutorlib.nn``'s layers.

Its config is ``tutorlib.translation.config.TranslatorConfig``; decoding a
trained one is ``tutorlib.translation.decoding``, saving and loading it
``tutorlib.translation.checkpoints``. Read top to bottom: the model, then what
the training loop needs of it (``build_translator``, ``translator_loss``),
which ``tutorlib.translation.kinds`` names for the kind ``"translator"``.
This module is the one home of the model, its builder and its losses.

Shape letters (the book's notation page): ``B`` batch, ``S`` source length,
``T`` target length, ``D`` = ``d_model``, ``H`` heads, ``Dh = D // H``,
``V`` the target vocabulary size. Masks are boolean, True = may attend, as
everywhere in tutorlib.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch
import torch.nn.functional as F
from torch import nn

from ..nn import Decoder, Encoder, PositionalEncoding
from .cache import KVCache
from .config import TranslatorConfig
from .data import PAD_ID, SPECIALS, Batch, Vocab

__all__ = ["Translator", "build_translator", "translation_loss", "translator_loss"]


# --- the model ----------------------------------------------------------------------


class Translator(nn.Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", built from ``tutorlib.nn``.

    ::

        src (B, S) -> embed * sqrt(D) + positions -> Encoder -> memory (B, S, D)
        tgt_in (B, T) -> embed * sqrt(D) + positions -> Decoder(memory)
                      -> Linear -> logits (B, T, V)

    ``tgt_in`` is the target shifted right behind BOS (teacher forcing); the
    logits at position ``t`` predict ``tgt_out[t]``, the target's word ``t``
    (or EOS). ``src_vocab`` and ``tgt_vocab`` ride along (not parameters) so
    that ``translate(sentence, model)`` needs nothing else.

    Derived in chapter 9 (Training a translator).
    """

    def __init__(
        self,
        config: TranslatorConfig,
        src_vocab: Vocab | None = None,
        tgt_vocab: Vocab | None = None,
    ):
        super().__init__()
        if config.src_vocab_size < len(SPECIALS) or config.tgt_vocab_size < len(SPECIALS):
            raise ValueError(
                f"the config has src_vocab_size={config.src_vocab_size}, "
                f"tgt_vocab_size={config.tgt_vocab_size}: "
                f"set both to the vocabularies' sizes (len(vocab), at least the {len(SPECIALS)} "
                "special tokens); "
                "train() does it for you"
            )
        if config.share_embeddings and config.src_vocab_size != config.tgt_vocab_size:
            raise ValueError(
                f"share_embeddings needs one vocabulary for both languages, but src_vocab_size="
                f"{config.src_vocab_size} and tgt_vocab_size={config.tgt_vocab_size}"
            )
        for name, vocab, size in (
            ("src", src_vocab, config.src_vocab_size),
            ("tgt", tgt_vocab, config.tgt_vocab_size),
        ):
            if vocab is not None and len(vocab) != size:
                raise ValueError(
                    f"{name}_vocab has {len(vocab)} tokens but the config says "
                    f"{name}_vocab_size={size}"
                )
        self.config = config
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        c = config
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model)
        self.tgt_embed = (
            self.src_embed if c.share_embeddings else nn.Embedding(c.tgt_vocab_size, c.d_model)
        )
        self.pos = PositionalEncoding(
            c.d_model, c.max_len, dropout=c.dropout
        )  # sinusoidal, no parameters
        self.encoder = Encoder(
            c.num_encoder_layers, c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first
        )
        self.decoder = Decoder(
            c.num_decoder_layers, c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first
        )
        self.generator = nn.Linear(c.d_model, c.tgt_vocab_size)  # D -> V scores, the logits
        # Xavier-uniform matrices, as torch.nn.Transformer and the Annotated Transformer start them
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        if c.tie_output:
            self.generator.weight = (
                self.tgt_embed.weight
            )  # (V, D): one matrix to read words in and out

    def encode(self, src: torch.Tensor, src_key_mask: torch.Tensor) -> torch.Tensor:
        """``src (B, S)`` token ids, ``src_key_mask (B, 1, 1, S)`` -> ``memory (B, S, D)``."""
        self._check_length(src.shape[1], "source")
        # (B, S) -> (B, S, D)
        x = self.pos(self.src_embed(src) * math.sqrt(self.config.d_model))
        return self.encoder(x, src_key_mask)

    def decode(
        self,
        tgt_in: torch.Tensor,
        memory: torch.Tensor,
        src_key_mask: torch.Tensor,
        tgt_mask=None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """``tgt_in (B, T)`` -> ``logits (B, T, V)``, reading ``memory (B, S, D)``.

        Without ``cache``, ``tgt_in`` is the whole prefix and ``tgt_mask`` its
        causal (and padding) mask, ``(T, T)`` or ``(B, 1, T, T)``. With a
        ``KVCache``, ``tgt_in`` holds only the newest token(s), at positions
        ``cache.length`` onwards, and the earlier ones are read from the cache
        (``tgt_mask`` None for one new token).
        """
        if cache is None:
            self._check_length(tgt_in.shape[1], "target")
            # (B, T) -> (B, T, D)
            x = self.pos(self.tgt_embed(tgt_in) * math.sqrt(self.config.d_model))
            x = self.decoder(x, memory, tgt_mask, src_key_mask)
        else:
            t, T_new = cache.length, tgt_in.shape[1]
            self._check_length(t + T_new, "target")
            # (B, T_new, D) + (T_new, D): the position vectors of positions t .. t + T_new - 1
            x = self.tgt_embed(tgt_in) * math.sqrt(self.config.d_model) + self.pos.pe[t : t + T_new]
            x = self.decoder.forward_step(
                self.pos.dropout(x), memory, src_key_mask, cache.layers, tgt_mask
            )
            cache.length = t + T_new
        # (B, T, D) -> (B, T, V)
        return self.generator(x)

    def forward(self, batch) -> torch.Tensor:
        """Teacher forcing on a ``tutorlib.translation.data.Batch``: ``logits (B, T, V)`` for
        ``batch.tgt_out``."""
        memory = self.encode(batch.src, batch.src_key_mask)
        return self.decode(batch.tgt_in, memory, batch.src_key_mask, batch.tgt_mask)

    def _check_length(self, n: int, what: str) -> None:
        if n > self.config.max_len:
            raise ValueError(
                f"the {what} has {n} positions but the model was built with "
                f"max_len={self.config.max_len} "
                "(TranslatorConfig.max_len, BOS or EOS included): shorten the sentence or split it"
            )

    def num_parameters(self) -> int:
        """Parameters counted once (tied matrices are one matrix)."""
        return sum(p.numel() for p in self.parameters())


# --- what the training loop needs of it --------------------------------------------------


def build_translator(config: TranslatorConfig, src_vocab: Vocab, tgt_vocab: Vocab) -> Translator:
    """``train``'s ``build_model`` for the translator: the config sized to the vocabularies,
    then a fresh ``Translator``.

    Another model trained by the same loop has its own builder (its kind's,
    ``tutorlib.translation.kinds``); it returns the model, whose ``config``
    (sized to the vocabularies) the loop reads from then on.

    Derived in chapter 9 (Training a translator).
    """
    config = replace(config, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    return Translator(config, src_vocab, tgt_vocab)


def translation_loss(
    logits: torch.Tensor, tgt_out: torch.Tensor, label_smoothing: float = 0.0
) -> torch.Tensor:
    """Mean cross-entropy over the real (non-padding) target tokens, with label smoothing.

    With smoothing ``eps`` the target distribution puts ``1 - eps`` on the
    right token and spreads ``eps`` evenly over the whole vocabulary, so the
    model is not pushed to infinitely confident logits. ``logits (B, T, V)``,
    ``tgt_out (B, T)``.

    Derived in chapter 9 (Training a translator).
    """
    V = logits.shape[-1]
    # (B, T, V) -> (B*T, V) against (B*T,); padding positions are left out of the mean
    return F.cross_entropy(
        logits.reshape(-1, V),
        tgt_out.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=label_smoothing,
    )


def translator_loss(model, batch: Batch, config: TranslatorConfig) -> torch.Tensor:
    """The loss of one batch for the translator: teacher forcing, then ``translation_loss``.

    ``train``'s ``batch_loss`` for the translator: the one step of the loop
    that knows the model. Another model trained by the same loop has its own.

    Derived in chapter 9 (Training a translator).
    """
    return translation_loss(model(batch), batch.tgt_out, config.label_smoothing)
