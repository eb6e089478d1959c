"""tutorlib.display, tutorlib.explorers, tutorlib.experiments and tutorlib.examples."""

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorlib import display, examples, experiments, explorers
from tutorlib.attention import scaled_dot_product_attention, softmax


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- display -------------------------------------------------------------------


def test_matrix_html_has_labels_rounded_values_and_a_colour_scale():
    view = display.matrix(
        [[0.12345, 1.0], [-0.00001, 0.5]], ["sou", "feliz"], ["I", "am"], title="Q·Kᵀ", decimals=2
    )
    page = view._repr_html_()
    for text in ("sou", "feliz", "<th", "Q·Kᵀ", "0.12", "1.00", "0.50"):
        assert text in page
    assert "-0.00" not in page, "a rounded negative zero reads like a mistake"
    colours = re.findall(r"background:(#[0-9a-f]{6})", page)
    assert len(colours) == 4 and len(set(colours)) == 4, "each distinct value gets its own shade"


def test_matrix_without_shading():
    page = display.matrix([[1000.0, 0.8], [250.0, 0.2]], cmap=None)._repr_html_()
    assert set(re.findall(r"background:(#[0-9a-f]{6})", page)) == {"#ffffff"}


def test_matrix_text_and_row_sums():
    w = softmax(np.array([[1.0, 0.71], [1.0, -1.0]]))
    text = repr(display.matrix(w, ["a", "b"], ["x", "y"], decimals=2, row_sums=True))
    assert text.splitlines()[0].split() == ["x", "y", "Σ"]
    assert text.splitlines()[1].split() == ["a", "0.57", "0.43", "1.00"]
    assert text.splitlines()[2].split() == ["b", "0.88", "0.12", "1.00"]


def test_matrix_shows_minus_infinity():
    assert "-inf" in repr(display.matrix([[0.0, -np.inf]]))


def test_matrix_label_count_must_match():
    with pytest.raises(ValueError, match=r"row labels: the table has 2 rows but 3 labels"):
        display.matrix(np.zeros((2, 2)), ["a", "b", "c"], ["x", "y"])
    with pytest.raises(ValueError, match=r"2-D arrays, got shape \(2, 2, 2\)"):
        display.matrix(np.zeros((2, 2, 2)))


