"""Chapters 3 and 4's explorers: how sharp a softmax is, set by its temperature and by sqrt(d_k).

=====================  ==========================================  =========
explorer               its pure function                           chapter
=====================  ==========================================  =========
temperature_explorer   temperature_view(scores, labels, τ)         3
saturation_explorer    saturation_view(d_k, scaled)                4
=====================  ==========================================  =========

The temperature slider divides one row of scores before the softmax; the d_k
slider widens one seeded query and its keys, scaled by sqrt(d_k) or not, and
shows how far the weights can still move (the softmax Jacobian's size).

Derived in chapter 3 (Softmax); chapter 4 adds the d_k slider.
"""

from __future__ import annotations

import numpy as np

from ..attention import softmax
from ..checks import whole_number
from ..display import weight_bars_html
from ..experiments import softmax_jacobian
from .controls import Spec, explorer
from .widgets import explorer_box, live_controls

__all__ = [
    "temperature_view",
    "temperature_steps",
    "temperature_explorer",
    "saturation_view",
    "saturation_explorer",
    "D_K_STEPS",
    "MAX_D_K",
]

#: The widths the d_k slider steps through: roughly doubling, 1 to 512 (the paper's d_model).
D_K_STEPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
MAX_D_K = D_K_STEPS[-1]


# --- chapter 3: temperature ------------------------------------------------------------


def temperature_view(scores, labels, temperature: float) -> tuple[np.ndarray, str]:
    """The temperature explorer's logic: softmax weights at ``temperature`` and their bars as
    HTML."""
    weights = softmax(np.asarray(scores, dtype=float), temperature=temperature)
    return weights, weight_bars_html(labels, weights, title=f"softmax(scores / {temperature:g})")


def temperature_steps(minimum: float = 0.1, maximum: float = 5.0) -> np.ndarray:
    """The temperatures the slider stops at: ``minimum`` to ``maximum`` in steps of 0.1, rounded."""
    if not 0 < minimum < maximum:
        raise ValueError(
            f"the slider needs 0 < minimum < maximum, got minimum={minimum!r}, maximum={maximum!r}"
        )
    return np.round(np.arange(minimum, maximum + 1e-9, 0.1), 10)


@explorer("chapters/03_softmax", temperature="slider")
def temperature_explorer(
    scores, labels, temperature: float = 1.0, minimum: float = 0.1, maximum: float = 5.0
):
    """A slider for the softmax temperature over ``scores``, with the weights drawn as bars."""
    import ipywidgets as widgets

    page = temperature_view(scores, labels, temperature)[1]
    steps = temperature_steps(minimum, maximum)
    if not np.isclose(steps, temperature).any():
        raise ValueError(
            f"the slider moves in steps of 0.1 from {minimum:g} to {maximum:g}; "
            f"temperature={temperature!r} is not one of them"
        )
    start = float(steps[np.isclose(steps, temperature)][0])
    options = tuple((f"{t:g}", float(t)) for t in steps)
    specs = [Spec("temperature", "slider", "temperature", options, start)]
    live = live_controls(specs)
    slider, bars = live["temperature"], widgets.HTML(value=page)

    def redraw(change):
        bars.value = temperature_view(scores, labels, change["new"])[1]

    slider.observe(redraw, names="value")
    box = explorer_box(
        [slider, bars],
        specs,
        live,
        lambda temperature: temperature_view(scores, labels, temperature)[1],
        "temperature",
    )
    box.slider, box.bars = slider, bars  # handles for tests and for curious learners
    return box


# --- chapter 4: the sqrt(d_k) saturation slider ------------------------------------------


