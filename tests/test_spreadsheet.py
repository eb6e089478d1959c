"""The cross-attention workbook holds live formulas that compute what tutorlib computes.

The workbook is written with openpyxl, which stores formulas and no computed
values. LibreOffice (headless) opens it, computes every formula and saves a
copy; the numbers read back from that copy can only come from LibreOffice's
own calculation. Each table is compared cell by cell with NumPy and
tutorlib.attention. A workbook whose input cell was changed afterwards is
recalculated too: its tables must follow the new input (the "live" promise
of chapter 7).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from tutorlib.attention import scaled_dot_product_attention, softmax
from tutorlib.examples import SPREADSHEET
from tutorlib.spreadsheet import INPUT_TABLES, TABLE_NAMES, export_cross_attention_xlsx

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
ATOL = 1e-9

PT, EN = SPREADSHEET["portuguese"], SPREADSHEET["english"]
RNG = np.random.default_rng(7)
W_Q, W_K, W_V = (
    RNG.standard_normal((2, 2)),
    RNG.standard_normal((2, 2)),
    RNG.standard_normal((2, 2)),
)
# A second, lopsided example: T_q=3 != T_k=4, d_k=3, d_v=2, values that differ from the keys, and
# projections to d_k'=2 and d_v'=3, so that a transposed or mis-sized table cannot pass by symmetry.
R2 = np.random.default_rng(11)
Q2 = {f"q{i}": R2.standard_normal(3).round(3) for i in range(3)}
K2 = {f"k{i}": R2.standard_normal(3).round(3) for i in range(4)}
V2 = {f"k{i}": R2.standard_normal(2).round(3) for i in range(4)}
W2 = (R2.standard_normal((3, 2)), R2.standard_normal((3, 2)), R2.standard_normal((2, 3)))

CHANGED = ("am", 0, -0.5)  # the live test sets dim 1 of "am" (a key) from 1.5 to -0.5


def recalculate(paths: list[Path], workdir: Path) -> dict[str, Path]:
    """Open each workbook in headless LibreOffice, let it compute, save a copy; return name ->
    copy."""
    if SOFFICE is None:
        pytest.fail(
            "LibreOffice (soffice) is not on PATH, and these tests need it to recalculate the "
            "workbook: run make test, which installs libreoffice-calc (or: apt-get install "
            "--no-install-recommends libreoffice-calc)"
        )
    out = workdir / "recalculated"
    profile = (
        workdir / "lo-profile"
    )  # a private profile: no clash with a running LibreOffice or another test
    cmd = [
        SOFFICE,
        f"-env:UserInstallation={profile.as_uri()}",
        "--headless",
        "--norestore",
        "--convert-to",
        "xlsx",
        "--outdir",
        str(out),
        *map(str, paths),
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    copies = {p.name: out / p.name for p in paths}
    missing = [n for n, c in copies.items() if not c.is_file()]
    assert not missing, (
        f"LibreOffice did not convert {missing}: "
        f"rc={result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    return copies


def named_ranges(wb) -> dict[str, tuple[str, str]]:
    """name -> (sheet, 'B7:C8') for every defined name of the workbook."""
    out = {}
    for name, dn in wb.defined_names.items():
        ((sheet, ref),) = list(dn.destinations)
        out[name] = (sheet, ref.replace("$", ""))
    return out


def read_table(wb, sheet: str, ref: str) -> np.ndarray:
    cells = wb[sheet][ref] if ":" in ref else ((wb[sheet][ref],),)
    values = [[c.value for c in row] for row in cells]
    for row in values:
        for v in row:
            assert isinstance(v, (int, float)) and not isinstance(v, bool), (
                f"{sheet}!{ref} holds {v!r} after recalculation, not a number (a spreadsheet error "
                "such as #NAME?)"
            )
    return np.array(values, dtype=float)


def expected_tables(q, k, v, prefix="") -> dict[str, np.ndarray]:
    d_k = q.shape[1]
    # (T_q, d_k) @ (d_k, T_k) -> (T_q, T_k)
    scores = q @ k.T
    scaled = scores / np.sqrt(d_k)
    e = np.exp(scaled)
    output, weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(
        e / e.sum(axis=1, keepdims=True), softmax(scaled), rtol=0, atol=1e-12
    )
    tables = {
        "d_k": np.array([[d_k]]),
        "sqrt_d_k": np.array([[np.sqrt(d_k)]]),
        "scores": scores,
        "scaled_scores": scaled,
        "exp_scores": e,
        "row_sums": e.sum(axis=1, keepdims=True),
        "weights": weights,
        "weight_sums": np.ones((q.shape[0], 1)),
        "output": output,
    }
    return {prefix + name: table for name, table in tables.items()}


def expected_workbook(queries, keys, values=None, w=None) -> dict[str, np.ndarray]:
    xq = np.array(list(queries.values()), dtype=float)
    xk = np.array(list(keys.values()), dtype=float)
    xv = xk if values is None else np.array(list(values.values()), dtype=float)
    tables = {"queries": xq, "keys": xk, "values": xv, **expected_tables(xq, xk, xv)}
    if w is not None:
        w_q, w_k, w_v = w
        # (T, D) @ (D, d) -> (T, d)
        q, k, v = xq @ w_q, xk @ w_k, xv @ w_v
        tables.update(
            {
                "proj_x_q": xq,
                "proj_x_k": xk,
                "proj_x_v": xv,
                "proj_w_q": w_q,
                "proj_w_k": w_k,
                "proj_w_v": w_v,
                "proj_q": q,
                "proj_k": k,
                "proj_v": v,
            }
        )
        tables.update(expected_tables(q, k, v, prefix="proj_"))
    return tables


CASES = {
    "video.xlsx": dict(queries=PT, keys=EN),
    "projected.xlsx": dict(queries=PT, keys=EN, w_q=W_Q, w_k=W_K, w_v=W_V),
    "lopsided.xlsx": dict(queries=Q2, keys=K2, values=V2, w_q=W2[0], w_k=W2[1], w_v=W2[2]),
}


def changed_english():
    en = {w: list(vec) for w, vec in EN.items()}
    en[CHANGED[0]][CHANGED[1]] = CHANGED[2]
    return en


@pytest.fixture(scope="module")
def workbooks(tmp_path_factory):
    """Write each case, plus 'live.xlsx': projected.xlsx with one embedding changed by openpyxl
    afterwards."""
    tmp = tmp_path_factory.mktemp("spreadsheet")
    written = {}
    for name, kwargs in CASES.items():
        written[name] = export_cross_attention_xlsx(tmp / name, **kwargs)
    live = openpyxl.load_workbook(written["projected.xlsx"])
    sheet, ref = named_ranges(live)["keys"]
    row = list(EN).index(CHANGED[0])
    cell = live[sheet][ref][row][CHANGED[1]]
    assert cell.value == EN[CHANGED[0]][CHANGED[1]]
    cell.value = CHANGED[2]
    live.save(tmp / "live.xlsx")
    written["live.xlsx"] = tmp / "live.xlsx"
    copies = recalculate(list(written.values()), tmp)
    return {name: (path, copies[name]) for name, path in written.items()}


def compare(original: Path, recalculated: Path, expected: dict[str, np.ndarray]):
    names = named_ranges(openpyxl.load_workbook(original))
    assert set(names) == set(expected), (
        f"named tables {sorted(names)} != expected {sorted(expected)}"
    )
    wb = openpyxl.load_workbook(recalculated, data_only=True)
    for name, want in expected.items():
        got = read_table(wb, *names[name])
        assert got.shape == want.shape, f"{name}: table of shape {got.shape}, expected {want.shape}"
        np.testing.assert_allclose(
            got, want, rtol=0, atol=ATOL, err_msg=f"table {name!r} ({names[name]})"
        )


@pytest.mark.slow  # recalculates in LibreOffice
@pytest.mark.parametrize("case", list(CASES))
def test_libreoffice_computes_every_table_as_numpy_does(workbooks, case):
    original, recalculated = workbooks[case]
    kwargs = CASES[case]
    w = (kwargs["w_q"], kwargs["w_k"], kwargs["w_v"]) if "w_q" in kwargs else None
    compare(
        original,
        recalculated,
        expected_workbook(kwargs["queries"], kwargs["keys"], kwargs.get("values"), w),
    )


@pytest.mark.slow  # recalculates in LibreOffice
def test_the_video_numbers_come_out_of_the_spreadsheet(workbooks):
    wb = openpyxl.load_workbook(workbooks["video.xlsx"][1], data_only=True)
    names = named_ranges(openpyxl.load_workbook(workbooks["video.xlsx"][0]))
    weights = read_table(wb, *names["weights"])
    # "sou" takes about 30 % from "I" and 63 % from "am"; "feliz" about 71 % from "happy"
    np.testing.assert_allclose(
        weights.round(2), [[0.30, 0.63, 0.06], [0.14, 0.14, 0.71]], atol=1e-12
    )


@pytest.mark.slow  # recalculates in LibreOffice
def test_changing_one_embedding_changes_every_table_that_depends_on_it(workbooks):
    original, recalculated = workbooks["live.xlsx"]
    expected = expected_workbook(PT, changed_english(), None, (W_Q, W_K, W_V))
    compare(original, recalculated, expected)
    # and the change is visible: the weights and outputs moved away from the unchanged workbook's
    before = openpyxl.load_workbook(workbooks["projected.xlsx"][1], data_only=True)
    after = openpyxl.load_workbook(recalculated, data_only=True)
    names = named_ranges(openpyxl.load_workbook(original))
    for name in (
        "values",
        "scores",
        "weights",
        "output",
        "proj_x_k",
        "proj_k",
        "proj_v",
        "proj_weights",
        "proj_output",
    ):
        moved = np.abs(read_table(after, *names[name]) - read_table(before, *names[name])).max()
        assert moved > 1e-3, (
            f"table {name} did not change when 'am' changed: its formulas do not read the input"
        )


@pytest.mark.slow  # recalculates in LibreOffice
def test_inputs_are_numbers_and_everything_else_is_a_formula_without_a_stored_value(workbooks):
    original = workbooks["lopsided.xlsx"][0]
    wb = openpyxl.load_workbook(original)
    cached = openpyxl.load_workbook(original, data_only=True)
    names = named_ranges(wb)
    assert set(names) == {n for sheet in TABLE_NAMES.values() for n in sheet}
    inputs = INPUT_TABLES | {"values"}  # values were given in this case
    table_cells = set()
    for name, (sheet, ref) in names.items():
        cells = wb[sheet][ref] if ":" in ref else ((wb[sheet][ref],),)
        for row in cells:
            for c in row:
                table_cells.add((sheet, c.coordinate))
                if name in inputs:
                    assert isinstance(c.value, float), (
                        f"input {name} {c.coordinate} holds {c.value!r}"
                    )
                else:
                    assert isinstance(c.value, str) and c.value.startswith("="), (
                        f"{name} {sheet}!{c.coordinate} holds {c.value!r}, not a formula"
                    )
                    # no cached result: whatever number LibreOffice shows, it computed itself
                    assert cached[sheet][c.coordinate].value is None
    # every formula of the workbook sits in a named table, so the comparisons above saw all of them
    formulas = {
        (ws.title, c.coordinate)
        for ws in wb
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    }
    assert formulas <= table_cells, (
        f"formulas outside the named tables: {sorted(formulas - table_cells)[:5]}"
    )


@pytest.mark.slow  # recalculates in LibreOffice
def test_values_default_to_formulas_that_copy_the_keys(workbooks):
    wb = openpyxl.load_workbook(workbooks["video.xlsx"][0])
    names = named_ranges(wb)
    assert "Learned projections" not in wb.sheetnames
    sheet, ref = names["values"]
    assert all(
        isinstance(c.value, str) and c.value.startswith("=") for row in wb[sheet][ref] for c in row
    )


@pytest.mark.slow  # recalculates in LibreOffice
def test_tables_are_labelled_with_the_words(workbooks):
    wb = openpyxl.load_workbook(workbooks["lopsided.xlsx"][0])
    sheet, ref = named_ranges(wb)["weights"]
    ws = wb[sheet]
    block = ws[ref]
    first_row, first_col = block[0][0].row, block[0][0].column
    assert [ws.cell(first_row - 1, first_col + j).value for j in range(len(K2))] == list(K2)
    assert [ws.cell(first_row + i, first_col - 1).value for i in range(len(Q2))] == list(Q2)
    assert ws.cell(first_row - 2, first_col - 1).value.startswith("softmax")


def test_export_overwrites_and_returns_the_path(tmp_path):
    path = tmp_path / "again.xlsx"
    assert export_cross_attention_xlsx(path, PT, EN) == path
    export_cross_attention_xlsx(str(path), {"só": (2.0, 0.0)}, EN)
    wb = openpyxl.load_workbook(path)
    sheet, ref = named_ranges(wb)["queries"]
    assert [[c.value for c in row] for row in wb[sheet][ref]] == [[2.0, 0.0]]


BAD_INPUTS = [
    (dict(queries={}, keys=EN), "queries is empty"),
    (dict(queries=PT, keys={}), "keys is empty"),
    (dict(queries=[(1.0, 2.0)], keys=EN), "must be a dict"),
    (dict(queries={"sou": (1.0, 2.0), "feliz": (1.0, 2.0, 3.0)}, keys=EN), "same width"),
    (dict(queries={"sou": (1.0, 2.0, 3.0)}, keys=EN), "queries have width 3 but keys have width 2"),
    (dict(queries=PT, keys=EN, values={"I": (1, 2), "am": (1, 2)}), "one vector per key word"),
    (dict(queries={"sou": ("a", "b")}, keys=EN), "real numbers"),
    (dict(queries={"sou": (np.nan, 1.0)}, keys=EN), "NaN"),
    (dict(queries={"sou": ()}, keys=EN), "at least one number"),
    (dict(queries={"sou": (40.0, 40.0)}, keys={"I": (40.0, 40.0)}), "overflows"),
    (dict(queries=PT, keys=EN, w_q=W_Q), "all three"),
    (dict(queries=PT, keys=EN, w_q=np.ones((3, 2)), w_k=W_K, w_v=W_V), "transposed"),
    (dict(queries=PT, keys=EN, w_q=np.ones((2, 3)), w_k=W_K, w_v=W_V), "same width d_k"),
    (dict(queries=PT, keys=EN, w_q=np.ones(2), w_k=W_K, w_v=W_V), "must be 2-D"),
]


@pytest.mark.parametrize("kwargs, message", BAD_INPUTS, ids=[m for _, m in BAD_INPUTS])
def test_bad_inputs_say_what_was_expected(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        export_cross_attention_xlsx(tmp_path / "bad.xlsx", **kwargs)
    assert not (tmp_path / "bad.xlsx").exists(), "a refused export must not leave a file behind"


def test_bad_paths_say_what_was_expected(tmp_path):
    (tmp_path / "a_file").write_text("")
    (tmp_path / "folder.xlsx").mkdir()
    cases = [
        (tmp_path / "out.csv", r"must end in \.xlsx.*'\.csv'"),
        (tmp_path / "out", r"must end in \.xlsx"),
        (tmp_path / "missing" / "out.xlsx", "does not exist"),
        (tmp_path / "a_file" / "out.xlsx", "is a file, not a directory"),
        (tmp_path / "folder.xlsx", "is a directory"),
        (42, "must be a file name"),
    ]
    for path, message in cases:
        with pytest.raises(ValueError, match=message):
            export_cross_attention_xlsx(path, PT, EN)


def test_a_failing_write_is_a_value_error(tmp_path, monkeypatch):
    # running as root, a read-only directory is still writable, so simulate the refusal
    def refuse(self, filename):
        raise PermissionError(13, "Permission denied", str(filename))

    monkeypatch.setattr(openpyxl.Workbook, "save", refuse)
    with pytest.raises(ValueError, match="could not write 'x.xlsx'.*Permission denied"):
        export_cross_attention_xlsx(tmp_path / "x.xlsx", PT, EN)


def test_the_same_tables_give_the_same_bytes(tmp_path):
    """Chapter 7 commits its workbook for the book's download link: re-running must not change
    it."""
    import time
    import zipfile

    first = export_cross_attention_xlsx(
        tmp_path / "a.xlsx", SPREADSHEET["portuguese"], SPREADSHEET["english"]
    )
    time.sleep(1.1)  # zip entries and docProps carry seconds
    second = export_cross_attention_xlsx(
        tmp_path / "b.xlsx", SPREADSHEET["portuguese"], SPREADSHEET["english"]
    )
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as z:
        assert {i.date_time for i in z.infolist()} == {(2026, 1, 1, 0, 0, 0)}
        assert b"2026-01-01T00:00:00Z" in z.read("docProps/core.xml")


def test_chapter_7_ships_its_workbook_for_download():
    path = Path(__file__).resolve().parent.parent / "chapters" / "data" / "cross_attention.xlsx"
    assert path.is_file(), (
        "chapter 7 links chapters/data/cross_attention.xlsx: run the chapter to write it"
    )
    book = openpyxl.load_workbook(path)
    names = {n for sheet in TABLE_NAMES.values() for n in sheet}
    assert names <= set(book.defined_names), sorted(names - set(book.defined_names))
    assert book.sheetnames == list(TABLE_NAMES), "chapter 7 exports the learned projections too"
