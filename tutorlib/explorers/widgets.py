"""The pieces every explorer is built from: its box, its live controls, its redrawn view.

An explorer's author declares the controls once, as
:class:`~tutorlib.explorers.controls.Spec` (``controls.py``), and writes the
pure view (state -> HTML). This module turns those into what a notebook shows:

- :func:`live_controls` builds the live ipywidgets controls of the specs, by name;
- :func:`following_view` is an HTML widget that draws the view again whenever a
  control moves (and shows a refused input's message instead of failing);
- :func:`explorer_box` puts controls and view in one box that also carries the
  static twin (:mod:`tutorlib.explorers.static`): the same view worked out for
  every state, which the published book shows.

The model explorers (chapters 10 and 13) share three more: :func:`sentence_spec`
(a text box live, a menu of sentences in the book), :func:`head_spec` (each head,
then their mean) and :func:`head_index` (a head checked as a Python index).

A minimal explorer, with its view ``page(temperature) -> str``::

    specs = [Spec("temperature", "slider", "temperature", (("0.5", 0.5), ("1", 1.0)), 1.0)]
    live = live_controls(specs)
    view = following_view(live.values(), lambda: page(live["temperature"].value))
    box = explorer_box([live["temperature"], view], specs, live, page, "temperature")

Introduced with the explorers of chapters 3 to 6 and 10; chapter 13's reuses them.
"""

from __future__ import annotations

import functools
import html

from ..checks import whole_number
from ..display import HIGHLIGHT_COLOUR
from .controls import Spec
from .static import explorer_html

__all__ = [
    "explorer_box",
    "live_controls",
    "following_view",
    "sentence_spec",
    "head_spec",
    "head_index",
]


@functools.cache
def _explorer_class():
    """A VBox whose display also offers its static twin's HTML (made on first use: ipywidgets loads
    lazily)."""
    import ipywidgets as widgets

    class Explorer(widgets.VBox):
        def _repr_mimebundle_(self, **kwargs):
            bundle = super()._repr_mimebundle_(**kwargs) or {}
            return {**bundle, "text/html": self.static_html}

    return Explorer


def live_controls(specs) -> dict:
    """The live ipywidgets controls of ``specs``, by name (:meth:`Spec.widget`)."""
    return {spec.name: spec.widget() for spec in specs}


def explorer_box(children, specs, live, view, name: str):
    """A VBox of ``children`` that also offers the HTML of its static twin.

    ``specs`` (:class:`Spec`) declare the explorer's controls once: ``live``
    are the ipywidgets built from them (by name, :func:`live_controls`), and
    the twin's :class:`tutorlib.explorers.static.Control` are built from them
    here. ``view`` (state -> HTML, the specs' names as keywords) draws the
    twin, under ``name`` (:func:`tutorlib.explorers.static.explorer_html`);
    the box keeps ``specs``, ``control_widgets``, ``static_controls`` and
    ``static_view`` (the tests recompute the book's states with them).
    Jupyter, Colab and Binder render the widget; the book, whose render
    priority puts ``text/html`` first, renders the twin.
    """
    box = _explorer_class()(children)
    box.specs, box.control_widgets = list(specs), dict(live)
    box.static_controls, box.static_view = [spec.control() for spec in specs], view
    box.static_html = explorer_html(box.static_controls, view, name)
    return box


def following_view(controls, draw):
    """An ipywidgets HTML showing ``draw()``, drawn again whenever one of ``controls`` moves; a
    ``ValueError`` of ``draw`` (input the view refuses) shows as its message instead."""
    import ipywidgets as widgets

    view = widgets.HTML()

    def redraw(_change=None):
        try:
            view.value = draw()
        except ValueError as error:
            view.value = (
                f'<div class="tutorlib-error" style="font-family:monospace;border-left:4px solid '
                f'{HIGHLIGHT_COLOUR};padding-left:6px">{html.escape(str(error))}</div>'
            )

    redraw()
    for control in controls:
        control.observe(redraw, names="value")
    return view


# --- the model explorers' controls (chapters 10 and 13) ------------------------------------------


def head_index(head, num_heads: int, unit: str):
    """``head`` checked as a Python index among ``num_heads`` (``None``: the heads' mean); ``unit``
    names what has the heads in the message ("layer", "block")."""
    if head is None:
        return None
    H = num_heads
    return whole_number(
        f"head (an index: each {unit} has {H} heads, 0 to {H - 1}; None for their mean)",
        head,
        0,
        H - 1,
    )


def sentence_spec(sentence: str, sentences) -> Spec:
    """The sentence control: a text box live, a menu of ``sentences`` (``sentence`` first, no
    repeats) in the static twin."""
    if isinstance(sentences, str):
        raise ValueError(
            f"sentences must be a list of sentences, got the single string {sentences!r}"
        )
    menu = list(dict.fromkeys([sentence, *sentences]))
    return Spec("sentence", "text", "English", tuple((s, s) for s in menu), sentence)


def head_spec(num_heads: int, head) -> Spec:
    """The head menu: each head by its number from 1, then their mean (the value -1)."""
    options = tuple((f"head {h + 1}", h) for h in range(num_heads))
    return Spec(
        "head", "menu", "head", options + (("mean of the heads", -1),), -1 if head is None else head
    )