def test_attention_heatmap_draws_every_weight():
    w = softmax(np.arange(6.0).reshape(2, 3))
    ax = display.attention_heatmap(w, ["sou", "feliz"], ["I", "am", "happy"], title="weights")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["I", "am", "happy"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["sou", "feliz"]
    assert sorted(t.get_text() for t in ax.texts) == sorted(f"{x:.2f}" for x in w.ravel())
    np.testing.assert_allclose(ax.images[0].get_array(), w)


def test_attention_heatmap_rejects_a_batch():
    with pytest.raises(ValueError, match="pick one head"):
        display.attention_heatmap(np.zeros((2, 2, 2)), ["a", "b"], ["a", "b"])


def test_plot_word_vectors_places_every_word():
    ax = display.plot_word_vectors(
        {
            "English": examples.SPREADSHEET["english"],
            "Portuguese": examples.SPREADSHEET["portuguese"],
        },
        moved={"sou": (1.2, 0.85)},
    )
    labels = {t.get_text() for t in ax.texts}
    assert {"I", "am", "happy", "sou", "feliz", "sou (after)"} <= labels
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["English", "Portuguese"]
    with pytest.raises(ValueError, match="2-D vectors"):
        display.plot_word_vectors({"x": {"w": (1, 2, 3)}})
    with pytest.raises(ValueError, match="in none of the groups"):
        display.plot_word_vectors({"x": {"w": (1, 2)}}, moved={"v": (0, 0)})


# --- explorers -------------------------------------------------------------------


def test_temperature_view_is_softmax_at_that_temperature():
    weights, page = explorers.temperature_view([2.0, 1.0, 0.1], ["cat", "dog", "car"], 0.5)
    np.testing.assert_allclose(weights, softmax([2.0, 1.0, 0.1], temperature=0.5))
    assert page.count("tutorlib-bars") == 1 and "cat" in page and f"{weights[0]:.3f}" in page
    with pytest.raises(ValueError, match="temperature"):
        explorers.temperature_view([1.0], ["x"], 0.0)
    with pytest.raises(ValueError, match="2 labels but weights of shape"):
        display.weight_bars_html(["a", "b"], [1.0])


def test_temperature_explorer_redraws_when_the_slider_moves():
    box = explorers.temperature_explorer([2.0, 1.0, 0.1], ["cat", "dog", "car"])
    before = box.bars.value
    box.slider.value = 3.0
    assert box.bars.value != before
    assert (
        box.bars.value == explorers.temperature_view([2.0, 1.0, 0.1], ["cat", "dog", "car"], 3.0)[1]
    )


# --- experiments -----------------------------------------------------------------


def test_softmax_jacobian_matches_finite_differences():
    x = np.array([0.3, -1.2, 2.0, 0.5])
    eps = 1e-6
    numeric = np.stack(
        [(softmax(x + eps * e) - softmax(x - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1
    )
    np.testing.assert_allclose(experiments.softmax_jacobian(softmax(x)), numeric, atol=1e-8)


def test_scaling_experiment_shows_what_the_chapter_claims():
    r = experiments.scaling_experiment(d_values=(4, 64, 512), n_trials=1500, seed=0)
    # variance of raw dot products grows like d_k; scaled stays near 1
    np.testing.assert_allclose(r["var_raw"] / r["d_k"], 1.0, rtol=0.15)
    np.testing.assert_allclose(r["var_scaled"], 1.0, rtol=0.15)
    # raw softmax saturates and its gradient vanishes; scaled does neither
    assert r["max_weight_raw"][-1] > 0.9 and r["max_weight_scaled"][-1] < 0.5
    assert r["jacobian_raw"][-1] < 0.3 * r["jacobian_scaled"][-1]
    assert np.ptp(r["jacobian_scaled"]) < 0.05
    with pytest.raises(ValueError, match="widths of at least 1"):
        experiments.scaling_experiment(d_values=(0, 4))


# --- examples: the seeds' worked numbers ------------------------------------------


def test_seed_dot_products():
    (a, b), (c, d) = examples.DOT_PRODUCT_PAIRS
    assert np.dot(a, b) == 12 and np.dot(c, d) == 3


def test_spreadsheet_example_reproduces_the_video_percentages():
    """'sou' takes ~30 % from I and ~64 % from am; 'feliz' ~70 % from happy."""
    keys = np.array(list(examples.SPREADSHEET["english"].values()))
    queries = np.array(list(examples.SPREADSHEET["portuguese"].values()))
    _, w = scaled_dot_product_attention(queries, keys, keys)
    np.testing.assert_allclose(w[0], [0.30, 0.64, 0.06], atol=0.01)
    np.testing.assert_allclose(w[1, 2], 0.70, atol=0.015)


def test_coins_sums():
    c = examples.COINS
    relevance = {name: l["saved"] / c["needs"] for name, l in c["lenders"].items()}
    assert relevance == {"B": 2.0, "C": 0.5}
    total = sum(relevance.values())
    loan = sum(relevance[n] / total * l["lends"] for n, l in c["lenders"].items())
    assert c["has"] + c["lenders"]["B"]["lends"] == 516
    assert round(c["has"] + loan, 9) == 526


def test_this_is_book_is_diagonal_heavy_as_the_chapter_says():
    ex = examples.THIS_IS_BOOK
    q, k = ex["x"] @ ex["w_q"], ex["x"] @ ex["w_k"]
    scores = q @ k.T
    assert (np.argmax(scores, axis=1) == np.arange(3)).all()
    assert scores[0, 2] > scores[0, 1], "'This' must score 'book' above 'is'"


def test_your_cat_slide_mask_is_the_incomplete_one_the_seeds_readme_describes():
    from tutorlib.attention import causal_mask

    y = examples.YOUR_CAT
    np.testing.assert_allclose(
        y["weights"].sum(axis=1), 1.0, atol=2e-3
    )  # the slide's rows, rounded to 3 places
    should_hide = {(i, j) for i, j in zip(*np.nonzero(~causal_mask(6)))}
    slide = set(y["slide_hidden"])
    assert slide < should_hide, "the slide hides a subset of what a causal mask hides"
    rows_right = [
        i
        for i in range(6)
        if {j for r, j in should_hide if r == i} == {j for r, j in slide if r == i}
    ]
    assert rows_right == [4, 5], (
        "two rows are right on the slide: LOVELY and the last, which hides nothing"
    )


# --- Progress ----------------------------------------------------------------------


@pytest.mark.parametrize("total, initial", [(1000, 0), (7, 2), (30, 30), (1, 0)])
def test_progress_redraws_per_share_of_the_steps_whatever_the_clock(monkeypatch, total, initial):
    """The number of redraws depends on the steps alone: the same with a clock that jumps an hour
    per call (a very slow machine) as with none; and the last state is always drawn."""
    import itertools

    import tutorlib.display as shown

    ticks = itertools.count(step=3600.0)
    monkeypatch.setattr("time.perf_counter", lambda: next(ticks))
    lines = []
    monkeypatch.setattr(shown, "_in_notebook", lambda: False)
    bar = shown.Progress(total, initial=initial, redraws=25)
    monkeypatch.setattr(bar, "_draw", lambda: (lines.append(bar.n), None)[1])
    for _ in range(total - initial):
        bar.update(loss="1.000")
    bar.close()
    assert len(lines) <= 25 + 1
    if total > initial:
        assert lines[-1] == total  # the finished state is shown
    assert lines == sorted(set(lines))  # never the same state twice


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(total=0), "total must be at least 1, got 0"),
        (dict(total=5, initial=6), "initial must be from 0 to 5, got 6"),
        (dict(total=5, redraws=0), "redraws must be at least 1, got 0"),
        (dict(total=2.5), "total must be a whole number, got 2.5"),
    ],
)
def test_progress_refuses_impossible_counts(kwargs, words):
    with pytest.raises(ValueError, match=words):
        display.Progress(**kwargs, disable=True)


def test_a_colour_follows_the_printed_number():
    """Two tables whose numbers differ only below the printed places are the same HTML: another
    CPU's last bits of a weight moved a colour across a step of the map, and a stored chapter
    output with it (chapter 10's explorer on an Intel Xeon against an AMD EPYC)."""
    w = np.array([[0.0401, 0.9599], [0.5, 0.5]])
    nudged = w + np.array([[0.0038, -0.0038], [0.0, 0.0]])  # 0.0439 still prints 0.04
    rows, cols = ["a", "b"], ["c", "d"]
    assert display.weights_heatmap_html(w, rows, cols) == (
        display.weights_heatmap_html(nudged, rows, cols)
    )
    m, n = display.matrix(w), display.matrix(nudged, decimals=2)
    assert display.matrix(w, decimals=2)._repr_html_() == n._repr_html_()
    assert m._repr_html_() != display.matrix(w + 0.02)._repr_html_()  # a printed change shows
