"""tutorlib.bughunt, exercise 12's graded bug hunt: the documented rule, the grader's copy of it,
and that every component it hands out is broken where the hidden tests look."""

import hashlib
import json
import math
import re
from pathlib import Path

import pytest
import torch

from tutorlib import bughunt

ROOT = Path(__file__).resolve().parent.parent
IDS = [f"s{1000 + i}" for i in range(300)]


def reference(q, k, v, lengths, causal):
    keep = torch.arange(k.shape[1])[None, :] < lengths[:, None]
    mask = keep[:, None, :]
    if causal:
        mask = mask & torch.ones(q.shape[1], k.shape[1], dtype=torch.bool).tril()[None]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


# the hidden tests' four settings (exercises/masters/ex12_debugging.ipynb): B, T_q, T_k, d, lengths,
# causal
SETTINGS = {
    "padding": (3, 7, 7, 8, [7, 3, 5], False),
    "causal": (2, 6, 6, 8, [6, 4], True),
    "cross": (2, 3, 5, 8, [5, 2], False),
    "scale": (2, 5, 5, 64, [5, 5], False),
}
# and the batch of causal self-attention with padding that each of them also checks
ALSO = {
    "padding": (4, 5, 5, 8, [5, 2, 4, 3], True),
    "causal": (3, 7, 7, 16, [3, 7, 5], True),
    "cross": (2, 8, 8, 8, [8, 5], True),
    "scale": (2, 6, 6, 64, [4, 6], True),
}


def is_right(attention, setting, settings=SETTINGS) -> bool:
    B, T_q, T_k, d, lengths, causal = settings[setting]
    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(B, T, d, generator=g) for T in (T_q, T_k, T_k))
    lengths = torch.tensor(lengths)
    try:
        out, w = attention(q, k, v, lengths, causal=causal)
    except RuntimeError:
        return False
    want_out, want_w = reference(q, k, v, lengths, causal)
    return (
        w.shape == want_w.shape
        and torch.allclose(w, want_w, atol=1e-5)
        and torch.allclose(out, want_out, atol=1e-4)
    )


def one_id_per_bug() -> dict:
    found = {}
    for lid in IDS:
        found.setdefault(bughunt._rule(lid), lid)
    return found


def test_the_rule_is_the_documented_one_and_the_graders():
    """The docstring's rule, and the hidden tests' copy of it (names in the same order)."""
    for lid in IDS[:50] + ["  s1002 ", "Ada Lovelace", "é"]:
        h = int(hashlib.sha256(lid.strip().encode("utf-8")).hexdigest(), 16)
        assert bughunt._rule(lid) == bughunt.BUGS[h % len(bughunt.BUGS)]
    master = json.loads((ROOT / "exercises" / "masters" / "ex12_debugging.ipynb").read_text())
    tests = "\n".join(
        "".join(c["source"]) for c in master["cells"] if "def test_q1_bug" in "".join(c["source"])
    )
    names = re.search(r"names = (\(.*?\))", tests).group(1)
    assert eval(names) == bughunt.BUGS, (
        "the hidden test's list of bugs must be bughunt.BUGS, in order"
    )
    assert set(bughunt.BUG_DESCRIPTIONS) == set(bughunt.BUGS) and len(bughunt.BUGS) >= 5


def test_every_bug_is_planted_for_some_id():
    assert set(one_id_per_bug()) == set(bughunt.BUGS)


def test_every_component_is_broken_where_the_hidden_tests_look():
    """No component is right on all four settings (none can be handed in as a fix), and none is
    right on causal self-attention with padding (no mix of components passes every hidden test)."""
    for bug, lid in one_id_per_bug().items():
        attention = bughunt.broken_component(lid).attention
        assert not is_right(attention, "causal"), bug
        assert not all(is_right(attention, s) for s in SETTINGS), bug


