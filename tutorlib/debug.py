"""Checks that find the bugs that keep a Transformer from learning: the tools of chapter 12.

Each check takes plain callables or ``nn.Module`` s, so it works on any model,
not only the course's: a ``torch.nn.Transformer``, a Hugging Face model, your
own. Each returns a ``Report``: ``bool(report)`` is True when nothing is wrong,
and ``str(report)`` names what failed, where, and the likely cause::

    >>> report = check_causality(lambda x: decoder(x, memory, tgt_mask=mask), x)
    >>> if not report:
    ...     print(report)
    check_causality: FAILED. position 0 reads position 1 (...)

- ``check_causality(fn, x)``: does any position read a later one?
- ``check_padding(fn, x, lengths)``: does any real position read the padding?
- ``check_mask_convention(mask)``: True = attend, True = hide, or additive 0/-inf?
- ``check_determinism(fn, x)``: the same input twice, the same output? (dropout left on)
- ``check_positions(fn, x)``: does the output depend on the order of the inputs?
- ``check_shift(batch)``: is the decoder's input the target shifted right behind BOS?
- ``check_loss_padding(loss_fn, logits, targets)``: does the loss ignore padded positions?
- ``overfit_one_batch(model, batch)``: can the model learn one batch by heart?
- ``attention_entropy(weights)``: saturated (one-hot) or uniform heads, per layer and head;
- ``gradient_norms(model)``: dead (zero or missing) and exploding (or NaN) gradients, per layer;
- ``check_bleu(score, hypotheses, references)``: which BLEU was computed?

Shape letters as everywhere in tutorlib: ``B`` batch, ``T`` positions,
``D`` width, ``H`` heads. The perturbation checks run ``fn`` without
gradients and never change the model's train/eval mode: a check that finds
dropout still on says so.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from .translation.data import BOS_ID, EOS_ID, PAD_ID

__all__ = [
    "Report",
    "check_causality",
    "check_padding",
    "check_mask_convention",
    "check_determinism",
    "check_positions",
    "check_shift",
    "check_loss_padding",
    "overfit_one_batch",
    "attention_maps",
    "attention_entropy",
    "gradient_norms",
    "check_bleu",
]


@dataclass
class Report:
    """The result of one check: ``bool(report)`` is True when healthy.

    ``problems`` lists what failed and where (empty when healthy), ``cause``
    the likely cause, ``details`` the numbers behind the verdict (for plots
    and tables). ``str(report)`` reads as one paragraph.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """

    check: str
    problems: list = field(default_factory=list)
    cause: str = ""
    summary: str = ""  # one line on what was checked, healthy or not
    details: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return not self.problems

    @property
    def healthy(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if not self.problems:
            return f"{self.check}: healthy. {self.summary}".rstrip()
        shown = self.problems[:4]
        more = len(self.problems) - len(shown)
        text = f"{self.check}: FAILED. " + "; ".join(shown)
        if more:
            text += f"; and {more} more"
        if self.cause:
            text += f". Likely cause: {self.cause}"
        return text

    def __repr__(self) -> str:
        return str(self)


# --- helpers -----------------------------------------------------------------------------


def _check_x(x, name: str = "x") -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.ndim != 3:
        got = (
            f"shape {tuple(x.shape)}, dtype {x.dtype}"
            if isinstance(x, torch.Tensor)
            else type(x).__name__
        )
        raise ValueError(
            f"{name} must be a float tensor of shape (B, T, D), got {got}. Pass the embedded "
            "inputs (token vectors), not token ids: wrap the embedding inside fn if your model "
            "starts from ids"
        )
    return x


def _run(fn, x) -> torch.Tensor:
    with torch.no_grad():
        out = fn(x)
    if isinstance(out, (tuple, list)):
        out = out[0]  # (output, weights) as tutorlib's layers return with need_weights
    if not isinstance(out, torch.Tensor) or out.ndim < 2 or out.shape[:2] != x.shape[:2]:
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(
            f"fn must map x of shape (B, T, D) = {tuple(x.shape)} to a tensor (B, T, ...) with the "
            f"same B and T, got {got}. Is your model batch_first? torch.nn.Transformer needs "
            "batch_first=True"
        )
    return out.float()


def _moved(a: torch.Tensor, b: torch.Tensor, atol: float) -> torch.Tensor:
    """(B, T): did position t of sequence b move by more than the tolerance (NaN counts as
    moved)?"""
    scale = max(1.0, float(torch.nan_to_num(a.abs()).max()))
    diff = (a - b).abs().flatten(2).amax(dim=-1)  # (B, T, ...) -> (B, T)
    return torch.nan_to_num(diff, nan=float("inf")) > atol * scale


def _noise(x: torch.Tensor, seed: int) -> torch.Tensor:
    # an odd offset, so that the noise never repeats an x drawn with torch.manual_seed(seed)
    g = torch.Generator(device="cpu").manual_seed(7919 + seed)
    scale = float(x.detach().std()) if x.numel() > 1 else 1.0
    return (torch.randn(x.shape, generator=g) * max(scale, 1e-3)).to(x.device, x.dtype)


def _nan_problem(out: torch.Tensor) -> list:
    bad = ~torch.isfinite(out.flatten(2)).all(dim=-1)  # (B, T)
    if bad.any():
        where = [tuple(int(i) for i in w) for w in torch.nonzero(bad)[:3]]
        return [
            f"the output is NaN or inf at (sequence, position) {', '.join(map(str, where))}"
            + (f" and {int(bad.sum()) - 3} more" if int(bad.sum()) > 3 else "")
        ]
    return []


_NAN_CAUSE = (
    "a query row with every key masked (the softmax divides 0 by 0): a mask with the wrong "
    "polarity (True = hide where True = attend is expected), or the padding mask on the queries' "
    "axis"
)


# --- determinism -----------------------------------------------------------------------------


def check_determinism(fn, x, *, atol: float = 1e-6, where=None) -> Report:
    """Run ``fn`` twice on the same ``x``: a healthy model in evaluation gives the same output.

    ``fn`` maps a float ``x (B, T, D)`` (or anything, if you pass it whole:
    only the outputs are compared) to a tensor. Different outputs mean
    randomness at inference, almost always dropout left on: ``model.eval()``
    was not called, or a ``F.dropout(x, p)`` without ``training=self.training``.
    ``where``, a boolean ``(B, T)`` tensor, restricts the comparison to those positions.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    with torch.no_grad():
        a, b = fn(x), fn(x)
    a = a[0] if isinstance(a, (tuple, list)) else a
    b = b[0] if isinstance(b, (tuple, list)) else b
    a, b = a.float(), b.float()
    if where is not None:
        a, b = a[where], b[where]
    both_nan = torch.isnan(a) & torch.isnan(b)  # NaN in both runs is the same answer
    gap = float(torch.nan_to_num((a - b).abs().masked_fill(both_nan, 0.0), nan=float("inf")).max())
    report = Report(
        "check_determinism",
        summary=f"two runs on the same input differ by at most {gap:.2g}",
        details={"max_difference": gap},
    )
    if gap > atol * max(1.0, float(torch.nan_to_num(a.abs()).max())):
        training = [
            name or "the model" for name, m in _modules(fn) if m.training and _has_dropout(m)
        ]
        where = f" ({', '.join(training[:3])} in training mode)" if training else ""
        report.problems.append(f"two runs on the same input differ by up to {gap:.3g}{where}")
        report.cause = (
            "dropout still active at inference: call model.eval() before evaluating or translating "
            "(and model.train() before training again), and write F.dropout(x, p, "
            "training=self.training), never F.dropout(x, p) alone"
        )
    return report


