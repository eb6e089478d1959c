"""The checks of conventions: which mask, which shift, which loss, which BLEU.

``check_mask_convention`` reads a mask's polarity from its structure,
``check_shift`` the teacher-forcing shift of a batch, ``check_loss_padding``
whether a loss ignores padded positions, and ``check_bleu`` which BLEU a score is.

Derived in chapter 12 (Why doesn't my Transformer learn?).
"""

from __future__ import annotations

import torch

from ..translation.data import BOS_ID, EOS_ID, PAD_ID
from .report import (
    Report,
)

__all__ = ["check_mask_convention", "check_shift", "check_loss_padding", "check_bleu"]


# --- masks ------------------------------------------------------------------------------------


def check_mask_convention(mask, *, expected: str = "tutorlib") -> Report:
    """Which convention does ``mask`` use, and does it fit ``expected``?

    Conventions: ``"attend"`` (boolean, True = may attend: tutorlib and
    ``F.scaled_dot_product_attention``), ``"hide"`` (boolean, True = may not
    attend: ``nn.MultiheadAttention``'s ``key_padding_mask`` and boolean
    ``attn_mask``, ``nn.Transformer``'s masks), ``"additive"`` (float, 0 where
    allowed and -inf or a large negative number where not: accepted as
    ``attn_mask`` by both PyTorch functions) and ``"multiplicative"`` (float or
    int 1/0, Hugging Face's ``attention_mask``, which no attention function
    takes as it is). A boolean mask does not say its convention; it is read
    from its structure: a query always sees itself (the diagonal of a square
    mask), and padding comes after the words (each row of a padding mask is
    a run of real tokens then a run of padding).

    ``expected`` is ``"tutorlib"``, ``"sdpa"`` or ``"nn.MultiheadAttention"``
    (``"key_padding_mask"`` for that argument). ``bool(report)`` is True when
    the mask fits it. ``details["convention"]`` and ``details["fits"]``
    (library -> bool) hold the verdict. Masks on the wrong axis, ``(B, 1, T, 1)``
    instead of ``(B, 1, 1, T)``, are reported too.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
    targets = {
        "tutorlib": "attend",
        "sdpa": "attend",
        "nn.MultiheadAttention": "hide",
        "key_padding_mask": "hide",
    }
    if expected not in targets:
        raise ValueError(f"expected must be one of {sorted(targets)}, got {expected!r}")
    m = torch.as_tensor(mask)
    report = Report("check_mask_convention")
    convention, evidence = _convention(m)
    fits = {
        "tutorlib": convention == "attend",
        "F.scaled_dot_product_attention": convention in ("attend", "additive"),
        "nn.MultiheadAttention attn_mask": convention in ("hide", "additive"),
        "nn.MultiheadAttention key_padding_mask": convention in ("hide", "additive"),
    }
    report.details.update(convention=convention, evidence=evidence, fits=fits)
    names = {
        "attend": "boolean, True = may attend",
        "hide": "boolean, True = hidden",
        "additive": "additive, 0 = may attend and -inf (or very negative) = hidden",
        "multiplicative": "1 = may attend and 0 = hidden, as numbers (Hugging Face's "
        "attention_mask)",
        "unknown": "undetermined",
    }
    report.summary = f"convention: {names[convention]} ({evidence}); fits " + ", ".join(
        k for k, v in fits.items() if v
    )
    want = targets[expected]
    ok = convention == want or (convention == "additive" and expected != "tutorlib")
    if convention == "unknown":
        report.problems.append(f"cannot tell the convention of this mask ({evidence})")
        report.cause = (
            "a mask that is all True or all False hides nothing or everything: is it "
            "built from the right lengths?"
        )
    elif not ok:
        fix = {
            ("hide", "attend"): "negate it with ~mask",
            ("attend", "hide"): "negate it with ~mask",
            ("additive", "attend"): "use mask == 0",
            ("multiplicative", "attend"): "use mask == 1",
            ("multiplicative", "hide"): "use mask == 0",
        }.get((convention, want), "convert it")
        report.problems.append(
            f"the mask is {names[convention]} ({evidence}), but {expected} expects {names[want]}"
        )
        report.cause = (
            f"a mask written for another library; {fix}. With the wrong polarity a query attends "
            "only to the padding (or the future), and a row with every key hidden gives NaN"
        )
    if m.ndim == 4 and m.shape[-1] == 1 and m.shape[-2] > 1:
        report.problems.append(
            f"the mask has shape {tuple(m.shape)}: it varies along the queries (axis -2) and not "
            "along the keys (axis -1)"
        )
        report.cause = (
            "a padding mask on the wrong axis: it hides whole query rows instead of key columns; "
            "build it as mask[:, None, None, :] (B, 1, 1, S), not mask[:, None, :, None]"
        )
    return report


def _convention(m: torch.Tensor) -> tuple[str, str]:
    if m.dtype == torch.bool:
        square = m.ndim >= 2 and m.shape[-1] == m.shape[-2] and m.shape[-1] > 1
        if square:
            diag = m.diagonal(dim1=-2, dim2=-1)
            if bool(diag.all()) and not bool(m.all()):
                return "attend", "True on the diagonal: every query may see itself"
            if not bool(diag.any()) and bool(m.any()):
                return (
                    "hide",
                    "False on the diagonal: every query sees itself only if True means hidden",
                )
        rows = m.reshape(-1, m.shape[-1]) if m.ndim else m.reshape(1, 1)
        # a padding row: True then False (attend) or False then True (hide), along the keys
        ints = rows.int()
        starts_true = ints[:, 0] == 1
        mixed = (ints.min(dim=1).values == 0) & (ints.max(dim=1).values == 1)
        if bool(mixed.any()):
            runs = (ints[:, 1:] != ints[:, :-1]).sum(dim=1)  # changes along each row
            if bool((runs[mixed] == 1).all()):
                if bool(starts_true[mixed].all()):
                    return (
                        "attend",
                        "each row is True on its first keys and False after: padding at the end "
                        "is False",
                    )
                if not bool(starts_true[mixed].any()):
                    return (
                        "hide",
                        "each row is False on its first keys and True after: padding at the end "
                        "is True",
                    )
        if bool(m.all()):
            return "unknown", "every entry is True"
        if not bool(m.any()):
            return "unknown", "every entry is False"
        return "unknown", "neither a causal nor a padding pattern"
    if m.is_floating_point():
        values = torch.unique(m)
        negative = values[values < 0]
        if bool(((values == 0) | (values <= -1e4)).all()) and negative.numel():
            return "additive", "float, 0 and " + (
                "-inf" if bool(torch.isinf(negative).any()) else "large negatives"
            )
        if bool(((values == 0) | (values == 1)).all()):
            return "multiplicative", "float 1/0"
        return "unknown", f"float values {values[:4].tolist()}"
    values = torch.unique(m)
    if bool(((values == 0) | (values == 1)).all()):
        return "multiplicative", f"{m.dtype} 1/0"
    return "unknown", f"{m.dtype} values {values[:4].tolist()}"


# --- teacher forcing -----------------------------------------------------------------------


def check_shift(
    batch, *, bos_id: int = BOS_ID, eos_id: int = EOS_ID, pad_id: int = PAD_ID
) -> Report:
    """Is the decoder's input the target shifted right behind BOS, as teacher forcing needs?

    ``batch`` has ``tgt_in`` and ``tgt_out`` (a ``tutorlib.translation.data.Batch``), or is
    a pair ``(tgt_in, tgt_out)`` of ``(B, T)`` token ids. Healthy: each row of
    ``tgt_in`` is ``BOS w1 ... wn`` and of ``tgt_out`` ``w1 ... wn EOS`` (then
    padding): position ``t`` reads the words before ``t`` and predicts word ``t``.
    The ids default to tutorlib's (``<pad>`` 0, ``<bos>`` 1, ``<eos>`` 2).

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        tgt_in, tgt_out = batch
    elif hasattr(batch, "tgt_in") and hasattr(batch, "tgt_out"):
        tgt_in, tgt_out = batch.tgt_in, batch.tgt_out
    else:
        raise ValueError(
            f"check_shift expects a Batch with tgt_in and tgt_out, or a pair (tgt_in, tgt_out), "
            f"got {type(batch).__name__}"
        )
    tgt_in, tgt_out = torch.as_tensor(tgt_in).cpu(), torch.as_tensor(tgt_out).cpu()
    if tgt_in.shape != tgt_out.shape or tgt_in.ndim != 2:
        raise ValueError(
            f"tgt_in and tgt_out must both be (B, T) token ids, got shapes {tuple(tgt_in.shape)} "
            f"and {tuple(tgt_out.shape)}"
        )
    report = Report(
        "check_shift", summary="every row: tgt_in = BOS + target, tgt_out = target + EOS"
    )
    if torch.equal(tgt_in, tgt_out):
        report.problems.append(
            "tgt_in and tgt_out are the same tensor: position t reads the very word it must predict"
        )
        report.cause = (
            "the target is not shifted: the decoder copies its input, the training loss falls to "
            "almost nothing and the translations are garbage. Use tgt_in = BOS + target, "
            "tgt_out = target + EOS"
        )
        return report
    B, T = tgt_in.shape
    for b in range(B):
        row_in, row_out = tgt_in[b].tolist(), tgt_out[b].tolist()
        n_out = len(row_out) - next(
            (k for k, t in enumerate(reversed(row_out)) if t != pad_id), len(row_out)
        )
        if row_in[0] != bos_id:
            report.problems.append(
                f"row {b}: tgt_in starts with id {row_in[0]}, not BOS ({bos_id})"
            )
            shifted_left = row_in[: n_out - 1] == row_out[1:n_out]
            report.cause = (
                "the target is shifted the wrong way (tgt_in is ahead of tgt_out)"
                if shifted_left
                else "the decoder's input does not start with BOS: prepend it (tgt_in = BOS + "
                "target)"
            )
            break
        if bos_id in row_out[:n_out]:
            report.problems.append(
                f"row {b}: tgt_out contains BOS at position {row_out.index(bos_id)}"
            )
            report.cause = (
                "BOS belongs in the decoder's input only; the model never has to predict it"
            )
            break
        if row_in[1:n_out] != row_out[: n_out - 1]:
            t = next(k for k in range(1, n_out) if row_in[k] != row_out[k - 1])
            report.problems.append(
                f"row {b}: tgt_in[{t}] = {row_in[t]} but tgt_out[{t - 1}] = {row_out[t - 1]}: "
                "the input is not the target shifted right by one"
            )
            report.cause = (
                "tgt_in and tgt_out come from different sentences or are shifted by more than one"
            )
            break
        if n_out and row_out[n_out - 1] != eos_id:
            report.problems.append(
                f"row {b}: tgt_out ends with id {row_out[n_out - 1]}, not EOS ({eos_id})"
            )
            report.cause = "without EOS in the targets the model never learns to stop"
            break
    return report


