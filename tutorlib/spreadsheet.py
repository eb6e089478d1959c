"""Cross-attention as a live spreadsheet: every table a formula of the inputs.

:func:`export_cross_attention_xlsx` writes the computation of chapter 7 as an
``.xlsx`` workbook that LibreOffice Calc, Excel and Google Sheets all open.
Only the embeddings (and the projection matrices) are numbers; every other
cell is a plain per-cell formula (``SUMPRODUCT``, ``EXP``, ``SUM``, ``SQRT``,
``+`` and ``*``), so a learner can change one embedding value and watch every
table below it update, as in the spreadsheet of the course's cross-attention
video. No array formulas are used: they behave differently in the three
programs.

Layout of the sheet ``Cross-attention`` (the video's spreadsheet)::

    Q (queries)          K (keys)               V (values)          d_k, sqrt(d_k)
    Q·Kᵀ                 Q·Kᵀ / sqrt(d_k)       exp(...)            row sum of exp
    softmax = exp / row sum (with a Σ check column)                 output = weights · V

and, when projection matrices are given, of the sheet ``Learned projections``::

    X_q (= the Q table)  X_k (= the K table)    X_v (= the V table)
    W_Q                  W_K                    W_V
    Q = X_q·W_Q          K = X_k·W_K            V = X_v·W_V         d_k, sqrt(d_k)
    ... then the same attention tables as on the first sheet.

Every table is also a named range (the video names its ranges too), listed
in :data:`TABLE_NAMES`; a spreadsheet's *Name Box* jumps to them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["export_cross_attention_xlsx", "TABLE_NAMES", "INPUT_TABLES", "MAX_ROWS", "MAX_WIDTH"]

#: The named ranges of the workbook, per sheet, in the order they are laid out.
#: Input tables hold numbers; all the others hold formulas.
TABLE_NAMES = {
    "Cross-attention": [
        "queries",
        "keys",
        "values",
        "d_k",
        "sqrt_d_k",
        "scores",
        "scaled_scores",
        "exp_scores",
        "row_sums",
        "weights",
        "weight_sums",
        "output",
    ],
    "Learned projections": [
        "proj_x_q",
        "proj_x_k",
        "proj_x_v",
        "proj_w_q",
        "proj_w_k",
        "proj_w_v",
        "proj_q",
        "proj_k",
        "proj_v",
        "proj_d_k",
        "proj_sqrt_d_k",
        "proj_scores",
        "proj_scaled_scores",
        "proj_exp_scores",
        "proj_row_sums",
        "proj_weights",
        "proj_weight_sums",
        "proj_output",
    ],
}
#: The tables that hold numbers (light blue); "values" too when values are given, else it copies
#: "keys".
INPUT_TABLES = {"queries", "keys", "proj_w_q", "proj_w_k", "proj_w_v"}

#: A spreadsheet is for reading by eye: at most this many words per sentence ...
MAX_ROWS = 64
#: ... and this many numbers per vector.
MAX_WIDTH = 64
# exp(709.8) is the largest finite double; above it EXP gives #NUM! in every spreadsheet.
_EXP_LIMIT = 700.0

_MAIN, _PROJ = "Cross-attention", "Learned projections"


# ----------------------------------------------------------------------------- checks


def _check_vectors(words, name: str) -> tuple[list[str], np.ndarray]:
    """``{word: vector}`` -> (labels, (n, width) float array), or a ValueError saying what is
    wrong."""
    if not isinstance(words, Mapping):
        raise ValueError(
            f"{name} must be a dict {{word: vector}}, e.g. {{'I': (1.0, 0.5), 'am': (1.5, 1.0)}}, "
            f"got {type(words).__name__}"
        )
    if len(words) == 0:
        raise ValueError(
            f"{name} is empty: the spreadsheet needs at least one word with its vector"
        )
    if len(words) > MAX_ROWS:
        raise ValueError(
            f"{name} has {len(words)} words; a spreadsheet to read by eye takes at most {MAX_ROWS}"
        )
    labels, rows = [], []
    for word, vec in words.items():
        arr = np.asarray(vec)
        if (
            arr.dtype == bool
            or not np.issubdtype(arr.dtype, np.number)
            or np.issubdtype(arr.dtype, np.complexfloating)
        ):
            raise ValueError(f"{name}[{word!r}] must be a vector of real numbers, got {vec!r}")
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                f"{name}[{word!r}] must be a 1-D vector with at least one number, got shape "
                f"{arr.shape} ({vec!r})"
            )
        if not np.isfinite(arr).all():
            raise ValueError(f"{name}[{word!r}] contains NaN or infinity: {vec!r}")
        labels.append(str(word))
        rows.append(arr.astype(np.float64))
    widths = [len(r) for r in rows]
    if len(set(widths)) != 1:
        detail = ", ".join(f"{w!r}: {n}" for w, n in zip(labels, widths))
        raise ValueError(
            f"every vector of {name} must have the same width, got widths {{{detail}}}: "
            "one word's embedding has a number too many or too few"
        )
    if widths[0] > MAX_WIDTH:
        raise ValueError(
            f"{name}'s vectors have {widths[0]} numbers; the spreadsheet takes at most {MAX_WIDTH}"
        )
    return labels, np.stack(rows)


def _check_matrix(w, name: str, rows: int, rows_from: str) -> np.ndarray:
    arr = np.asarray(w)
    if (
        arr.dtype == bool
        or not np.issubdtype(arr.dtype, np.number)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        raise ValueError(f"{name} must be a 2-D array of real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D, (input width, output width), got shape {arr.shape}")
    if arr.shape[0] != rows:
        raise ValueError(
            f"{name} has {arr.shape[0]} rows but {rows_from} vectors have {rows} numbers: X·{name} "
            f"needs {name} of shape ({rows}, width), got {arr.shape}. Is {name} transposed?"
        )
    if not 1 <= arr.shape[1] <= MAX_WIDTH:
        raise ValueError(
            f"{name} must have between 1 and {MAX_WIDTH} columns, got shape {arr.shape}"
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return arr.astype(np.float64)


def _check_exp_fits(q: np.ndarray, k: np.ndarray, where: str) -> None:
    # (T_q, d_k) @ (d_k, T_k) -> (T_q, T_k)
    scaled = q @ k.T / math.sqrt(q.shape[1])
    if scaled.max() > _EXP_LIMIT:
        raise ValueError(
            f"{where}: the largest scaled score is {scaled.max():.4g}, and a spreadsheet's EXP "
            "overflows above about 709, so its exp and softmax tables would show #NUM!. Use "
            "smaller vectors (the stable softmax of chapter 3 subtracts each row's maximum first; "
            "the spreadsheet shows the plain formula)"
        )


def _check_path(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(
            f"path must be a file name ending in .xlsx, got {type(path).__name__} {path!r}"
        )
    p = Path(path)
    if p.suffix.lower() != ".xlsx":
        raise ValueError(
            "path must end in .xlsx (the workbook is written in Excel's format, which LibreOffice "
            f"and Google Sheets also open), got {str(path)!r} with suffix {p.suffix!r}"
        )
    parent = p.parent
    if not parent.is_dir():
        what = "is a file, not a directory" if parent.exists() else "does not exist"
        raise ValueError(
            f"cannot write {p.name!r}: its directory {str(parent)!r} {what}; create the directory "
            "first"
        )
    if p.is_dir():
        raise ValueError(f"path {str(p)!r} is a directory; give a file name ending in .xlsx")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"cannot write {p.name!r}: no permission to write in {str(parent)!r}")
    return p


# ----------------------------------------------------------------------------- layout


class _Table:
    """A labelled table on a sheet: a title row, a header row, then one row per label."""

    def __init__(
        self,
        sheet: str,
        top: int,
        left: int,
        title: str | None,
        rows: list[str],
        cols: list[str],
        labelled: bool = True,
    ):
        self.sheet, self.top, self.left, self.title, self.rows, self.cols = (
            sheet,
            top,
            left,
            title,
            rows,
            cols,
        )
        self.labelled = labelled  # False: no label column (a column glued to the table on its left)

    @property
    def height(self) -> int:  # title + header + data
        return 2 + len(self.rows)

    @property
    def width(self) -> int:  # labels + data
        return int(self.labelled) + len(self.cols)

    @property
    def first_col(self) -> int:
        return self.left + int(self.labelled)

    def ref(self, i: int, j: int, absolute: str = "", sheet: str | None = None) -> str:
        """A1 reference of data cell (i, j); ``absolute`` is "", "row", "col" or "both"."""
        from openpyxl.utils import get_column_letter

        col = get_column_letter(self.first_col + j)
        row = str(self.top + 2 + i)
        col = ("$" if absolute in ("col", "both") else "") + col
        row = ("$" if absolute in ("row", "both") else "") + row
        prefix = f"'{self.sheet}'!" if sheet is not None and sheet != self.sheet else ""
        return f"{prefix}{col}{row}"

    def range(
        self, i0: int, j0: int, i1: int, j1: int, absolute: str = "", sheet: str | None = None
    ) -> str:
        start = self.ref(i0, j0, absolute, sheet)
        return start + ":" + self.ref(i1, j1, absolute).lstrip("'")

    def row_range(self, i: int, absolute: str = "") -> str:
        return self.range(i, 0, i, len(self.cols) - 1, absolute)

    def data_range_defined(self) -> str:
        """The data block as a defined-name target, e.g. ``'Cross-attention'!$B$7:$C$8``."""
        return f"'{self.sheet}'!" + self.range(0, 0, len(self.rows) - 1, len(self.cols) - 1, "both")


class _Writer:
    def __init__(self):
        from openpyxl import Workbook
        from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

        self.wb = Workbook()
        self.styles = {
            "title": Font(bold=True, size=14),
            "note": Font(italic=True),
            "table_title": Font(bold=True),
            "header": Font(bold=True),
            # light blue marks the cells a learner may change (the text says so too)
            "input_fill": PatternFill("solid", fgColor="DDEBF7"),
            "border": Border(*(Side(style="thin", color="A6A6A6"),) * 4),
            "right": Alignment(horizontal="right"),
        }

    def sheet(self, name: str, first: bool = False):
        if first:
            ws = self.wb.active
            ws.title = name
        else:
            ws = self.wb.create_sheet(name)
        ws.column_dimensions["A"].width = 12
        return ws

    def text(self, ws, row: int, col: int, value: str, style: str | None = None):
        cell = ws.cell(row=row, column=col, value=value)
        if style:
            cell.font = self.styles[style]
        return cell

    def table(
        self, ws, table: _Table, cells, name: str, is_input: bool, number_format: str = "0.000"
    ):
        """Write ``table`` with ``cells[i][j]`` (numbers or formulas) and name its data range
        ``name``."""
        from openpyxl.utils import get_column_letter
        from openpyxl.workbook.defined_name import DefinedName

        if table.title:
            self.text(ws, table.top, table.left, table.title, "table_title")
        for j, c in enumerate(table.cols):
            cell = self.text(ws, table.top + 1, table.first_col + j, c, "header")
            cell.alignment = self.styles["right"]
            letter = get_column_letter(table.first_col + j)
            ws.column_dimensions[letter].width = max(ws.column_dimensions[letter].width or 0, 11)
        for i, r in enumerate(table.rows):
            if table.labelled:
                self.text(ws, table.top + 2 + i, table.left, r, "header")
            for j in range(len(table.cols)):
                cell = ws.cell(row=table.top + 2 + i, column=table.first_col + j, value=cells[i][j])
                cell.border = self.styles["border"]
                if is_input:
                    cell.fill = self.styles["input_fill"]
                else:
                    cell.number_format = number_format
        if table.labelled:
            letter = get_column_letter(table.left)
            ws.column_dimensions[letter].width = max(
                ws.column_dimensions[letter].width or 0, 6, 2 + max(len(r) for r in table.rows)
            )
        self.wb.defined_names[name] = DefinedName(name, attr_text=table.data_range_defined())


def _dims(n: int, prefix: str) -> list[str]:
    return [f"{prefix}{j + 1}" for j in range(n)]


def _product_formula(left: _Table, i: int, right: _Table, j: int, n: int) -> str:
    """Row i of ``left`` times column j of ``right``, written out: =B7*F7+C7*F8 (the video's
    way)."""
    return "=" + "+".join(f"{left.ref(i, m)}*{right.ref(m, j)}" for m in range(n))


def _attention_tables(
    writer: _Writer,
    ws,
    q: _Table,
    k: _Table,
    v: _Table,
    top: int,
    d_k_at: tuple[int, int],
    prefix: str,
) -> None:
    """Write the attention of the Q, K, V tables already on ``ws``.

    d_k and √d_k go at cell ``d_k_at`` (row, column), beside the inputs; the tables of the
    computation start at row ``top``. Their named ranges get ``prefix``.
    """
    sheet = ws.title
    t_q, t_k, d_v = len(q.rows), len(k.rows), len(v.cols)
    queries, keys = q.rows, k.rows

    d_k = _Table(sheet, d_k_at[0], d_k_at[1], "d_k = width of a key", ["d_k"], ["value"])
    sqrt_dk = _Table(sheet, d_k_at[0], d_k_at[1] + d_k.width + 1, "√d_k", ["√d_k"], ["value"])
    writer.table(ws, d_k, [[f"=COLUMNS({k.row_range(0)})"]], prefix + "d_k", False, "0")
    writer.table(
        ws, sqrt_dk, [[f"=SQRT({d_k.ref(0, 0, 'both')})"]], prefix + "sqrt_d_k", False, "0.000000"
    )

    gap = 2
    left = 1
    scores = _Table(sheet, top, left, "Q·Kᵀ (scores)", queries, keys)
    left += scores.width + 1
    scaled = _Table(sheet, top, left, "Q·Kᵀ / √d_k", queries, keys)
    left += scaled.width + 1
    exps = _Table(sheet, top, left, "exp(Q·Kᵀ / √d_k)", queries, keys)
    left += exps.width + 1
    sums = _Table(sheet, top, left, "row sum of exp", queries, ["Σ exp"])
    writer.table(
        ws,
        scores,
        [
            [f"=SUMPRODUCT({q.row_range(i, 'col')},{k.row_range(j, 'col')})" for j in range(t_k)]
            for i in range(t_q)
        ],
        prefix + "scores",
        False,
    )
    writer.table(
        ws,
        scaled,
        [
            [f"={scores.ref(i, j)}/{sqrt_dk.ref(0, 0, 'both')}" for j in range(t_k)]
            for i in range(t_q)
        ],
        prefix + "scaled_scores",
        False,
    )
    writer.table(
        ws,
        exps,
        [[f"=EXP({scaled.ref(i, j)})" for j in range(t_k)] for i in range(t_q)],
        prefix + "exp_scores",
        False,
    )
    writer.table(
        ws, sums, [[f"=SUM({exps.row_range(i)})"] for i in range(t_q)], prefix + "row_sums", False
    )

    top += scores.height + gap
    weights = _Table(sheet, top, 1, "softmax = exp / row sum (attention weights)", queries, keys)
    # the Σ column sits right of the weights, like display.matrix(row_sums=True)
    check = _Table(sheet, top, 1 + weights.width, None, queries, ["Σ (= 1)"], labelled=False)
    out_left = check.left + check.width + 1
    output = _Table(
        sheet,
        top,
        out_left,
        "output = weights · V (the queries, moved)",
        [f"{w} (after)" for w in queries],
        v.cols,
    )
    writer.table(
        ws,
        weights,
        [[f"={exps.ref(i, j)}/{sums.ref(i, 0, 'col')}" for j in range(t_k)] for i in range(t_q)],
        prefix + "weights",
        False,
    )
    writer.table(
        ws,
        check,
        [[f"=SUM({weights.row_range(i)})"] for i in range(t_q)],
        prefix + "weight_sums",
        False,
    )
    # output[i, j] = Σ_m weights[i, m] * V[m, j], written out term by term as the video does
    writer.table(
        ws,
        output,
        [[_product_formula(weights, i, v, j, t_k) for j in range(d_v)] for i in range(t_q)],
        prefix + "output",
        False,
    )


def export_cross_attention_xlsx(
    path, queries, keys, values=None, w_q=None, w_k=None, w_v=None
) -> Path:
    r"""Write cross-attention as a workbook of live formulas; return the path written.

    .. math::

        \operatorname{Attention}(Q, K, V)
        = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    Arguments::

        path     a file name ending in .xlsx, in an existing writable directory.
                 An existing file of that name is overwritten (it is an export:
                 run it again to regenerate the workbook).
        queries  {word: vector}, the target sentence (the decoder side), T_q words of width d_k,
                 e.g. tutorlib.examples.SPREADSHEET["portuguese"]
        keys     {word: vector}, the source sentence (the encoder side), T_k words of width d_k,
                 e.g. tutorlib.examples.SPREADSHEET["english"]
        values   {word: vector} for the same words as ``keys``, in the same order, width d_v.
                 Default None: the values are the keys' vectors (as in the video),
                 written as formulas that copy the K table, so changing a key changes its value.
        w_q, w_k, w_v
                 optional projection matrices, all three or none: W_Q and W_K of shape
                 (d_k, d_k') and W_V of shape (d_v, d_v'), rows = the width of the vectors
                 they multiply, columns = the projected width (d_k' the same for both).
                 With them a second sheet, "Learned projections", computes
                 Q = X_q·W_Q, K = X_k·W_K, V = X_v·W_V (X_* read from the first sheet
                 by formulas) and the whole attention again on the projected Q, K, V.

    The sheet "Cross-attention" holds the inputs (light blue: change them) and,
    as formulas: d_k (``COLUMNS`` of the key table) and √d_k, Q·Kᵀ
    (``SUMPRODUCT`` of a query row and a key row), Q·Kᵀ/√d_k, its ``EXP``, the
    row sums, the softmax weights (exp / row sum) with a Σ column that reads 1,
    and the output, each entry written out as weight·value + weight·value + …
    Every table is a named range (see :data:`TABLE_NAMES`). Values are shown
    with 3 decimals but held in full precision.

    The softmax is the plain formula, exp / row sum, as in the video; it is
    refused (ValueError) when a scaled score exceeds 700, where a
    spreadsheet's EXP overflows. Bad input (not a dict, empty, vectors of
    different widths, queries and keys of different widths, values for other
    words than the keys, a matrix of the wrong shape, a path not ending in
    .xlsx or in a directory that does not exist or cannot be written) raises
    ValueError saying what was expected and what came.

    Derived in chapter 7 (Cross-attention).
    """
    p = _check_path(path)
    (q_labels, xq), (k_labels, xk), (v_labels, xv) = _checked_vectors(queries, keys, values)
    projections = _checked_projections(xq, xk, xv, w_q, w_k, w_v)
    writer = _Writer()
    q, k, v = _inputs_sheet(writer, (q_labels, xq), (k_labels, xk), (v_labels, xv), values is None)
    if projections is not None:
        _projections_sheet(writer, q, k, v, *projections)
    _save(writer, p)
    return p


def _checked_vectors(queries, keys, values):
    """``(labels, (T, d) array)`` for the queries, the keys and the values (the keys' when
    ``values`` is None), or a ValueError when they do not fit together."""
    q_labels, xq = _check_vectors(queries, "queries")
    k_labels, xk = _check_vectors(keys, "keys")
    if xq.shape[1] != xk.shape[1]:
        raise ValueError(
            f"queries have width {xq.shape[1]} but keys have width {xk.shape[1]}: a query and a "
            "key are compared by a dot product, so they need the same width d_k. Did you pass "
            "embeddings from two different tables?"
        )
    if values is None:
        v_labels, xv = k_labels, xk
    else:
        v_labels, xv = _check_vectors(values, "values")
        if v_labels != k_labels:
            raise ValueError(
                "values must hold one vector per key word, in the keys' order: keys are "
                f"{k_labels}, values are {v_labels}. Every key carries exactly one value"
            )
    _check_exp_fits(xq, xk, "queries and keys")
    return (q_labels, xq), (k_labels, xk), (v_labels, xv)


def _checked_projections(xq, xk, xv, w_q, w_k, w_v):
    """``(W_Q, W_K, W_V)`` as arrays, None when none is given, or a ValueError (one or two
    given, a wrong shape, Q and K projected to different widths, scores EXP cannot hold)."""
    given = [w is not None for w in (w_q, w_k, w_v)]
    if any(given) and not all(given):
        missing = [n for n, g in zip(("w_q", "w_k", "w_v"), given) if not g]
        raise ValueError(f"give all three projections w_q, w_k, w_v or none; missing {missing}")
    if not all(given):
        return None
    w_q = _check_matrix(w_q, "w_q", xq.shape[1], "the queries'")
    w_k = _check_matrix(w_k, "w_k", xk.shape[1], "the keys'")
    w_v = _check_matrix(w_v, "w_v", xv.shape[1], "the values'")
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"w_q projects to width {w_q.shape[1]} but w_k to width {w_k.shape[1]}: the "
            "projected queries and keys meet in a dot product, so both need the same width d_k"
        )
    # (T_q, D) @ (D, d_k) -> (T_q, d_k); (T_k, D) @ (D, d_k) -> (T_k, d_k)
    _check_exp_fits(xq @ w_q, xk @ w_k, "the projected queries and keys")
    return w_q, w_k, w_v


def _inputs_sheet(writer: _Writer, queries, keys, values, values_are_keys: bool):
    """The sheet "Cross-attention": its notes, the Q, K, V inputs (V copies K by formulas when
    ``values_are_keys``) and the attention on them. Returns the Q, K, V tables."""
    (q_labels, xq), (k_labels, xk), (v_labels, xv) = queries, keys, values
    ws = writer.sheet(_MAIN, first=True)
    writer.text(ws, 1, 1, "Cross-attention, step by step: softmax(Q·Kᵀ / √d_k) · V", "title")
    writer.text(
        ws,
        2,
        1,
        "The queries come from the sentence being written (target), the keys and values from "
        "the sentence being read (source).",
        "note",
    )
    writer.text(
        ws,
        3,
        1,
        "Light blue cells are inputs: change one and every table below updates. All other "
        "numbers are formulas.",
        "note",
    )

    top = 5
    width_q = _dims(xq.shape[1], "dim ")
    q = _Table(_MAIN, top, 1, "Q: queries (target)", q_labels, width_q)
    k = _Table(_MAIN, top, q.left + q.width + 1, "K: keys (source)", k_labels, width_q)
    v_title = "V: values (= the keys)" if values_are_keys else "V: values (source)"
    v = _Table(_MAIN, top, k.left + k.width + 1, v_title, v_labels, _dims(xv.shape[1], "dim "))
    writer.table(ws, q, xq.tolist(), "queries", True)
    writer.table(ws, k, xk.tolist(), "keys", True)
    if values_are_keys:
        writer.table(
            ws,
            v,
            [[f"={k.ref(i, j)}" for j in range(xk.shape[1])] for i in range(len(k_labels))],
            "values",
            False,
        )
    else:
        writer.table(ws, v, xv.tolist(), "values", True)
    _attention_tables(
        writer, ws, q, k, v, top + max(q.height, k.height) + 2, (top, v.left + v.width + 1), ""
    )
    return q, k, v


def _projections_sheet(writer: _Writer, q: _Table, k: _Table, v: _Table, w_q, w_k, w_v) -> None:
    """The sheet "Learned projections": X_q, X_k, X_v read from the first sheet by formulas,
    W_Q, W_K, W_V (inputs), Q = X_q·W_Q, K = X_k·W_K, V = X_v·W_V, and the attention on them."""
    wp = writer.sheet(_PROJ)
    writer.text(
        wp,
        1,
        1,
        "Cross-attention with learned projections: Q = X_q·W_Q, K = X_k·W_K, V = X_v·W_V",
        "title",
    )
    writer.text(
        wp,
        2,
        1,
        "X_q, X_k, X_v are read from the sheet 'Cross-attention' (change them there). "
        "In a trained model W_Q, W_K, W_V are learned; here they are given numbers.",
        "note",
    )
    writer.text(
        wp,
        3,
        1,
        "Light blue cells are inputs: change one and every table below updates.",
        "note",
    )
    q_labels, k_labels, v_labels = q.rows, k.rows, v.rows
    top = 5
    xq_t = _Table(_PROJ, top, 1, "X_q (target)", q_labels, q.cols)
    xk_t = _Table(_PROJ, top, xq_t.left + xq_t.width + 1, "X_k (source)", k_labels, k.cols)
    xv_t = _Table(_PROJ, top, xk_t.left + xk_t.width + 1, "X_v (source)", v_labels, v.cols)
    for src, dst, name in ((q, xq_t, "proj_x_q"), (k, xk_t, "proj_x_k"), (v, xv_t, "proj_x_v")):
        writer.table(
            wp,
            dst,
            [
                [f"={src.ref(i, j, sheet=_PROJ)}" for j in range(len(src.cols))]
                for i in range(len(src.rows))
            ],
            name,
            False,
        )
    top += max(xq_t.height, xk_t.height) + 2
    out_k, out_v = _dims(w_q.shape[1], "k"), _dims(w_v.shape[1], "v")
    wq_t = _Table(_PROJ, top, 1, "W_Q", q.cols, out_k)
    wk_t = _Table(_PROJ, top, wq_t.left + wq_t.width + 1, "W_K", k.cols, out_k)
    wv_t = _Table(_PROJ, top, wk_t.left + wk_t.width + 1, "W_V", v.cols, out_v)
    writer.table(wp, wq_t, w_q.tolist(), "proj_w_q", True)
    writer.table(wp, wk_t, w_k.tolist(), "proj_w_k", True)
    writer.table(wp, wv_t, w_v.tolist(), "proj_w_v", True)
    top += max(wq_t.height, wk_t.height, wv_t.height) + 2
    pq = _Table(_PROJ, top, 1, "Q = X_q·W_Q", q_labels, out_k)
    pk = _Table(_PROJ, top, pq.left + pq.width + 1, "K = X_k·W_K", k_labels, out_k)
    pv = _Table(_PROJ, top, pk.left + pk.width + 1, "V = X_v·W_V", v_labels, out_v)
    for x_t, w_t, dst, name in (
        (xq_t, wq_t, pq, "proj_q"),
        (xk_t, wk_t, pk, "proj_k"),
        (xv_t, wv_t, pv, "proj_v"),
    ):
        n = len(x_t.cols)
        writer.table(
            wp,
            dst,
            [
                [_product_formula(x_t, i, w_t, j, n) for j in range(len(dst.cols))]
                for i in range(len(dst.rows))
            ],
            name,
            False,
        )
    _attention_tables(
        writer,
        wp,
        pq,
        pk,
        pv,
        top + max(pq.height, pk.height) + 2,
        (top, pv.left + pv.width + 1),
        "proj_",
    )


def _save(writer: _Writer, p: Path) -> None:
    """Save the workbook at ``p`` with the same bytes for the same tables, or a ValueError."""
    # Excel recalculates everything on opening; LibreOffice and Google Sheets compute
    # formulas that have no stored value (openpyxl stores none).
    writer.wb.calculation.fullCalcOnLoad = True
    try:
        writer.wb.save(p)
        _make_reproducible(p)
    except OSError as exc:
        raise ValueError(
            f"could not write {p.name!r} in {str(p.parent)!r}: {exc.strerror or exc}"
        ) from exc


_FIXED_TIME = "2026-01-01T00:00:00Z"


def _make_reproducible(path: Path) -> None:
    """Rewrite the saved workbook so the same tables give the same bytes.

    openpyxl stamps the time of saving into docProps/core.xml and into every
    zip entry; chapter 7 commits its workbook, so each run would change it.
    The dates become a fixed one; the contents are untouched.
    """
    import re
    import zipfile

    with zipfile.ZipFile(path) as old:
        entries = [(info, old.read(info.filename)) for info in old.infolist()]
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as new:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)",
                    rb"\g<1>" + _FIXED_TIME.encode() + rb"\g<2>",
                    data,
                )
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            new.writestr(fixed, data)
    os.replace(tmp, path)