def _saturation_vectors(n_keys: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One query and ``n_keys`` keys, MAX_D_K wide, entries from N(0, 1); a width d_k uses the first
    d_k features."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(MAX_D_K)  # (MAX_D_K,)
    k = rng.standard_normal((n_keys, MAX_D_K))  # (n_keys, MAX_D_K)
    return q, k


def saturation_view(
    d_k: int, scaled: bool = True, n_keys: int = 8, seed: int = 0
) -> tuple[np.ndarray, str]:
    r"""The saturation slider's logic: one seeded query against ``n_keys`` seeded keys of width
    ``d_k``.

    Scores are :math:`q \cdot k_j`, divided by :math:`\sqrt{d_k}` when
    ``scaled``; the weights are their softmax. The query and keys are the
    first ``d_k`` features of fixed 512-wide random vectors, so moving the
    slider widens the *same* vectors. Returns ``(weights (n_keys,), html)``;
    the HTML shows the weights as bars with the scores' spread, the largest
    weight and the size (Frobenius norm) of the softmax Jacobian
    (:func:`tutorlib.experiments.softmax_jacobian`): how far the weights can
    still move when the scores do. It is one factor of the gradient that
    training works with, not the gradient itself (chapter 4 adds the keys').

    Derived in chapter 4 (Scaled dot-product attention).
    """
    d_k = whole_number("d_k", d_k, 1, MAX_D_K)
    n_keys = whole_number("n_keys", n_keys, 2)
    if not isinstance(scaled, (bool, np.bool_)):
        raise ValueError(f"scaled must be True (divide by sqrt(d_k)) or False, got {scaled!r}")
    q, k = _saturation_vectors(n_keys, whole_number("seed", seed, 0))
    scores = k[:, :d_k] @ q[:d_k]  # (n_keys, d_k) @ (d_k,) -> (n_keys,)
    if scaled:
        scores = scores / np.sqrt(d_k)
    weights = softmax(scores)
    jacobian = float(np.linalg.norm(softmax_jacobian(weights)))
    formula = f"softmax(q·k / √{d_k})" if scaled else "softmax(q·k), not scaled"
    bars = weight_bars_html(
        [f"key {j + 1}" for j in range(n_keys)], weights, title=f"{formula}, d_k = {d_k}"
    )
    stats = (
        '<div class="tutorlib-stats" style="font-family:monospace;margin-top:4px">'
        f"spread of the scores (std): {scores.std():.2f}<br/>"
        f"largest weight: {weights.max():.3f} (uniform would be {1 / n_keys:.3f})<br/>"
        f"softmax Jacobian size ‖diag(p) − p pᵀ‖: {jacobian:.3f}</div>"
    )
    return weights, bars + stats


@explorer("chapters/04_scaled_dot_product_attention", d_k="slider", scaled="buttons")
def saturation_explorer(d_k: int = 64, scaled: bool = True, n_keys: int = 8, seed: int = 0):
    """A slider over d_k (1 to 512) and a scaled/unscaled toggle, showing
    :func:`saturation_view`."""
    import ipywidgets as widgets

    d_k = whole_number("d_k", d_k, 1, MAX_D_K)
    if d_k not in D_K_STEPS:
        raise ValueError(f"the slider starts on one of its steps {D_K_STEPS}, got d_k={d_k}")
    specs = [
        Spec("d_k", "slider", "d_k", tuple((str(d), d) for d in D_K_STEPS), d_k),
        Spec(
            "scaled",
            "buttons",
            "scores",
            (("scaled: ÷ √d_k", True), ("unscaled", False)),
            bool(scaled),
        ),
    ]
    live = live_controls(specs)
    slider, toggle = live["d_k"], live["scaled"]
    view = widgets.HTML(value=saturation_view(d_k, scaled, n_keys, seed)[1])

    def redraw(_change):
        view.value = saturation_view(slider.value, toggle.value, n_keys, seed)[1]

    slider.observe(redraw, names="value")
    toggle.observe(redraw, names="value")
    box = explorer_box(
        [widgets.HBox([slider, toggle]), view],
        specs,
        live,
        lambda d_k, scaled: saturation_view(d_k, scaled, n_keys, seed)[1],
        "saturation",
    )
    box.d_k, box.scaled, box.view = slider, toggle, view
    return box