def _modules(fn):
    """The nn.Modules behind ``fn``: itself, or those a lambda or bound method closes over."""
    found = []
    if isinstance(fn, nn.Module):
        return [("", fn)]
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, nn.Module):
        found.append(("", owner))
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, nn.Module):
            found.append(("", value))
    return found


def _has_dropout(m: nn.Module) -> bool:
    return any(isinstance(s, nn.Dropout) and s.p > 0 for s in m.modules()) or any(
        getattr(s, "dropout", 0) not in (0, 0.0, None)
        and isinstance(getattr(s, "dropout", 0), float)
        for s in m.modules()
    )


# --- causality ---------------------------------------------------------------------------------


def check_causality(fn, x, *, atol: float = 1e-5, seed: int = 0) -> Report:
    """Does any position of ``fn``'s output depend on a *later* position of its input?

    ``fn`` is any callable mapping a float ``x (B, T, D)`` to ``(B, T, ...)``
    (a decoder with its causal mask, a whole language model from embeddings
    on). Each position ``j`` is changed in turn (random noise added to
    ``x[:, j]``) and every earlier output position ``i < j`` that moves is a
    leak: ``i`` reads ``j``, which a decoder trained with teacher forcing must
    never do, or it learns to copy the answer. ``details["reads"]`` is the
    ``(T, T)`` table: entry ``[i, j]`` True when output ``i`` moved with input ``j``.

    The chapter 6 experiment, made a tool. Introduced in chapter 12 (Why
    doesn't my Transformer learn?).
    """
    x = _check_x(x)
    base = _run(fn, x)
    report = Report("check_causality")
    det = check_determinism(fn, x)
    if not det:
        report.problems += det.problems
        report.cause = det.cause
        return report
    nan = _nan_problem(base)
    if nan:
        report.problems += nan
        report.cause = _NAN_CAUSE
        return report
    B, T = x.shape[:2]
    reads = torch.zeros(T, T, dtype=torch.bool)
    for j in range(T):
        changed = x.clone()
        changed[:, j] = changed[:, j] + _noise(changed[:, j], seed + j)
        reads[:, j] = _moved(base, _run(fn, changed), atol).any(dim=0)  # (B, T) -> (T,)
    report.details["reads"] = reads
    leaks = [(i, j) for i in range(T) for j in range(i + 1, T) if reads[i, j]]
    report.details["leaks"] = leaks
    report.summary = f"no position of {T} reads a later one"
    if leaks:
        i, j = leaks[0]
        report.problems.append(
            f"position {i} reads position {j}, which comes after it ({len(leaks)} such "
            f"(earlier, later) pairs of {T * (T - 1) // 2})"
        )
        upper = torch.ones(T, T, dtype=torch.bool).triu(1)
        if bool(reads[upper].all()) and not bool(
            reads[~upper & ~torch.eye(T, dtype=torch.bool)].any()
        ):
            report.cause = (
                "the mask is transposed or inverted: every position reads the later ones and none "
                "of the earlier ones. Use tril (True on and below the diagonal) with True = attend"
            )
        elif bool(reads[upper].all()):
            report.cause = (
                "no causal mask reaches the attention: it was not passed (tgt_mask / is_causal), "
                "or only the padding mask was. The model will copy the next word in training and "
                "fail when it generates"
            )
        else:
            report.cause = (
                "a partial causal mask: check how it is built (tril, not triu; <= not >=) and "
                "that it is combined with the padding mask by & (True = attend) or | (True = hide)"
            )
    return report


