"""The checks that probe a model by running it: determinism, causality, padding, positions.

Each runs ``fn`` (any callable or ``nn.Module`` mapping an embedded
``x (B, T, D)`` to ``(B, T, ...)``) without gradients: twice on the same ``x``
(determinism), or on ``x`` and on ``x`` with some positions changed, and
reports which positions of the output moved that should not have (or stayed
that should have moved).

Derived in chapter 12 (Why doesn't my Transformer learn?).
"""

from __future__ import annotations

import torch

from .report import (
    NAN_CAUSE,
    Report,
    embedded_input,
    has_dropout,
    modules_behind,
    moved_positions,
    nan_problems,
    noise_like,
    run_on,
)

__all__ = ["check_determinism", "check_causality", "check_padding", "check_positions"]


# --- determinism -----------------------------------------------------------------------------


def check_determinism(fn, x, *, atol: float = 1e-6, where=None) -> Report:
    """Run ``fn`` twice on the same ``x``: a healthy model in evaluation gives the same output.

    ``fn`` maps a float ``x (B, T, D)`` (or anything, if you pass it whole:
    only the outputs are compared) to a tensor. Different outputs mean
    randomness at inference, almost always dropout left on: ``model.eval()``
    was not called, or a ``F.dropout(x, p)`` without ``training=self.training``.
    ``where``, a boolean ``(B, T)`` tensor, restricts the comparison to those positions.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
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
            name or "the model" for name, m in modules_behind(fn) if m.training and has_dropout(m)
        ]
        where = f" ({', '.join(training[:3])} in training mode)" if training else ""
        report.problems.append(f"two runs on the same input differ by up to {gap:.3g}{where}")
        report.cause = (
            "dropout still active at inference: call model.eval() before evaluating or translating "
            "(and model.train() before training again), and write F.dropout(x, p, "
            "training=self.training), never F.dropout(x, p) alone"
        )
    return report


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

    The chapter 6 experiment, made a tool. Derived in chapter 12 (Why
    doesn't my Transformer learn?).
    """
    x = embedded_input(x)
    base = run_on(fn, x)
    report = Report("check_causality")
    det = check_determinism(fn, x)
    if not det:
        report.problems += det.problems
        report.cause = det.cause
        return report
    nan = nan_problems(base)
    if nan:
        report.problems += nan
        report.cause = NAN_CAUSE
        return report
    B, T = x.shape[:2]
    reads = torch.zeros(T, T, dtype=torch.bool)
    for j in range(T):
        changed = x.clone()
        changed[:, j] = changed[:, j] + noise_like(changed[:, j], seed + j)
        reads[:, j] = moved_positions(base, run_on(fn, changed), atol).any(dim=0)  # (B, T) -> (T,)
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

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
    x = embedded_input(x)
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
    base = run_on(fn, x)
    det = check_determinism(fn, x, where=real.to(x.device))
    if not det:
        report.problems += det.problems
        report.cause = det.cause
        return report
    nan = [p for p in nan_problems(base) if p]
    bad_rows = ~torch.isfinite(base.flatten(2)).all(dim=-1) & real.to(base.device)
    if bad_rows.any():
        report.problems += nan
        report.cause = NAN_CAUSE
        return report
    changed = x.clone()
    pad = (~real).to(x.device)
    changed[pad] = changed[pad] + noise_like(changed, seed)[pad]
    moved = (
        moved_positions(base, run_on(fn, changed), atol).cpu() & real
    )  # (B, T): real positions that moved
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

    Derived in chapter 12 (Why doesn't my Transformer learn?).
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
