"""The experiment behind the 1/sqrt(d_k) in attention (chapter 4).

Draw queries and keys with independent standard-normal entries. Their dot
product is a sum of d_k products of variance 1, so its variance is d_k: the
scores spread out as the width grows. Softmax of widely spread scores puts
almost all the weight on one key (it *saturates*), and the softmax's
Jacobian, ``diag(p) - p pᵀ``, then shrinks towards 0, so almost no gradient
flows back through it. (The gradient of the query also carries a factor of the
keys, about sqrt(d_k) long: chapter 4 measures it, and finds its median
collapsing while a few near-tied queries get large steps.) Dividing by
sqrt(d_k) keeps the variance at 1 for every width.

Derived in chapters 3 (Softmax) and 4 (Scaled dot-product attention).
"""

from __future__ import annotations

import numpy as np

from .attention import softmax

__all__ = ["softmax_jacobian", "scaling_experiment"]


def softmax_jacobian(p) -> np.ndarray:
    """Jacobian of softmax at output ``p`` (shape ``(..., n)``): ``diag(p) - p pᵀ``, shape ``(...,
    n, n)``."""
    p = np.asarray(p, dtype=float)
    # (..., n, 1) * (..., 1, n) -> (..., n, n)
    return p[..., :, None] * (np.eye(p.shape[-1]) - p[..., None, :])


def scaling_experiment(
    d_values=(2, 8, 32, 128, 512), n_keys: int = 10, n_trials: int = 2000, seed: int = 0
) -> dict:
    """Measure, for each width ``d_k``, what scaling by 1/sqrt(d_k) changes.

    For ``n_trials`` random queries, each against ``n_keys`` random keys
    (entries drawn from N(0, 1)), returns a dict of arrays indexed like ``d_values``:

    - ``var_raw``, ``var_scaled``: variance of q·k and of q·k/sqrt(d_k)
    - ``max_weight_raw``, ``max_weight_scaled``: mean largest softmax weight
    - ``jacobian_raw``, ``jacobian_scaled``: mean Frobenius norm of the softmax
      Jacobian (how much the weights can still move; the gradient with respect to
      the query adds the keys' factor, chapter 4)
    """
    d_values = [int(d) for d in d_values]
    if not d_values or min(d_values) < 1:
        raise ValueError(f"d_values must be widths of at least 1, got {d_values}")
    if n_keys < 2 or n_trials < 2:
        raise ValueError(
            f"need n_keys >= 2 and n_trials >= 2, got n_keys={n_keys}, n_trials={n_trials}"
        )
    rng = np.random.default_rng(seed)
    out = {
        name: []
        for name in (
            "var_raw",
            "var_scaled",
            "max_weight_raw",
            "max_weight_scaled",
            "jacobian_raw",
            "jacobian_scaled",
        )
    }
    for d in d_values:
        q = rng.standard_normal((n_trials, 1, d))  # (N, 1, d_k)
        k = rng.standard_normal((n_trials, n_keys, d))  # (N, n_keys, d_k)
        raw = (q @ np.swapaxes(k, -1, -2))[:, 0, :]  # (N, n_keys)
        for tag, scores in (("raw", raw), ("scaled", raw / np.sqrt(d))):
            p = softmax(scores, axis=-1)
            out[f"var_{tag}"].append(scores.var())
            out[f"max_weight_{tag}"].append(p.max(axis=-1).mean())
            out[f"jacobian_{tag}"].append(np.linalg.norm(softmax_jacobian(p), axis=(-2, -1)).mean())
    result = {name: np.array(values) for name, values in out.items()}
    result["d_k"] = np.array(d_values)
    return result