def check_loss_padding(loss_fn, logits, targets, *, pad_id: int = PAD_ID, seed: int = 0) -> Report:
    """Does ``loss_fn(logits, targets)`` ignore the padded positions (``targets == pad_id``)?

    The logits at padded positions are replaced with noise: the loss must not
    move. A loss that counts padding is lowered by easy "predict <pad>" tokens,
    rewards the model for them, and changes with the amount of padding in a
    batch. ``logits (B, T, V)``, ``targets (B, T)``.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
    pad = targets == pad_id
    if not bool(pad.any()):
        raise ValueError(
            f"targets hold no padding (id {pad_id}): nothing to check. Use a batch with sentences "
            "of different lengths, or pass pad_id"
        )
    with torch.no_grad():
        base = float(loss_fn(logits, targets))
        changed = logits.clone()
        g = torch.Generator().manual_seed(seed)
        changed[pad] = torch.randn(changed[pad].shape, generator=g).to(logits) * 10
        moved = float(loss_fn(changed, targets))
    report = Report(
        "check_loss_padding",
        details={"loss": base, "loss_with_other_padding": moved},
        summary=f"the loss stays {base:.4f} when the logits at {int(pad.sum())} padded positions "
        "change",
    )
    if abs(moved - base) > 1e-6 * max(1.0, abs(base)):
        report.problems.append(
            f"the loss moved from {base:.4f} to {moved:.4f} when only the logits at the "
            f"{int(pad.sum())} padded positions changed"
        )
        report.cause = (
            f"padding counted in the loss: pass ignore_index={pad_id} to F.cross_entropy (or "
            "average over the real tokens only)"
        )
    return report


# --- evaluation ------------------------------------------------------------------------------


def check_bleu(score: float, hypotheses, references, *, tolerance: float = 0.01) -> Report:
    """Which BLEU is ``score``? Compared with sacrebleu's corpus BLEU and the usual wrong ones.

    ``hypotheses`` and ``references`` are lists of detokenised strings (one
    reference per sentence). The standard is one corpus-level BLEU over all
    sentences (n-gram counts summed first), with sacrebleu's own tokeniser:
    ``sacrebleu.corpus_bleu(hypotheses, [references])``. The usual mistakes it
    recognises: the mean of sentence-level BLEUs, lower-cased text, a
    whitespace split that leaves punctuation on the words, and a score on a
    0-1 scale. ``details["variants"]`` holds every variant's value.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
    import sacrebleu

    hypotheses, references = list(hypotheses), list(references)
    if len(hypotheses) != len(references) or not hypotheses:
        raise ValueError(
            f"got {len(hypotheses)} hypotheses and {len(references)} references: give one "
            "reference string per hypothesis"
        )
    if not all(isinstance(s, str) for s in hypotheses + references):
        raise ValueError(
            "hypotheses and references must be strings (detokenised sentences), not token lists"
        )
    corpus = sacrebleu.corpus_bleu(hypotheses, [references]).score
    variants = {
        "corpus BLEU (sacrebleu, the standard)": corpus,
        "mean of sentence BLEUs": sum(
            sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hypotheses, references)
        )
        / len(hypotheses),
        "whitespace tokens (punctuation stuck to words)": sacrebleu.corpus_bleu(
            hypotheses, [references], tokenize="none"
        ).score,
        "0-1 scale": corpus / 100,
    }
    report = Report(
        "check_bleu",
        details={"variants": variants, "corpus_bleu": corpus},
        summary=f"{score:.2f} is sacrebleu's corpus BLEU ({corpus:.2f})",
    )
    if abs(score - corpus) > tolerance:
        closest = min(variants, key=lambda k: abs(variants[k] - score))
        report.problems.append(f"{score:.2f} is not the corpus BLEU {corpus:.2f}")
        if abs(variants[closest] - score) <= max(tolerance, 0.01 * abs(score)):
            report.cause = f"it matches the {closest}: {variants[closest]:.2f}"
        else:
            report.cause = (
                "it matches none of the usual variants: score detokenised strings with "
                "sacrebleu.corpus_bleu(hypotheses, [references])"
            )
        if closest == "mean of sentence BLEUs":
            report.cause += (
                "; a sentence-level BLEU is 0 (or smoothed) whenever a short sentence misses every "
                "4-gram, so the mean is not BLEU: sum the n-gram counts over the corpus first"
            )
    return report