def test_the_hidden_tests_check_these_settings():
    """The copies above are the master's: each hidden test of question 2 checks its own setting and
    one batch of causal self-attention with padding."""
    master = json.loads((ROOT / "exercises" / "masters" / "ex12_debugging.ipynb").read_text())
    calls = {}
    for cell in master["cells"]:
        source = "".join(cell["source"])
        found = re.search(r"def test_q2_(\w+)\(", source)
        if found and "hidden: true" in source:
            calls[found.group(1)] = [
                (int(a), int(b), int(c), int(d), eval(lengths), causal == "True")
                for a, b, _, _, c, d, lengths, causal in re.findall(
                    r'\n    check\("[^"]*", \d+, \((\d+), (\d+), (\d+)\), \((\d+), (\d+), (\d+)\), '
                    r"(\[[^\]]*\]), (True|False)\)",
                    source,
                )
            ]
    assert calls == {name: [SETTINGS[name], ALSO[name]] for name in SETTINGS}, calls


def test_a_component_with_any_bug_fails_every_hidden_test():
    """Every component is wrong on the causal batch with padding that each hidden test also checks:
    handed in as a fix, it scores none of question 2's hidden points."""
    for bug, lid in one_id_per_bug().items():
        attention = bughunt.broken_component(lid).attention
        failed = [name for name in ALSO if not is_right(attention, name, ALSO)]
        assert failed == list(ALSO), f"{bug}: right on the extra batch of {set(ALSO) - set(failed)}"


# each bug's one-line fix (planted line, repaired line): kept here, in the tests, because
# tutorlib.bughunt hands out only broken components (issue 32, fault 10)
FIXES = {
    "mask_polarity": ('masked_fill(mask, float("-inf"))', 'masked_fill(~mask, float("-inf"))'),
    "padding_axis": ("mask = keep[:, :, None]", "mask = keep[:, None, :]"),
    "softmax_axis": ("torch.softmax(scores, dim=1)", "torch.softmax(scores, dim=-1)"),
    "missing_scale": (
        "scores = q @ k.transpose(-2, -1)\n",
        "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)\n",
    ),
    "target_leak": (".tril(1)", ".tril()"),
    "causal_transposed": (".triu()", ".tril()"),
}


def test_the_component_repaired_is_right():
    """Undo the planted line and the component passes all four settings (the pool's one-line
    fixes)."""
    for bug, lid in one_id_per_bug().items():
        planted, fixed = FIXES[bug]
        source = bughunt.broken_component(lid).source
        assert source.count(planted) == 1, bug
        source = source.replace(planted, fixed)
        namespace = {"torch": torch, "math": math}
        exec(source, namespace)
        assert all(is_right(namespace["attention"], s) for s in SETTINGS), bug
        assert all(is_right(namespace["attention"], s, ALSO) for s in ALSO), bug


def test_same_id_same_component_and_lines_fit_the_book():
    a, b = bughunt.broken_component("s1002"), bughunt.broken_component(" s1002 ")
    assert a.source == b.source and str(a) == a.source
    assert all(len(line) <= 88 for line in a.source.splitlines())


@pytest.mark.parametrize("bad", ["", "   ", None, 1234, ...])
def test_an_empty_or_missing_id_is_refused_clearly(bad):
    with pytest.raises(ValueError, match="learner_id must be a non-empty string"):
        bughunt.broken_component(bad)


def test_the_module_holds_no_right_attention():
    """Issue 32, fault 10: bughunt kept the right lines (_RIGHT) beside a template, and
    _TEMPLATE.format(**_RIGHT) rebuilt the right attention (8/8 on exercise 12). Every source it
    holds, in any module-level string, dict or tuple, is a broken component."""
    assert not hasattr(bughunt, "_RIGHT") and not hasattr(bughunt, "_TEMPLATE")

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from strings(v)
        elif isinstance(value, (tuple, list)):
            for v in value:
                yield from strings(v)

    sources = [s for v in vars(bughunt).values() for s in strings(v) if "def attention" in s]
    assert len(sources) == len(bughunt.BUGS)
    for source in sources:
        namespace = {"torch": torch, "math": math}
        exec(compile(source, "<bughunt source>", "exec"), namespace)
        assert not is_right(namespace["attention"], "padding", ALSO)