# --- padding ---------------------------------------------------------------------------------


def check_padding(fn, x, lengths, *, atol: float = 1e-5, seed: int = 0) -> Report:
    """Does any real position of ``fn``'s output depend on the padding?

    ``fn`` maps a float ``x (B, T, D)`` to ``(B, T, ...)``; in sequence ``b``
    the positions at or beyond ``lengths[b]`` are padding. The check replaces
    every padded input with noise and reports each real position
    ``t < lengths[b]`` whose output moved: it read the padding, so the same
    sentence gives another answer in another batch. (What happens *at*
    padded positions does not matter: the loss ignores them.)

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    x = _check_x(x)
    lengths = torch.as_tensor(lengths).long().cpu()
    B, T = x.shape[:2]
    if lengths.shape != (B,):
        raise ValueError(
            f"lengths must have one entry per sequence, shape ({B},), got shape "
            f"{tuple(lengths.shape)}"
        )
    if (lengths < 1).any() or (lengths > T).any():
        raise ValueError(f"every length must be between 1 and T={T}, got {lengths.tolist()}")
    report = Report("check_padding")
    real = torch.arange(T)[None, :] < lengths[:, None]  # (1, T) < (B, 1) -> (B, T)
    if bool(real.all()):
        raise ValueError(
            f"lengths {lengths.tolist()} leave no padding in x of T={T} positions: nothing to "
            "check. Give some sequences a length below T"
        )
    base = _run(fn, x)
    det = check_determinism(fn, x, where=real.to(x.device))
    if not det:
        report.problems += det.problems
        report.cause = det.cause
        return report
    nan = [p for p in _nan_problem(base) if p]
    bad_rows = ~torch.isfinite(base.flatten(2)).all(dim=-1) & real.to(base.device)
    if bad_rows.any():
        report.problems += nan
        report.cause = _NAN_CAUSE
        return report
    changed = x.clone()
    pad = (~real).to(x.device)
    changed[pad] = changed[pad] + _noise(changed, seed)[pad]
    moved = _moved(base, _run(fn, changed), atol).cpu() & real  # (B, T): real positions that moved
    report.details["moved"] = moved
    report.summary = f"no real position of {int(real.sum())} moved when the padding changed"
    if moved.any():
        rows = sorted({int(b) for b in torch.nonzero(moved)[:, 0]})
        b = rows[0]
        positions = [int(t) for t in torch.nonzero(moved[b])[:, 0]]
        report.problems.append(
            f"sequence {b} (length {int(lengths[b])}): real positions {positions[:6]}"
            f"{'...' if len(positions) > 6 else ''} changed when only its padding changed"
            + (f"; so did sequences {rows[1:6]}" if len(rows) > 1 else "")
        )
        report.cause = (
            "the padding mask does not reach the attention, or hides the wrong axis: it must hide "
            "keys (the last axis, mask[:, None, None, :] on (B, H, T_q, T_k) scores), with the "
            "convention of the attention function (tutorlib and F.scaled_dot_product_attention: "
            "True = attend; nn.MultiheadAttention's key_padding_mask: True = padding)"
        )
    return report


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

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
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


# --- positions ---------------------------------------------------------------------------------


def check_positions(fn, x, *, atol: float = 1e-5, swap: tuple = (0, 1)) -> Report:
    """Does the model know the order of its inputs? Swap two positions and compare.

    ``fn`` maps ``x (B, T, D)`` (or token ids ``(B, T)``) to ``(B, T, ...)``.
    Positions ``swap = (i, j)`` of the input are exchanged. Without positional
    information self-attention is *permutation-equivariant*: the outputs are
    the same vectors, exchanged too, so "the dog bites the man" and "the man
    bites the dog" look alike. A healthy encoder gives different vectors. Give
    ``fn`` the inputs before positions are added, so that a model that forgets
    to add them is caught.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    if not isinstance(x, torch.Tensor) or x.ndim < 2:
        raise ValueError(
            f"x must be a tensor (B, T, ...) of at least two positions, got {type(x).__name__}"
        )
    i, j = swap
    T = x.shape[1]
    if not (0 <= i < T and 0 <= j < T and i != j):
        raise ValueError(f"swap={swap} must name two different positions below T={T}")
    order = list(range(T))
    order[i], order[j] = j, i
    with torch.no_grad():
        a, b = fn(x), fn(x[:, order])
    a = (a[0] if isinstance(a, (tuple, list)) else a).float()
    b = (b[0] if isinstance(b, (tuple, list)) else b).float()
    gap = float((a[:, order] - b).abs().max())
    scale = max(1.0, float(a.abs().max()))
    report = Report(
        "check_positions",
        details={"difference": gap},
        summary=f"swapping positions {i} and {j} changes the outputs by up to {gap:.3g}, not just "
        "their order",
    )
    if gap <= atol * scale:
        report.problems.append(
            f"swapping input positions {i} and {j} only swaps the outputs (they differ by "
            f"{gap:.2g}): the model cannot tell word order"
        )
        report.cause = (
            "no positional information: the positional encodings are not added (or are zero), "
            "so self-attention sees a bag of words"
        )
    return report


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

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
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

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
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


