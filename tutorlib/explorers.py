"""Interactive explorers for Jupyter, Colab and Binder.

Each explorer is two parts: a pure function that computes what is shown (tested
without a browser) and a thin ipywidgets wrapper that calls it whenever a
control moves. In the static book an explorer shows the state it was saved in.

Introduced in chapter 3 (Softmax).
"""

from __future__ import annotations

import html

import numpy as np

from .attention import softmax

__all__ = ["weight_bars_html", "temperature_view", "temperature_explorer"]


def weight_bars_html(labels, weights, title: str = "") -> str:
    """HTML of one horizontal bar per label, as wide as its weight (0 to 1)."""
    labels = [str(x) for x in labels]
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (len(labels),):
        raise ValueError(f"need one weight per label: {len(labels)} labels but weights of shape {weights.shape}")
    rows = []
    for label, w in zip(labels, weights):
        rows.append(
            '<div style="display:flex;align-items:center;gap:6px;margin:2px 0">'
            f'<span style="width:7em;text-align:right">{html.escape(label)}</span>'
            f'<span style="display:inline-block;height:1em;width:{300 * w:.1f}px;background:#0072B2"></span>'
            f'<span style="font-family:monospace">{w:.3f}</span></div>'
        )
    head = f"<div><b>{html.escape(title)}</b></div>" if title else ""
    return f'<div class="tutorlib-bars">{head}{"".join(rows)}</div>'


def temperature_view(scores, labels, temperature: float) -> tuple[np.ndarray, str]:
    """The temperature explorer's logic: softmax weights at ``temperature`` and their bars as HTML."""
    weights = softmax(np.asarray(scores, dtype=float), temperature=temperature)
    return weights, weight_bars_html(labels, weights, title=f"softmax(scores / {temperature:g})")


def temperature_explorer(scores, labels, temperature: float = 1.0, minimum: float = 0.1, maximum: float = 5.0):
    """A slider for the softmax temperature over ``scores``, with the weights drawn as bars."""
    import ipywidgets as widgets

    slider = widgets.FloatSlider(
        value=temperature, min=minimum, max=maximum, step=0.1, description="temperature", continuous_update=True,
        style={"description_width": "initial"},
    )
    bars = widgets.HTML(value=temperature_view(scores, labels, temperature)[1])

    def redraw(change):
        bars.value = temperature_view(scores, labels, change["new"])[1]

    slider.observe(redraw, names="value")
    box = widgets.VBox([slider, bars])
    box.slider, box.bars = slider, bars  # handles for tests and for curious learners
    return box
