"""A chapter's own derivation and tutorlib's version agree on seeded inputs.

The cells tagged ``derivation`` in a chapter notebook are executed here, in a
fresh namespace, and the function they define is compared with the package
function the chapter hands over to ("this is now tutorlib.x.y").
"""

from pathlib import Path

import nbformat
import numpy as np
import pytest
from torch.testing import assert_close

from tutorlib.attention import scaled_dot_product_attention, softmax

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"


def derivations(notebook: str) -> dict:
    nb = nbformat.read(CHAPTERS / notebook, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and "derivation" in c.metadata.get("tags", [])]
    assert cells, f"{notebook} has no cell tagged 'derivation'"
    namespace: dict = {}
    for cell in cells:
        exec(compile(cell.source, f"{notebook}[derivation]", "exec"), namespace)
    return namespace


def test_chapter_3_softmax_agrees_with_tutorlib():
    stable_softmax = derivations("03_softmax.ipynb")["stable_softmax"]
    rng = np.random.default_rng(0)
    for shape in [(5,), (3, 4), (2, 3, 6)]:
        x = rng.standard_normal(shape) * 10
        for t in (0.5, 1.0, 3.0):
            assert_close(stable_softmax(x, temperature=t), softmax(x, temperature=t), rtol=1e-12, atol=1e-12)
    huge = np.array([[1e4, -1e4, 0.0]])
    assert_close(stable_softmax(huge), softmax(huge), rtol=0, atol=1e-12)


def test_chapter_4_attention_agrees_with_tutorlib():
    attention = derivations("04_scaled_dot_product_attention.ipynb")["attention"]
    rng = np.random.default_rng(0)
    for t_q, t_k, d_k, d_v in [(1, 5, 2, 2), (3, 3, 5, 3), (4, 7, 8, 2)]:
        q, k, v = rng.standard_normal((t_q, d_k)), rng.standard_normal((t_k, d_k)), rng.standard_normal((t_k, d_v))
        out, weights = attention(q, k, v)
        ref_out, ref_weights = scaled_dot_product_attention(q, k, v)
        assert_close(np.asarray(weights), ref_weights, rtol=1e-12, atol=1e-12)
        assert_close(np.asarray(out), ref_out, rtol=1e-12, atol=1e-12)