# --- training -------------------------------------------------------------------------------


def overfit_one_batch(
    model,
    batch,
    loss_fn=None,
    *,
    steps: int = 100,
    lr: float = 3e-3,
    target: float = 0.1,
    seed: int = 0,
) -> Report:
    """The classic sanity test: can the model learn *one* batch by heart?

    A copy of ``model`` (yours is not touched) is trained with AdamW for
    ``steps`` steps on ``batch`` alone, without dropout. Any healthy model
    with enough parameters memorises a few sentences, so the loss must fall
    below ``target`` (default 0.1: without label smoothing a memorised batch
    costs almost nothing). ``loss_fn(model, batch)`` returns the loss; by
    default ``F.cross_entropy(model(batch), batch.tgt_out)``, padding ignored
    (a ``tutorlib.translation.data.Batch`` and a ``Translator``). ``details["losses"]``
    holds the curve.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be an nn.Module, got {type(model).__name__}")
    if loss_fn is None:
        if not hasattr(batch, "tgt_out"):
            raise ValueError(
                "without loss_fn, batch must have tgt_out (a tutorlib.translation.data.Batch); "
                "pass loss_fn(model, batch) -> loss for other models"
            )

        def loss_fn(m, b):
            logits = m(b)  # (B, T, V)
            return F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), b.tgt_out.reshape(-1), ignore_index=0
            )

    torch.manual_seed(seed)
    copy_ = copy.deepcopy(model)
    for m in copy_.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
        if hasattr(m, "dropout") and isinstance(m.dropout, float):
            m.dropout = 0.0
    copy_.train()
    optimizer = torch.optim.AdamW(copy_.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        loss = loss_fn(copy_, batch)
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            break
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(copy_.parameters(), 1.0)
        optimizer.step()
    final = losses[-1]
    report = Report(
        "overfit_one_batch",
        details={"losses": losses, "target": target},
        summary=f"the loss fell from {losses[0]:.3f} to {final:.3f} in {len(losses)} steps "
        f"(target below {target})",
    )
    if not math.isfinite(final):
        report.problems.append(f"the loss is {final} after {len(losses)} step(s)")
        report.cause = (
            "NaN at the first step is a mask (" + _NAN_CAUSE + "); later, the learning rate is too "
            "high (use a warmup and gradient clipping)"
        )
    elif final > losses[0]:
        report.problems.append(
            f"the loss rose from {losses[0]:.3f} to {final:.3f} in {steps} steps on one batch"
        )
        report.cause = (
            "a learning rate far too high: every step overshoots. Lower it, warm up to it, and "
            "clip the gradient norm"
        )
    elif final > target:
        report.problems.append(
            f"the loss only fell from {losses[0]:.3f} to {final:.3f} in {steps} steps on one "
            f"batch (a healthy model goes below {target})"
        )
        report.cause = (
            "the model cannot see what it must predict: the source hidden by a wrong mask, inputs "
            "and targets misaligned, gradients not flowing (detach, frozen layers), or a learning "
            "rate far too low. Look at gradient_norms"
        )
    return report


def gradient_norms(model: nn.Module, *, explode: float = 1e3) -> Report:
    """The gradient's size per layer (and per head of tutorlib's attention), after
    ``loss.backward()``.

    Parameters are grouped by the module path up to the layer number
    (``encoder.layers.0.self_attn``). Reported: NaN or inf gradients, groups
    whose gradient is missing (the parameter never took part in the loss) or
    exactly zero (a dead layer), and groups larger than ``explode``.
    ``details["norms"]`` maps each group to its norm; ``details["heads"]`` maps
    each tutorlib ``MultiHeadAttention`` to the norm of each head's slice of
    ``w_q`` and ``w_k``.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    groups: dict = {}
    missing = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        group = name.rsplit(".", 1)[0] if "." in name else name
        if p.grad is None:
            missing.append(name)
            continue
        groups.setdefault(group, []).append(p.grad.detach().float())
    norms = {
        g: float(torch.sqrt(sum((t.double() ** 2).sum() for t in ts))) for g, ts in groups.items()
    }
    heads = {}
    from .nn import MultiHeadAttention

    for name, m in model.named_modules():
        if (
            isinstance(m, MultiHeadAttention)
            and m.w_q.weight.grad is not None
            and m.w_k.weight.grad is not None
        ):
            gq = m.w_q.weight.grad.view(m.num_heads, m.d_head, -1)  # (D, D) -> (H, Dh, D)
            gk = m.w_k.weight.grad.view(m.num_heads, m.d_head, -1)
            heads[name] = [
                float(torch.sqrt((gq[h] ** 2).sum() + (gk[h] ** 2).sum()))
                for h in range(m.num_heads)
            ]
    total = math.sqrt(sum(v**2 for v in norms.values())) if norms else float("nan")
    report = Report(
        "gradient_norms",
        details={"norms": norms, "heads": heads, "total": total, "missing": missing},
        summary=f"total gradient norm {total:.3g} over {len(norms)} groups",
    )
    if not groups and not missing:
        raise ValueError("the model has no trainable parameters")
    if not groups:
        report.problems.append("no parameter has a gradient")
        report.cause = (
            "call loss.backward() before gradient_norms(model) (and not after "
            "optimizer.zero_grad())"
        )
        return report
    bad = [g for g, v in norms.items() if not math.isfinite(v)]
    if bad:
        report.problems.append(
            f"NaN or inf gradients in {bad[:3]}"
            + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        )
        report.cause = (
            "divergence: a learning rate too high or a warmup too short (or a schedule that is "
            "infinite at step 0), no gradient clipping, fp16 overflow; or a NaN already in the loss"
        )
    big = [g for g, v in norms.items() if math.isfinite(v) and v > explode]
    if big:
        report.problems.append(
            f"exploding gradients: {big[0]} has norm {norms[big[0]]:.3g} (> {explode:g})"
        )
        report.cause = report.cause or (
            "exploding gradients: lower the learning rate, add warmup and clip the "
            "gradient norm (torch.nn.utils.clip_grad_norm_)"
        )
    zero = [g for g, v in norms.items() if v == 0.0]
    if missing:
        report.problems.append(
            f"no gradient at all for {missing[:3]}"
            + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        )
        report.cause = report.cause or (
            "parameters that never reach the loss: a layer built but not called, an "
            "output detached (.detach(), .item(), torch.no_grad) or a tensor rebuilt "
            "from numbers"
        )
    if zero:
        report.problems.append(
            f"the gradient is exactly zero in {zero[:3]}"
            + (f" and {len(zero) - 3} more" if len(zero) > 3 else "")
        )
        report.cause = report.cause or (
            "a dead layer: its output is multiplied by zero, fully masked, or cut off "
            "(e.g. every ReLU unit off)"
        )
    return report


