"""The checks of training: can the model learn one batch, and do its gradients flow?

``overfit_one_batch`` trains a copy of the model on one batch until it knows it
by heart (or says why it cannot); ``gradient_norms`` reports dead and exploding
gradients, per layer and per attention head.

Derived in chapter 12 (Why doesn't my Transformer learn?).
"""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from ..nn import MultiHeadAttention
from .report import (
    NAN_CAUSE,
    Report,
)

__all__ = ["overfit_one_batch", "gradient_norms"]


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

    Derived in chapter 12 (Why doesn't my Transformer learn?).
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
            "NaN at the first step is a mask (" + NAN_CAUSE + "); later, the learning rate is too "
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

    Derived in chapter 12 (Why doesn't my Transformer learn?).
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
