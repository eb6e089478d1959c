"""The attention weights of any model, and how spread out each head's are.

``attention_maps`` collects every attention's weights while a model runs;
``attention_entropy`` finds saturated (one-hot) and uniform heads in them.

Derived in chapter 12 (Why doesn't my Transformer learn?).
"""

from __future__ import annotations

import torch
from torch import nn

from ..nn import MultiHeadAttention
from .report import (
    Report,
)

__all__ = ["attention_maps", "attention_entropy"]


# --- attention -------------------------------------------------------------------------------


def attention_maps(model: nn.Module, *args, **kwargs) -> dict:
    """Run ``model(*args, **kwargs)`` and collect every attention's weights, ``{name: (B, H, T_q,
    T_k)}``.

    Works for tutorlib's ``MultiHeadAttention`` (asked for ``need_weights``)
    and PyTorch's ``nn.MultiheadAttention`` (asked for ``need_weights`` and
    one map per head) inside any model, ``nn.Transformer`` included. Runs with
    gradients on so that PyTorch's fused fast path, which returns no weights,
    stays off.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """
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

    Derived in chapter 12 (Why doesn't my Transformer learn?).
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