# --- attention -------------------------------------------------------------------------------


def attention_maps(model: nn.Module, *args, **kwargs) -> dict:
    """Run ``model(*args, **kwargs)`` and collect every attention's weights, ``{name: (B, H, T_q,
    T_k)}``.

    Works for tutorlib's ``MultiHeadAttention`` (asked for ``need_weights``)
    and PyTorch's ``nn.MultiheadAttention`` (asked for ``need_weights`` and
    one map per head) inside any model, ``nn.Transformer`` included. Runs with
    gradients on so that PyTorch's fused fast path, which returns no weights,
    stays off.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    from .nn import MultiHeadAttention

    maps, handles = {}, []
    for name, m in model.named_modules():
        if isinstance(m, (MultiHeadAttention, nn.MultiheadAttention)):

            def pre(module, a, kw):
                kw["need_weights"] = True
                if isinstance(module, nn.MultiheadAttention):
                    kw["average_attn_weights"] = False
                return a, kw

            def post(module, a, kw, out, name=name):
                if isinstance(out, tuple) and out[1] is not None:
                    maps[name] = out[1].detach()

            handles.append(m.register_forward_pre_hook(pre, with_kwargs=True))
            handles.append(m.register_forward_hook(post, with_kwargs=True))
    try:
        with torch.enable_grad():
            model(*args, **kwargs)
    finally:
        for h in handles:
            h.remove()
    if not maps:
        raise ValueError(
            f"{type(model).__name__} holds no tutorlib MultiHeadAttention or nn.MultiheadAttention "
            "whose weights could be collected: pass the weights to attention_entropy yourself"
        )
    return maps


def attention_entropy(
    weights, *args, saturated: float = 0.999, uniform: float = 0.99, **kwargs
) -> Report:
    r"""How peaked is each head's attention? Entropy per layer and head, with saturated and uniform
    heads flagged.

    ``weights`` is one tensor ``(..., H, T_q, T_k)``, a list or a dict of them
    (one per layer), or an ``nn.Module``: then ``attention_maps(weights, *args,
    **kwargs)`` collects them. For each head: the mean entropy
    :math:`-\sum_k a_k \ln a_k` of its rows, divided by :math:`\ln n`, the
    entropy of a uniform row over its ``n`` visible keys (weights > 0), and the
    mean largest weight. A head whose rows put more than ``saturated`` on one
    key has a saturated softmax: its gradient vanishes (scores too large: the
    :math:`1/\sqrt{d_k}` scaling missing). A head whose normalised entropy
    exceeds ``uniform`` looks at everything equally: on a *trained* model, the
    scores are too small (scaled by :math:`d_k` or :math:`\sqrt{D}` instead of
    :math:`\sqrt{d_k}`) or the queries and keys learnt nothing. An untrained
    model's heads are close to uniform; that is no bug.

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
    """
    if isinstance(weights, nn.Module):
        weights = attention_maps(weights, *args, **kwargs)
    if isinstance(weights, torch.Tensor):
        weights = {"attention": weights}
    elif isinstance(weights, (list, tuple)):
        weights = {f"layer {i}": w for i, w in enumerate(weights)}
    table, problems = {}, []
    for name, w in weights.items():
        w = torch.as_tensor(w).detach().double()
        if w.ndim < 2:
            raise ValueError(
                f"attention weights {name!r} must be (..., T_q, T_k), got shape {tuple(w.shape)}"
            )
        w = w.reshape(-1, *w.shape[-3:]) if w.ndim >= 3 else w[None, None]  # (N, H, T_q, T_k)
        visible = (w > 0).sum(dim=-1)  # (N, H, T_q)
        rows = visible >= 2
        ent = -torch.special.xlogy(w, w).sum(dim=-1)  # (N, H, T_q), nats
        norm = ent / torch.log(visible.clamp(min=2).double())
        peak = w.amax(dim=-1)
        per_head = []
        for h in range(w.shape[1]):
            r = rows[
                :, h
            ]  # entropy over rows that see two keys or more; a one-hot row counts as peak 1
            peak_h = float(peak[:, h].mean())
            if not bool(r.any()):
                per_head.append((float("nan"), float("nan"), peak_h))
                continue
            per_head.append((float(ent[:, h][r].mean()), float(norm[:, h][r].mean()), peak_h))
        table[name] = per_head
        for h, (e, n, p) in enumerate(per_head):
            if p > saturated:
                problems.append(
                    f"{name} head {h} is saturated (its largest weight averages {p:.3f})"
                )
            elif n > uniform:
                problems.append(
                    f"{name} head {h} is nearly uniform ({100 * n:.1f}% of the uniform entropy)"
                )
    report = Report(
        "attention_entropy",
        problems=problems,
        details={"heads": table},
        summary=f"{sum(len(v) for v in table.values())} heads, none saturated or uniform",
    )
    if problems:
        sat = any("saturated" in p for p in problems)
        report.cause = (
            (
                "saturated softmaxes: the scores are too large; is the 1/sqrt(d_k) scaling "
                "missing? Their gradients vanish"
            )
            if sat
            else (
                "uniform attention: the scores are too small, scaled by d_k or sqrt(d_model) "
                "instead of sqrt(d_k), or the model has not learnt (yet) to look anywhere in "
                "particular"
            )
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

    Introduced in chapter 12 (Why doesn't my Transformer learn?).
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
