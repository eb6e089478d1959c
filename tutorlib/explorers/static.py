"""The static twin of an explorer: every state worked out in advance, switched in the page.

Most readers meet an explorer in the published book, where no kernel runs to
answer a slider. So every explorer of :mod:`tutorlib.explorers` also carries a
twin that needs none: when the notebook runs, :func:`explorer_html` calls the
explorer's own pure view once for every combination of its controls and packs
the pages it returns into the output, next to the live widget. In Jupyter,
Colab and Binder the widget is shown; the book shows the twin (its render
priority puts ``text/html`` first), and ``assets/course.js`` swaps in the
stored page whenever a control moves. The numbers a reader sees in the book
are therefore exactly what the live explorer shows for the same state: both
come from the same view.

The pages are stored once each (many states share one), as JSON, gzip and
base64, which the browser unpacks with its built-in ``DecompressionStream``.
The controls start disabled: a page that runs no script (GitHub's notebook
preview, say) shows the starting state and controls that say they do not
move, instead of controls that move and change nothing. The HTML is also
well-formed XML (void elements closed, attributes with values), as the
EPUB's XHTML pages require. A line under them
says where the explorer moves (the online book, Colab, Binder); the book hides
it once the controls are live, and shows it again on paper (PDF, EPUB).

Keyboard and screen reader: every control is a native form control (Tab
reaches it, the arrow keys change it). The view itself is not a live region
(a screen reader would read the whole table at every step); a visually hidden
status line says briefly what changed: the control's new value and the view's
``data-summary`` (or its first title).

Introduced with the explorers of chapters 3 to 6 and 10.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Control", "explorer_html", "MAX_STATES"]

#: Under the controls of an explorer that cannot move here (no script: printed, EPUB, a notebook
#: preview).
OFFLINE_NOTE = (
    "Shown in its starting state. Move the controls in the online book, or run the notebook "
    "in Colab or Binder (the rocket button of the online book)."
)

#: More states than this is a sign the controls should be coarser (a page of megabytes).
MAX_STATES = 2000
KINDS = ("slider", "menu", "buttons", "checkbox")


@dataclass(frozen=True)
class Control:
    """One control of an explorer: what it sets, its choices, where it starts, how it looks.

    ``options`` are ``(label, value)`` pairs, in order; ``value`` must be one
    of the values. ``kind`` is ``"slider"`` (a range over the options, its
    label shown beside it), ``"menu"`` (a drop-down), ``"buttons"`` (one
    radio button per option) or ``"checkbox"`` (two options: off, then on).
    """

    name: str
    label: str
    options: tuple[tuple[str, object], ...]
    value: object
    kind: str = "menu"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(
                f"control {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}"
            )
        if not self.options:
            raise ValueError(f"control {self.name!r} has no options")
        if self.kind == "checkbox" and [v for _, v in self.options] != [False, True]:
            raise ValueError(
                f"checkbox {self.name!r} needs the options (off, False) then (on, True)"
            )
        if self.start < 0:
            values = [v for _, v in self.options]
            raise ValueError(
                f"control {self.name!r} starts at {self.value!r}, which is not one of its options "
                f"{values}"
            )

    @property
    def start(self) -> int:
        """The index of the starting value among the options (-1 when it is not there)."""
        return next((i for i, (_, v) in enumerate(self.options) if v == self.value), -1)


def _pack(pages: list[str]) -> str:
    """Pages as JSON, gzip (no timestamp, so the same pages give the same bytes) and base64."""
    raw = json.dumps(pages, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(packed: str) -> list[str]:
    """The pages of :func:`_pack` (what the page's script does, for tests)."""
    return json.loads(gzip.decompress(base64.b64decode(packed)))


_SELECTED, _CHECKED = ' selected="selected"', ' checked="checked"'  # XML-style, for the EPUB


def _control_html(c: Control, i: int, uid: str) -> str:
    esc = html.escape
    ident = f"{uid}-{i}"
    if c.kind == "slider":
        labels = json.dumps([label for label, _ in c.options], ensure_ascii=False)
        return (
            f'<label class="tutorlib-control" for="{ident}">{esc(c.label)} '
            f'<input type="range" id="{ident}" data-control="{i}" data-label="{esc(c.label)}" '
            f'min="0" max="{len(c.options) - 1}" '
            f'step="1" value="{c.start}" aria-valuetext="{esc(c.options[c.start][0])}" '
            f'data-labels="{esc(labels)}" disabled="disabled" /> '
            f'<output for="{ident}">{esc(c.options[c.start][0])}</output></label>'
        )
    if c.kind == "menu":
        opts = "".join(
            f'<option value="{j}"{_SELECTED if j == c.start else ""}>{esc(label)}</option>'
            for j, (label, _) in enumerate(c.options)
        )
        return (
            f'<label class="tutorlib-control" for="{ident}">{esc(c.label)} '
            f'<select id="{ident}" data-control="{i}" data-label="{esc(c.label)}" '
            f'disabled="disabled">{opts}</select></label>'
        )
    if c.kind == "buttons":
        radios = "".join(
            f'<label><input type="radio" name="{ident}" '
            f'value="{j}"{_CHECKED if j == c.start else ""} '
            'disabled="disabled" /> '
            f"{esc(label)}</label>"
            for j, (label, _) in enumerate(c.options)
        )
        return (
            f'<fieldset class="tutorlib-control" data-control="{i}" data-label="{esc(c.label)}">'
            f"<legend>{esc(c.label)}</legend>"
            f"{radios}</fieldset>"
        )
    return (
        f'<label class="tutorlib-control" for="{ident}"><input type="checkbox" id="{ident}" '
        f'data-control="{i}" data-label="{esc(c.label)}"'
        f'{_CHECKED if c.start == 1 else ""} disabled="disabled" /> {esc(c.label)}</label>'
    )


def explorer_html(
    controls: Sequence[Control], view: Callable[..., str], name: str = "explorer"
) -> str:
    """The static twin: the controls, the starting view, and every other view packed for the page's
    script.

    ``view(**state)`` returns the HTML the live explorer shows for a state,
    a dict mapping each control's ``name`` to one of its values; it is called
    once per combination of options. ``name`` is a label for the readers of
    the HTML source and for the tests.
    """
    controls = list(controls)
    sizes = [len(c.options) for c in controls]
    count = 1
    for n in sizes:
        count *= n
    if count > MAX_STATES:
        raise ValueError(
            f"{name}: {count} states ({' x '.join(map(str, sizes))}) is more than {MAX_STATES}; "
            "offer fewer options"
        )
    pages: list[str] = []
    seen: dict[str, int] = {}
    index = []
    for combo in itertools.product(*(range(n) for n in sizes)):  # the last control varies fastest
        state = {c.name: c.options[j][1] for c, j in zip(controls, combo)}
        page = view(**state)
        index.append(seen.setdefault(page, len(seen)))
        if index[-1] == len(pages):
            pages.append(page)
    start = 0
    for c, n in zip(controls, sizes):
        start = start * n + c.start
    packed = _pack(pages)
    uid = "tl" + hashlib.sha1(packed.encode()).hexdigest()[:10]
    data = json.dumps({"sizes": sizes, "index": index, "pages": packed}, separators=(",", ":"))
    form = "".join(_control_html(c, i, uid) for i, c in enumerate(controls))
    return (
        f'<div class="tutorlib-static-explorer" data-explorer="{html.escape(name)}" id="{uid}">'
        f'<form class="tutorlib-controls" onsubmit="return false">{form}</form>'
        f'<p class="tutorlib-offline-note">{OFFLINE_NOTE}</p>'
        f'<p class="tutorlib-announce" role="status" aria-live="polite" aria-atomic="true"></p>'
        f'<div class="tutorlib-view">{pages[index[start]]}</div>'
        f'<script type="application/json" class="tutorlib-states">{data}</script></div>'
    )
