"""Each explorer's controls, declared once, and the registry of the explorers.

An explorer's control is written down once, as a :class:`Spec`: what it sets
(``name``, the view's keyword), how it looks (``kind``), its choices
(``options``, ``(label, value)`` pairs in order), where it starts (``value``)
and what it is called (``label``). From that one declaration :meth:`Spec.widget`
builds the live ipywidgets control and :meth:`Spec.control` the
:class:`tutorlib.explorers.static.Control` of the static twin, so the two
cannot offer different ranges, defaults or names.

``kind`` is a static kind (``"slider"``, ``"menu"``, ``"buttons"``,
``"checkbox"``) or ``"text"``: a free text box in a kernel, whose twin in the
book offers the ``options`` as a menu.

:data:`REGISTRY` maps each public explorer's name to its chapter and its
controls' names and kinds; :func:`explorer` fills it where each explorer is
defined. The course manifest lists explorers by name per chapter, and the
tests count them from there instead of searching chapter code.

Introduced with the explorers of chapters 3 to 6 and 10.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .static import KINDS as STATIC_KINDS
from .static import Control

__all__ = ["Spec", "Entry", "REGISTRY", "explorer"]

KINDS = (*STATIC_KINDS, "text")


@dataclass(frozen=True)
class Spec:
    """One control of an explorer, declared once for the live widget and the static twin."""

    name: str  # the keyword of the explorer's view that the control sets
    kind: str  # "slider", "menu", "buttons", "checkbox" or "text" (a menu in the twin)
    label: str  # shown beside the control, live and static
    options: tuple[tuple[str, object], ...]  # (label, value) pairs, in order
    value: object  # where it starts: one of the options' values

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(
                f"control {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}"
            )
        self.control()  # the twin's checks: options, a start among them, a checkbox's (off, on)

    def control(self) -> Control:
        """The static twin's control: the same name, label, options and start."""
        kind = "menu" if self.kind == "text" else self.kind
        return Control(self.name, self.label, tuple(self.options), self.value, kind)

    def widget(self):
        """The live ipywidgets control: the same choices, start and label.

        A slider over consecutive whole numbers is an ``IntSlider``, over
        evenly spaced floats a ``FloatSlider`` (with their step), otherwise a
        ``SelectionSlider`` of the options.
        """
        import ipywidgets as widgets

        values = [v for _, v in self.options]
        # options labelled by their own values go as values (the d_k slider shows 1, 2, ...)
        plain = all(label == str(v) for label, v in self.options)
        options = values if plain else list(self.options)
        common = {"value": self.value, "description": self.label}
        if self.kind == "slider":
            style = {"description_width": "initial"}
            slider = {**common, "continuous_update": True, "style": style}
            step = _even_step(values)
            if step is not None and all(isinstance(v, int) for v in values):
                return widgets.IntSlider(min=values[0], max=values[-1], step=step, **slider)
            if step is not None:
                return widgets.FloatSlider(min=values[0], max=values[-1], step=step, **slider)
            return widgets.SelectionSlider(options=options, **slider)
        if self.kind == "menu":
            return widgets.Dropdown(options=options, **common)
        if self.kind == "buttons":
            return widgets.ToggleButtons(options=options, **common)
        if self.kind == "checkbox":
            return widgets.Checkbox(**common)
        return widgets.Text(continuous_update=False, layout=widgets.Layout(width="28em"), **common)


def _even_step(values: list) -> float | int | None:
    """The step of evenly spaced numbers (whole numbers step 1, floats any step), or None."""
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        return None
    if all(isinstance(v, int) for v in values):
        return 1 if all(b - a == 1 for a, b in zip(values, values[1:])) else None
    if len(values) < 2:
        return None
    step = round(values[1] - values[0], 10)
    if step <= 0 or any(abs((b - a) - step) > 1e-9 for a, b in zip(values, values[1:])):
        return None
    return step


@dataclass(frozen=True)
class Entry:
    """What the registry knows of one explorer without building it."""

    name: str  # the public function, e.g. "temperature_explorer"
    chapter: str  # the chapter that shows it, e.g. "chapters/03_softmax"
    controls: tuple[tuple[str, str], ...]  # its controls' (name, kind), in order
    function: Callable


#: Every public explorer by name: its chapter and its controls (filled by :func:`explorer`).
REGISTRY: dict[str, Entry] = {}


def explorer(chapter: str, **controls: str):
    """Register the decorated explorer under its name, with its ``chapter`` and controls' kinds.

    ``@explorer("chapters/03_softmax", temperature="slider")``: the keywords
    name the controls in their order and give each one's kind; the explorer's
    specs must say the same (``tests/test_explorers.py`` checks).
    """
    for name, kind in controls.items():
        if kind not in KINDS:
            raise ValueError(f"control {name!r}: kind must be one of {KINDS}, got {kind!r}")

    def register(function):
        REGISTRY[function.__name__] = Entry(
            function.__name__, chapter, tuple(controls.items()), function
        )
        return function

    return register
