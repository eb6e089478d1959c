"""tutorlib.static: an explorer's static twin holds every state of its controls, and says which is
which."""

import html
import json
import re

import pytest

from tutorlib.explorers import static
from tutorlib.explorers.static import Control


def _twin_data(page: str) -> dict:
    data = json.loads(
        re.search(
            r'<script type="application/json" class="tutorlib-states">(.*?)</script>', page
        ).group(1)
    )
    data["pages"] = static.unpack(data["pages"])
    return data


def _lookup(data: dict, indices: list[int]) -> str:
    """What assets/course.js does: mixed-radix key of the option indices, the last control
    fastest."""
    key = 0
    for size, i in zip(data["sizes"], indices):
        key = key * size + i
    return data["pages"][data["index"][key]]


def test_every_state_maps_to_its_own_view():
    controls = [
        Control("a", "a", (("one", 1), ("two", 2), ("three", 3)), 2, "slider"),
        Control("b", "b", (("x", "x"), ("y", "y")), "y", "buttons"),
        Control("c", "c", (("off", False), ("on", True)), False, "checkbox"),
    ]
    page = static.explorer_html(controls, lambda a, b, c: f"<p>{a}-{b}-{c}</p>", "demo")
    data = _twin_data(page)
    assert data["sizes"] == [3, 2, 2] and len(data["index"]) == 12 and len(data["pages"]) == 12
    for i, a in enumerate((1, 2, 3)):
        for j, b in enumerate("xy"):
            for k, c in enumerate((False, True)):
                assert _lookup(data, [i, j, k]) == f"<p>{a}-{b}-{c}</p>"
    # the starting view is shown before any script runs, and the controls start at their values
    assert '<div class="tutorlib-view"><p>2-y-False</p></div>' in page
    # a brief status line announces changes, not the whole view; paper says where it moves
    assert (
        '<p class="tutorlib-announce" role="status" aria-live="polite" aria-atomic="true"></p>'
        in page
    )
    assert "aria-live" not in page.split('class="tutorlib-view"')[1]
    assert static.OFFLINE_NOTE in page and 'aria-valuetext="two"' in page
    assert 'value="1"' in page and "<output" in page and ">two</output>" in page


def test_states_that_look_the_same_are_stored_once_and_packing_is_deterministic():
    controls = [Control("n", "n", tuple((str(i), i) for i in range(10)), 0, "menu")]
    page = static.explorer_html(controls, lambda n: "<b>even</b>" if n % 2 == 0 else "<b>odd</b>")
    data = _twin_data(page)
    assert data["pages"] == ["<b>even</b>", "<b>odd</b>"] and data["index"] == [0, 1] * 5
    assert page == static.explorer_html(
        controls, lambda n: "<b>even</b>" if n % 2 == 0 else "<b>odd</b>"
    )


def test_controls_start_disabled_and_are_labelled():
    controls = [Control("q", "query ↓", (("a <b>", 0), ("c", 1)), 0, "menu")]
    page = static.explorer_html(controls, lambda q: str(q))
    assert page.count(" disabled") == 1, (
        "a page without the book's script must not offer dead controls"
    )
    assert html.escape("a <b>") in page and "query ↓" in page


def test_bad_controls_are_refused_with_what_was_expected():
    with pytest.raises(ValueError, match=r"starts at 5, which is not one of its options \[1, 2\]"):
        Control("a", "a", (("1", 1), ("2", 2)), 5)
    with pytest.raises(ValueError, match="kind must be one of"):
        Control("a", "a", (("1", 1),), 1, "knob")
    with pytest.raises(ValueError, match=r"needs the options \(off, False\) then \(on, True\)"):
        Control("a", "a", (("on", True), ("off", False)), True, "checkbox")
    with pytest.raises(ValueError, match="has no options"):
        Control("a", "a", (), None)
    many = [Control(n, n, tuple((str(i), i) for i in range(50)), 0) for n in "ab"]
    with pytest.raises(ValueError, match="2500 states .* more than 2000"):
        static.explorer_html(many, lambda a, b: "")


def test_each_explorer_offers_its_twin_next_to_the_widget():
    from tutorlib import explorers

    box = explorers.temperature_explorer([2.0, 1.0, 0.1], ["cat", "dog", "car"], temperature=1.0)
    bundle = box._repr_mimebundle_()
    assert (
        "application/vnd.jupyter.widget-view+json" in bundle
        and bundle["text/html"] == box.static_html
    )
    data = _twin_data(box.static_html)
    steps = explorers.temperature_steps()
    assert data["sizes"] == [len(steps)] and len(steps) == 50
    for i in (0, 9, 49):
        assert (
            _lookup(data, [i])
            == explorers.temperature_view([2.0, 1.0, 0.1], ["cat", "dog", "car"], steps[i])[1]
        )
    with pytest.raises(ValueError, match="not one of them"):
        explorers.temperature_explorer([1.0, 2.0], ["a", "b"], temperature=1.05)


def test_the_twin_is_well_formed_xml_for_the_epub():
    # The EPUB's pages are XHTML: a bare `disabled` or an unclosed <input> breaks the whole page
    # there.
    import xml.etree.ElementTree as ET

    controls = [
        Control("a", "a", (("one", 1), ("two", 2)), 2, "slider"),
        Control("m", "m", (("x", "x"), ("y", "y")), "y", "menu"),
        Control("b", "b", (("x", "x"), ("y", "y")), "y", "buttons"),
        Control("c", "c", (("off", False), ("on", True)), True, "checkbox"),
    ]
    ET.fromstring(
        static.explorer_html(controls, lambda a, m, b, c: f"<p>{a}{m}{b}{c}<br/></p>", "demo")
    )


@pytest.mark.slow  # runs the shipped GPT for every state of chapter 13's explorer (about 6 s)
def test_the_gpt_attention_twin_holds_every_state_of_chapter_13s_explorer():
    """Chapter 13's twin: every (sentence, view, block, head) the book's menus offer, each the
    page gpt_attention_view draws for it, and well-formed XML for the EPUB."""
    import xml.etree.ElementTree as ET

    from tutorlib import explorers
    from tutorlib.translation.gpt.checkpoints import load_pretrained

    model = load_pretrained("words", device="cpu")
    box = explorers.gpt_attention_explorer(
        model, "the red car", block=1, sentences=["she is tired", "the red car"]
    )
    data = _twin_data(box.static_html)
    assert data["sizes"] == [2, 2, 6, 5]  # sentences, views, blocks, heads (4 and their mean)
    view = explorers.gpt_attention_view
    for indices, args in [
        ([0, 0, 1, 4], ("the red car", "cross", 1, None)),
        ([1, 1, 5, 0], ("she is tired", "sequence", 5, 0)),
        ([1, 0, 0, 3], ("she is tired", "cross", 0, 3)),
    ]:
        assert _lookup(data, indices) == view(model, *args)[2], args
    # the page starts where the explorer starts, and its HTML parses as XML
    start = re.search(r'<div class="tutorlib-view">(.*)</div><script', box.static_html, re.S)
    assert start.group(1) == view(model, "the red car", "cross", 1, None)[2]
    ET.fromstring(box.static_html)
