"""Attention that never holds the whole score matrix: the code of chapter 11.

Read it top to bottom: the online softmax (a running maximum and a running
sum, merged block by block), then tiled, FlashAttention-style attention built
on it, then the peak-memory measurement that compares it with the naive
``tutorlib.attention.scaled_dot_product_attention``.

Shape letters (the book's notation page): ``T_q`` queries, ``T_k`` keys,
``d_k`` query/key width, ``d_v`` value width; ``...`` is any number of
leading batch dimensions. Everything here is NumPy, so that ``tracemalloc``
can see every array it allocates (see ``peak_memory``).
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np

from .attention import _as_float_array, causal_mask, scaled_dot_product_attention, softmax

# One way of writing shapes and checking sizes in every error message of tutorlib.
from .checks import attention_shapes, whole_number
from .checks import shape_str as _shape

__all__ = [
    "softmax_state",
    "merge_softmax_states",
    "online_softmax",
    "tiled_attention",
    "peak_memory",
    "attention_memory",
]


# --- online softmax -------------------------------------------------------------------


def _checked_scores(x, name: str = "x") -> np.ndarray:
    """``x`` as a float array that softmax accepts along its last axis; otherwise softmax's own
    error."""
    x = _as_float_array(x, name)
    fine = x.ndim >= 1 and x.shape[-1] > 0 and not np.isnan(x).any() and not np.isposinf(x).any()
    if fine and np.isneginf(x).all(axis=-1).any():
        fine = False
    if not fine:
        softmax(
            x, axis=-1
        )  # raises the error of chapter 3, which names the problem and where it is
    return x


def softmax_state(x) -> tuple[np.ndarray, np.ndarray]:
    r"""The softmax *state* of a block of scores along the last axis: ``(m, l)``.

    .. math:: m = \max_j x_j, \qquad \ell = \sum_j e^{x_j - m}

    ``m`` and ``l`` have the shape of ``x`` without its last axis. Together
    they are everything softmax needs to know about the block: the softmax
    of the block is ``exp(x - m) / l`` and its log-sum-exp is ``m + log(l)``.
    A block whose entries are all ``-inf`` (all masked) has the state
    ``(-inf, 0)``, which ``merge_softmax_states`` treats as "nothing seen yet".

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    x = _as_float_array(x, "x")
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(
            f"softmax_state needs a non-empty last axis to summarise, got shape {_shape(x.shape)}"
        )
    if np.isnan(x).any() or np.isposinf(x).any():
        softmax(x, axis=-1)  # raises chapter 3's error for NaN or +inf
    m = x.max(axis=-1)
    shift = np.where(
        np.isneginf(m), 0.0, m
    )  # an all -inf block: exp(-inf - 0) = 0, not exp(-inf + inf) = NaN
    return m, np.exp(x - shift[..., None]).sum(axis=-1)


def merge_softmax_states(a, b) -> tuple[np.ndarray, np.ndarray]:
    r"""Merge the states ``(m_a, l_a)`` and ``(m_b, l_b)`` of two blocks into the state of both.

    .. math:: m = \max(m_a, m_b), \qquad \ell = \ell_a e^{m_a - m} + \ell_b e^{m_b - m}

    Each sum was taken relative to its own block's maximum; multiplying by
    :math:`e^{m_a - m} \le 1` re-expresses it relative to the common maximum,
    so no exponent is ever positive and nothing overflows. The merge is
    associative and commutative, and ``(-inf, 0)`` is its neutral element,
    so blocks can be merged in any grouping: that is what lets a long row be
    processed block by block, or split across processors.

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    (m_a, l_a), (m_b, l_b) = a, b
    m = np.maximum(m_a, m_b)
    shift = np.where(np.isneginf(m), 0.0, m)  # both blocks empty: keep (-inf, 0) instead of NaN
    return m, l_a * np.exp(m_a - shift) + l_b * np.exp(m_b - shift)


def online_softmax(x, block_size: int) -> np.ndarray:
    r"""Softmax along the last axis, reading the scores ``block_size`` at a time.

    The first pass keeps a running maximum ``m`` and a running sum ``l``
    (``merge_softmax_states`` with each new block's ``softmax_state``),
    so it never needs the whole row at once; the second pass writes
    :math:`e^{x_j - m} / \ell`. The result equals
    ``tutorlib.attention.softmax(x, axis=-1)``. In attention even the second
    pass disappears (``tiled_attention``).

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    block_size = whole_number("block_size", block_size, 1)
    x = _checked_scores(x)
    n = x.shape[-1]
    state = (
        np.full(x.shape[:-1], -np.inf, dtype=x.dtype),
        np.zeros(x.shape[:-1], dtype=x.dtype),
    )  # nothing seen yet
    for start in range(0, n, block_size):
        state = merge_softmax_states(state, softmax_state(x[..., start : start + block_size]))
    m, l = state
    return np.exp(x - m[..., None]) / l[..., None]


# --- tiled attention ------------------------------------------------------------------------


def _checked_qkv(q, k, v):
    """q, k, v as float arrays and their broadcast batch shape.

    Bad shapes raise the errors of ``scaled_dot_product_attention`` (chapter 4):
    both check them with ``tutorlib.checks.attention_shapes``.
    """
    q, k, v = _as_float_array(q, "q"), _as_float_array(k, "k"), _as_float_array(v, "v")
    return q, k, v, attention_shapes(q, k, v)


def _block_sizes(block_size) -> tuple[int, int]:
    if isinstance(block_size, (tuple, list)):
        if len(block_size) != 2:
            raise ValueError(
                "block_size must be one whole number or a pair (block_q, block_k), got "
                f"{block_size!r}"
            )
        return whole_number("block_q", block_size[0], 1), whole_number("block_k", block_size[1], 1)
    size = whole_number("block_size", block_size, 1)
    return size, size


def tiled_attention(q, k, v, block_size=64, causal: bool = False) -> np.ndarray:
    r"""Scaled dot-product attention computed tile by tile, FlashAttention-style; returns the
    output.

    .. math::

        \operatorname{Attention}(Q, K, V)
        = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    Shapes::

        q           (..., T_q, d_k)
        k           (..., T_k, d_k)
        v           (..., T_k, d_v)
        block_size  int, or a pair (block_q, block_k)
        returns     (..., T_q, d_v)

    The queries are cut into blocks of ``block_q`` rows and the keys and
    values into blocks of ``block_k``. For one query block the key blocks are
    visited in order, and three running quantities are kept per query row:
    the maximum score so far ``m``, the softmax denominator so far ``l``
    (both as in ``merge_softmax_states``) and the un-normalised output so far
    ``acc``. A new tile of scores ``S`` (``(..., block_q, block_k)``) updates
    them as

    .. math::
        m' = \max(m, \max_j S_j),\quad
        \ell' = e^{m - m'}\ell + \textstyle\sum_j e^{S_j - m'},\quad
        acc' = e^{m - m'} acc + e^{S - m'} V_\text{block}

    and after the last tile the output is ``acc / l``. Only one tile of
    scores exists at a time, so the memory beyond the inputs and output is
    ``O(block_q * block_k)`` instead of ``O(T_q * T_k)``; the full weight
    matrix is never formed (and so, unlike ``scaled_dot_product_attention``,
    it is not returned).

    ``causal=True`` lets query ``i`` see keys ``0..i`` only, the mask
    ``tril(ones(T_q, T_k))`` (``causal_mask(T)`` when ``T_q == T_k``, and the
    convention of ``F.scaled_dot_product_attention(is_causal=True)``
    otherwise). Tiles entirely above the diagonal are skipped, which halves
    the work. The leading ``...`` of ``q``, ``k`` and ``v`` broadcast.

    The result equals ``scaled_dot_product_attention(q, k, v, mask)[0]`` to
    rounding error (about 1e-15 in float64).

    The default tiles of 64 x 64 keep each tile's matrix products small
    enough (``64 * 64 * d_k`` multiply-adds for ``d_k <= 64``) that NumPy's
    BLAS runs them on one thread: for many small products, starting threads
    costs more than it gains, and on a busy machine much more.

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    q, k, v, batch = _checked_qkv(q, k, v)
    block_q, block_k = _block_sizes(block_size)
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(
            f"causal must be True or False, got {causal!r}; for another mask use "
            "scaled_dot_product_attention"
        )
    T_q, T_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    dtype = np.result_type(q, k, v)
    scale = 1.0 / math.sqrt(q.shape[-1])
    out = np.empty(batch + (T_q, d_v), dtype=dtype)
    for i0 in range(0, T_q, block_q):
        i1 = min(i0 + block_q, T_q)
        q_blk = q[..., i0:i1, :] * scale  # (..., block_q, d_k), already divided by sqrt(d_k)
        m = np.full(batch + (i1 - i0, 1), -np.inf, dtype=dtype)  # running maximum of each row
        l = np.zeros(batch + (i1 - i0, 1), dtype=dtype)  # running softmax denominator
        acc = np.zeros(batch + (i1 - i0, d_v), dtype=dtype)  # running sum of exp(s - m) * value
        # causal: the keys after this block's last query are hidden from all its rows, so stop there
        k_end = min(T_k, i1) if causal else T_k
        for j0 in range(0, k_end, block_k):
            j1 = min(j0 + block_k, k_end)
            # (..., block_q, d_k) @ (..., d_k, block_k) -> (..., block_q, block_k)
            s = q_blk @ np.swapaxes(k[..., j0:j1, :], -1, -2)
            if (
                causal and j1 - 1 > i0
            ):  # the tile crosses the diagonal: hide key j from query i when j > i
                # (block_k,) vs (block_q, 1) -> (block_q, block_k)
                visible = np.arange(j0, j1) <= np.arange(i0, i1)[:, None]
                s = np.where(visible, s, -np.inf)
            # Every row sees key 0 in the first tile, so m_new is finite and no exp(-inf + inf)
            # occurs.
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            rescale = np.exp(
                m - m_new
            )  # (..., block_q, 1): old sums were relative to the old maximum
            p = np.exp(s - m_new)  # (..., block_q, block_k), un-normalised weights of this tile
            l = rescale * l + p.sum(axis=-1, keepdims=True)
            # (..., block_q, block_k) @ (..., block_k, d_v) -> (..., block_q, d_v)
            acc = rescale * acc + p @ v[..., j0:j1, :]
            m = m_new
        out[..., i0:i1, :] = acc / l
    return out


# --- measuring memory ---------------------------------------------------------------------


def peak_memory(fn, *args, **kwargs) -> int:
    """Bytes allocated at the peak while ``fn(*args, **kwargs)`` runs, above what was allocated
    before.

    Measured with ``tracemalloc``, which counts every allocation of Python's
    memory allocators and, since NumPy 1.13, every NumPy array buffer (NumPy
    reports them to it). The count is of bytes requested, so it is the same on
    every machine and every run, up to a few kilobytes of Python objects; it
    does not depend on the operating system's view of the process (RSS), which
    moves in pages and keeps freed memory. PyTorch's CPU tensors are *not*
    counted (its allocator does not report to tracemalloc), which is why the
    chapter measures NumPy code. Whatever ``fn`` returns counts while it is
    alive and is dropped afterwards.

    tracemalloc slows Python down while it traces, so do not time a function
    and measure its memory in the same call. If tracemalloc is already
    tracing, its peak is reset.

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    if not callable(fn):
        raise ValueError(
            f"peak_memory expects a function to call, got {type(fn).__name__}; pass fn, not fn(...)"
        )
    started_here = not tracemalloc.is_tracing()
    if started_here:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
        del result
    finally:
        if started_here:
            tracemalloc.stop()
    return peak - before


def attention_memory(
    T: int, d_k: int = 64, block_size=64, causal: bool = False, seed: int = 0
) -> dict:
    """Peak memory of naive and tiled self-attention over ``T`` positions: a dict of bytes and their
    ratio.

    Draws float64 ``q``, ``k``, ``v`` of shape ``(T, d_k)`` (seeded), then
    measures with ``peak_memory``:

    - ``naive_bytes``: ``tutorlib.attention.scaled_dot_product_attention``
      (with ``causal_mask(T)`` when ``causal``), which forms the ``(T, T)``
      scores and weights;
    - ``tiled_bytes``: ``tiled_attention(q, k, v, block_size, causal)``;
    - ``ratio``: ``naive_bytes / tiled_bytes``.

    The inputs and the mask exist before the measurement starts, so neither
    side is charged for them. Returns ``{"T", "d_k", "block_size", "causal",
    "naive_bytes", "tiled_bytes", "ratio"}``.

    Derived in chapter 11 (The cost of attention and how to cut it).
    """
    T = whole_number("T", T, 1)
    d_k = whole_number("d_k", d_k, 1)
    _block_sizes(block_size)
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((T, d_k)) for _ in range(3))  # (T, d_k) each
    mask = causal_mask(T) if causal else None
    naive = peak_memory(scaled_dot_product_attention, q, k, v, mask)
    tiled = peak_memory(tiled_attention, q, k, v, block_size=block_size, causal=causal)
    return {
        "T": T,
        "d_k": d_k,
        "block_size": block_size,
        "causal": bool(causal),
        "naive_bytes": naive,
        "tiled_bytes": tiled,
        "ratio": naive / tiled,
    }
