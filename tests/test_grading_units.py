"""tools/grading/, piece by piece: the wire format, the pipe, the sandbox, the command line.

tests/test_grading.py grades the whole corpus with the instructor's command; these tests pin down
each part on its own, so that a broken part fails here with its own name.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import grade  # noqa: E402
from grading import checker, sandbox, screen, session, wire  # noqa: E402

needs_bwrap = pytest.mark.skipif(
    sandbox.bwrap() is None, reason="bubblewrap (bwrap) is not installed"
)


def no_refs(obj):
    raise wire.Unsendable(f"{type(obj).__name__} is not data")


def round_trip(x):
    return wire.decode(
        json.loads(json.dumps(wire.encode(x, no_refs))), lambda ref: pytest.fail("no refs here")
    )


# --- the wire format: data in, the same data out; objects never


def test_data_round_trips_with_its_types():
    value = {"a": (1, 2.5, -3j, None, True), 7: [b"\x00x", ..., {1.5, "s"}], ("k", 1): float("inf")}
    assert round_trip(value) == value
    for a in (
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([[True, False]]),
        np.array(["k1", "k2"]),
        np.int64(3),
        np.float64(0.25),
        np.zeros((0, 4)),
    ):
        got = round_trip(a)
        assert type(got) is type(a) and got.dtype == a.dtype and np.array_equal(got, a)


def test_tensors_arrive_as_fresh_tensors_without_gradients():
    import torch

    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    got = round_trip(t * 2)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float64 and not got.requires_grad
    assert torch.equal(got, torch.full((2, 3), 2.0, dtype=torch.float64))


def test_lying_subclasses_arrive_as_the_plain_values_they_hold():
    class Liar(float):
        def __eq__(self, other):
            return True

    class Word(str):
        def __eq__(self, other):
            return True

    class LiarArray(np.ndarray):
        def __eq__(self, other):
            return True

    got = round_trip([Liar(0.5), Word("k1"), np.zeros(3).view(LiarArray)])
    assert type(got[0]) is float and got[0] != 0.7
    assert type(got[1]) is str and got[1] != "k2"
    assert type(got[2]) is np.ndarray and not np.array_equal(got[2], np.ones(3))


def test_what_is_not_data_is_shared_or_refused():
    shared = []
    encoded = wire.encode(
        [len, 1], lambda obj: shared.append(obj) or {"$ref": {"side": "k", "id": 1}}
    )
    assert shared == [len] and encoded[1] == 1
    with pytest.raises(wire.Unsendable):
        wire.encode(object(), no_refs)


@pytest.mark.parametrize(
    "message",
    [
        {
            "$array": {"dtype": "|O", "shape": [1], "data": "AAAAAAAAAAA="}
        },  # pointers from raw bytes
        {"$array": {"dtype": "<f8", "shape": [2], "data": "AAAAAAAAAAA="}},  # 8 bytes for 16
        {"$pickle": "gASVAAAA"},  # no such tag
        {"$tuple": [], "$set": []},  # two tags
        {"$dict": [[[1], 2]]},  # unhashable key
    ],
)
def test_decoding_refuses_what_is_not_a_value(message):
    with pytest.raises(wire.ProtocolError):
        wire.decode(message, lambda ref: pytest.fail("no refs here"))


# --- the decoder's limits: every byte from the kernel is hostile; sizes are checked first


def no_resolve(ref):
    pytest.fail("no refs here")


def decode_peak(message, **budget):
    """Decode ``message``; (what it raised, the peak of memory allocated meanwhile, in bytes)."""
    import tracemalloc

    tracemalloc.start()
    try:
        wire.decode(message, no_resolve, 0, wire.Budget(**budget))
        raised = None
    except BaseException as e:  # ProtocolError and TimedOut are BaseExceptions
        raised = e
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


@pytest.mark.parametrize(
    "message",
    [
        # issue 27's 80-byte message: 1 GiB (here 16 GiB) zero-filled before any check
        {"$array": {"dtype": "<U536870911", "shape": [8], "items": ["a"] * 8}},
        {"$array": {"dtype": "<U65537", "shape": [1], "items": ["a"]}},  # one past MAX_STRING
        {"$tensor": {"dtype": "<f8", "shape": [1 << 20, 1 << 20], "data": ""}},  # 8 TiB of floats
        {"$array": {"dtype": "<f8", "shape": [1 << 26], "data": "AAAA"}},  # 512 MiB > a reply
        {"$array": {"dtype": "|O", "shape": [1 << 40], "items": []}},
        {"$array": {"dtype": "<f8", "shape": [2] * 33, "data": ""}},  # too many dimensions
    ],
)
def test_a_reply_asking_for_too_much_is_refused_before_anything_is_allocated(message):
    raised, peak = decode_peak(message)
    assert isinstance(raised, wire.ProtocolError), f"expected a ProtocolError, got {raised!r}"
    assert peak < 1 << 20, f"{peak} bytes allocated before the reply was refused"


@pytest.mark.parametrize(
    "dtype",
    [
        "|V8",
        "|S5",
        "<M8[s]",
        "<m8",
        "(3,)<f8",
        "[('a', '<f8')]",
        "<U0",
        "<U",
        "float64",
        "<f16",
        "|b2",
        "O; import os",
        7,
    ],
)
def test_only_numeric_bool_bounded_string_and_object_dtypes_cross(dtype):
    with pytest.raises(wire.ProtocolError, match="dtype"):
        wire.decode({"$array": {"dtype": dtype, "shape": [0], "items": []}}, no_resolve)


def test_strings_longer_than_their_dtype_are_refused_not_truncated():
    with pytest.raises(wire.ProtocolError, match="not strings of 2 characters"):
        wire.decode({"$array": {"dtype": "<U2", "shape": [1], "items": ["abc"]}}, no_resolve)


def test_the_budget_is_per_reply_not_per_array():
    """Many arrays that each fit, but not together: the reply is refused at the one that
    overflows, before it is allocated."""
    one = {
        "$array": {
            "dtype": "<f8",
            "shape": [100],
            "data": wire.encode(np.zeros(100), no_refs)["$array"]["data"],
        }
    }
    assert len(wire.decode([one] * 5, no_resolve, 0, wire.Budget(nbytes=8000))) == 5
    raised, _ = decode_peak([one] * 6, nbytes=8000)
    assert isinstance(raised, wire.ProtocolError) and "bigger than" in str(raised)
    raised, _ = decode_peak(list(range(100)), items=50)
    assert isinstance(raised, wire.ProtocolError) and "values" in str(raised)


def test_decoding_stops_at_the_deadline():
    """Integers that all hash alike make a set quadratic to build (30k take 5 s); the
    decoder stops at the test's deadline instead of running on."""
    import time

    colliding = {"$set": [k * (2**61 - 1) for k in range(1, 60_000)]}
    started = time.monotonic()
    raised, _ = decode_peak(colliding, deadline=started + 0.3)
    assert isinstance(raised, wire.TimedOut), f"expected TimedOut, got {raised!r}"
    assert time.monotonic() - started < 1.5


def test_a_line_that_cannot_be_parsed_is_a_protocol_error():
    """A 5,000-digit integer (past Python's int limit), nesting past the recursion limit: a
    ProtocolError, never a ValueError or RecursionError that would end the checker."""
    for line in (
        b'{"re": 1, "value": ' + b"9" * 5000 + b"}\n",
        b'{"re": 1, "value": ' + b"[" * 100_000 + b"\n",
    ):
        r, w = os.pipe()
        os.write(w, line) if len(line) < 60000 else None
        link = wire.Link(r, w, side="checker", peer="submission", serve=None)
        if len(line) >= 60000:
            link.buffer += line
        with pytest.raises(wire.ProtocolError, match="not JSON"):
            link.receive()
        os.close(r)
        os.close(w)


def test_anything_that_goes_wrong_while_decoding_is_a_protocol_error():
    link = wire.Link(0, 1, side="checker", peer="submission", serve=None)
    link.resolve = lambda ref: (_ for _ in ()).throw(
        MemoryError()
    )  # a failure decode did not foresee
    with pytest.raises(wire.ProtocolError, match="MemoryError"):
        link.decode({"$ref": {"side": "kernel", "id": 1}})


def test_the_kernel_measures_a_name_before_encoding_it():
    """A learner's 768 MiB array crosses as a reference at once: it is never copied,
    base64-encoded or serialised to find out that it is too big."""
    import time

    import torch
    from grading import kernel

    link = wire.Link(0, 1, side="kernel", peer="grader", serve=None)
    big = np.zeros((768 << 20) // 8)  # pages never touched: only encoding would touch them
    pieces = [np.zeros(1 << 20)] * 8  # 64 MiB in eight arrays
    tensor = torch.empty((768 << 20) // 4)
    started = time.monotonic()
    for value in (big, pieces, tensor):
        assert "$ref" in kernel.Kernel.encode_name(link, value)
    assert time.monotonic() - started < 0.5
    assert kernel.Kernel.encode_name(link, [1.5, "k1"]) == [1.5, "k1"]

    class Looping(torch.Tensor):  # issue 27: its encoding never ended, every test timed out
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            while True:
                pass

    t = torch.ones(3).as_subclass(Looping)
    got = wire.decode(kernel.Kernel.encode_name(link, t), no_resolve)
    assert type(got) is torch.Tensor and torch.equal(got, torch.ones(3))


def test_exceptions_come_back_by_name_but_never_as_exits():
    assert type(session.exception_from("TypeError", "bad")) is TypeError
    exit_ = session.exception_from("SystemExit", "stop")
    assert isinstance(exit_, session.LearnerError) and not isinstance(exit_, SystemExit)
    assert type(exit_).__name__ == "SystemExit"
    assert isinstance(session.exception_from("not a name!", "x"), session.LearnerError)


# --- the pipe: the test's objects stay in the checker, the learner's copies in the kernel


@pytest.fixture
def linked():
    """A checker link and a kernel (IPython in this process, in a thread) over two pipes."""
    from grading import kernel
    from IPython.core.interactiveshell import InteractiveShell

    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    InteractiveShell.clear_instance()  # a fresh namespace: the shell is a singleton
    k = kernel.Kernel()
    k_link = kernel.KernelLink(
        req_r, rep_w, side="kernel", peer="grader", serve=lambda m: k.serve(k_link, m)
    )

    def serve():
        while True:
            try:
                m = k_link.receive()
            except (wire.Gone, OSError):
                return
            if "op" in m:
                k_link.answer(m)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    c_link = session.CheckerLink(rep_r, req_w)
    yield c_link, k
    os.close(req_w)
    thread.join(timeout=5)
    for fd in (req_r, rep_r, rep_w):
        os.close(fd)


class Module:
    """Stands for an nn.Module a test hands to the learner's function."""

    scale = 3.0

    def __call__(self, x):
        return np.asarray(x) * self.scale

    def parameters(self):
        return [self]


def test_calls_send_copies_and_callbacks_reach_only_what_the_test_handed_over(linked):
    link, k = linked
    assert (
        link.request(
            {
                "op": "run",
                "source": (
                    "def f(x, m):\n    x += 1            # in place: the caller's x?\n    return "
                    "m(x) * m.scale\ndef g(m):\n    return m.parameters()\ndef h(m):\n    return "
                    "m._private\nanswer = [1, 2]"
                ),
            }
        )
        is None
    )
    names = link.request({"op": "names"})
    assert names["answer"] == [1, 2] and callable(names["f"])
    x = np.zeros(3)
    assert np.array_equal(names["f"](x, Module()), np.full(3, 9.0))
    assert np.array_equal(x, np.zeros(3)), "the learner's in-place x += 1 reached the test's array"
    with pytest.raises(Exception, match="not data"):
        names["g"](Module())  # a method of the test's object: not shared
    with pytest.raises(Exception, match="does not share"):
        names["h"](Module())


class Stop(BaseException):
    """Stands for the test's time limit (checker.CaseTimeout) firing inside a callback."""


def test_the_checkers_own_stops_are_not_sent_to_the_kernel(linked):
    """A time limit that fires while the checker serves the learner's callback stops the test;
    it is not handed to the learner's code as an exception it could catch."""
    link, k = linked
    link.request(
        {
            "op": "run",
            "source": "def f(m):\n    try:\n        return m(1)\n    except BaseException:\n"
            "        return 'caught'",
        }
    )

    def stop(x):
        raise Stop()

    with pytest.raises(Stop):
        link.request({"op": "names"})["f"](stop)


def test_the_learners_names_are_fresh_copies_for_every_test(linked):
    link, k = linked
    link.request({"op": "run", "source": "table = [[1, 2], [3, 4]]"})
    first = link.request({"op": "names"})["table"]
    first[0][0] = 99
    assert link.request({"op": "names"})["table"] == [[1, 2], [3, 4]]


# --- the screen


def test_the_setup_cells_start_with_the_markers_the_screen_skips():
    """The markers have one home (grading.screen); the cells that tools/notebooks.py and
    tools/exercises.py write start with them, so the grader skips exactly those."""
    import notebooks

    import exercises

    assert screen.SETUP_MARKERS == (screen.INSTALL_MARKER, screen.SETUP_MARKER)
    assert notebooks.install_cell_source("7.0.0").startswith(screen.INSTALL_MARKER)
    assert notebooks.install_cell_source().startswith(screen.INSTALL_MARKER)
    assert exercises.SETUP_TEMPLATE.startswith(screen.SETUP_MARKER)
    assert exercises.SETUP_MARKER is screen.SETUP_MARKER


def test_the_screen_drops_the_course_cells_and_keeps_every_answer(tmp_path):
    nb = nbformat.read(ROOT / "exercises" / "ex02_embeddings.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("%%time\nfrom math import *\nimport operator"))
    nb.cells.append(nbformat.v4.new_code_cell("def broken(:\n    pass"))
    path = tmp_path / "ex02_embeddings.ipynb"
    nbformat.write(nb, path)
    cells, problems, name = screen.notebook_cells(path)
    sources = [c.source for c in cells]
    assert name == "ex02_embeddings"
    assert not any(
        s.startswith(screen.SETUP_MARKERS) or s.startswith("grader.check") for s in sources
    )
    assert (
        sources[-1].startswith("%%time")
        and sum("otter_answer_cell" in c.metadata.get("tags", []) for c in nb.cells) == 3
    )
    assert (
        len(problems) == 1
        and "has a syntax error (line 1" in problems[0]
        and "it was not run" in problems[0]
    )


# --- the sandbox


@pytest.fixture(scope="module")
def sandboxed():
    s = session.Session(
        sandbox.Limits(),
        sandboxed=True,
        uid=sandbox.kernel_uid(),
        cell_timeout=10,
        preload=["numpy"],
    )
    s.start()
    yield s
    s.close()


def run(s, source):
    outcome = s.run_cell(screen.Cell(1, source, source.splitlines()[0]))
    return outcome.status, outcome.error


@pytest.mark.slow  # runs in the bwrap sandbox
@needs_bwrap
@pytest.mark.parametrize(
    "what, source",
    [
        (
            "the virtualenv is read-only",
            "import site, os\nfor d in site.getsitepackages():\n    try:\n        "
            "open(os.path.join(d, 'x.pth'), 'w')\n    except OSError as e:\n        assert "
            "e.errno == 30, e\n    else:\n        raise AssertionError(d)",
        ),
        (
            "there is no network",
            "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), "
            "timeout=2)\nexcept OSError:\n    pass\nelse:\n    raise AssertionError('connected')",
        ),
        (
            "the working folder is not on sys.path",
            "import os, sys\nassert '' not in sys.path and os.getcwd() not in sys.path, sys.path",
        ),
        (
            "the repository, its zips and other files are not there",
            f"import os\nassert not os.path.exists({str(ROOT / 'exercises')!r})\nroot = "
            f"{str(ROOT)!r}\nassert not os.path.exists(root) or set(os.listdir(root)) <= "
            "{'.venv', 'tutorlib'}, os.listdir(root)",
        ),
        (
            "the kernel is not root, and has a process limit",
            "import os, resource\nassert os.getuid() != 0 and os.geteuid() != 0\n"
            "assert resource.getrlimit(resource.RLIMIT_NPROC)[0] == 256\n"
            "assert resource.getrlimit(resource.RLIMIT_AS)[0] > 0",
        ),
        ("its own process namespace", "import os\nassert os.getpid() < 10, os.getpid()"),
        (
            "a writable scratch folder",
            "open('notes.txt', 'w').write('x')\nopen('/tmp/t', 'w').write('x')",
        ),
    ],
)
def test_the_sandbox(sandboxed, what, source):
    if "NPROC" in source and os.geteuid() != 0:
        pytest.skip("the process limit is set only when the grader runs as root")
    assert run(sandboxed, source) == ("ok", None), what


WITHHOLD_PROBE = """
import importlib.util, pathlib, sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "Withheld"]   # undo the \
kernel's refusal
for module in ("sacrebleu", "tutorlib.efficient"):
    try:
        __import__(module)
    except ImportError as e:
        assert "not available when this exercise is graded" in str(e), e
    else:
        raise AssertionError(module + " was imported")
import tutorlib, tutorlib.attention                  # the rest of tutorlib is there
folder = pathlib.Path(tutorlib.__file__).parent
text = (folder / "efficient.py").read_text()
assert "def tiled_attention" not in text, "the source of tutorlib.efficient is readable"
for pyc in (folder / "__pycache__").glob("efficient.*.pyc"):
    assert b"tiled_attention" not in pyc.read_bytes(), pyc
"""


def test_the_readme_table_of_withheld_modules_is_sandbox_withheld():
    """sandbox.WITHHELD is the one home of what each exercise's kernel does not get; the table
    of exercises/README.md ("withheld when graded", first module named in each row) says the
    same, row for row."""
    import re

    table = {}
    for line in (ROOT / "exercises" / "README.md").read_text().splitlines():
        row = re.match(r"\| (ex\d\d) \|.*\| `([^`]+)`[^|]*\|$", line)
        if row:
            table[row.group(1)] = (row.group(2),)
    assert table == sandbox.WITHHELD


@pytest.mark.slow  # runs in the bwrap sandbox
@needs_bwrap
def test_the_sandbox_withholds_an_exercises_modules_even_from_a_learner_who_undoes_the_refusal():
    """What a question may call (exercises/README.md): exercise 11's kernel has no
    tutorlib.efficient, exercise 10's no sacrebleu: not importable, not readable, not loadable
    from byte-code, even after the kernel's own import hook is removed."""
    import importlib

    importlib.import_module("tutorlib.efficient")  # byte-code exists in __pycache__ to hide
    s = session.Session(
        sandbox.Limits(),
        sandboxed=True,
        uid=sandbox.kernel_uid() + 2,
        cell_timeout=20,
        withhold=("sacrebleu", "tutorlib.efficient"),
    )
    s.start()
    try:
        assert run(s, WITHHOLD_PROBE) == ("ok", None)
    finally:
        s.close()
    assert sandbox.withheld_for("ex11_efficient_attention") == ("tutorlib.efficient",)
    assert sandbox.withheld_for("ex10_decoding") == ("sacrebleu",)
    assert sandbox.withheld_for("ex14_tokenization") == ("tutorlib.tokenizers",)
    assert sandbox.withheld_for("ex15_modern_attention") == ("tutorlib.modern",)
    assert sandbox.withheld_for("ex02_embeddings") == () == sandbox.withheld_for(None)


@pytest.mark.slow  # runs in the bwrap sandbox
@needs_bwrap
def test_a_hanging_cell_is_skipped_and_the_cells_before_it_replayed(sandboxed):
    assert run(sandboxed, "kept = 41") == ("ok", None)
    s = session.Session(
        sandbox.Limits(), sandboxed=True, uid=sandbox.kernel_uid() + 1, cell_timeout=2
    )
    s.start()
    try:
        assert run(s, "kept = 41")[0] == "ok"
        assert run(s, "while True:\n    pass")[0] == "timeout"
        assert run(s, "assert kept == 41")[0] == "ok"
    finally:
        s.close()


# --- the command line


def test_without_bubblewrap_the_grader_refuses_and_says_what_is_lost(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    code = grade.main([str(ROOT / "exercises" / "ex02_embeddings.ipynb"), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--no-sandbox" in err and "apt-get install bubblewrap" in err
    assert "use the network" in err and not list(tmp_path.iterdir())


def test_no_sandbox_still_grades_outside_the_kernel(tmp_path):
    run_ = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            str(ROOT / "exercises" / "solutions" / "ex02_embeddings.ipynb"),
            "--out",
            str(tmp_path),
            "--no-sandbox",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run_.returncode == 0, run_.stderr[-2000:]
    assert "--no-sandbox" in run_.stderr and "use the network" in run_.stderr
    r = json.loads((tmp_path / "ex02_embeddings.json").read_text())
    assert r["points"] == r["of"] == 10, r


@pytest.mark.slow  # otter assign, then grades in the bwrap sandbox
def test_private_masters_build_zips_that_the_grader_uses(tmp_path):
    """An instructor's own variant of exercise 2, kept outside the repository: q1 is worth 6 points
    (2 more on one hidden test) and that hidden test expects something else. The public solution
    loses that test's points."""
    masters, zips = tmp_path / "masters", tmp_path / "zips"
    masters.mkdir()
    nb = nbformat.read(ROOT / "exercises" / "masters" / "ex02_embeddings.ipynb", as_version=4)
    changed = 0
    for c in nb.cells:
        if c.cell_type == "raw" and "name: q1" in c.source:
            c.source, changed = c.source.replace("points: 4", "points: 6"), changed + 1
        if "def test_two_vectors" in c.source:
            # the tests carry their own points: q1's 2 more points go to this one
            c.source = c.source.replace("points: 0.5", "points: 2.5")
            c.source = c.source.replace(
                "assert math.isclose(longer, expected, rel_tol=1e-6)",
                "assert math.isclose(longer, -expected, rel_tol=1e-6)",
            )
            c.source = c.source.replace(
                "multiplying a by 10 changed", "PRIVATE VARIANT: multiplying a by 10 changed"
            )
            changed += 1
    assert changed == 2, "exercise 2's master changed: update this test"
    nbformat.write(nb, masters / "ex02_embeddings.ipynb")
    build = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "exercises.py"),
            "autograder",
            str(masters),
            "--out",
            str(zips),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    assert sorted(p.name for p in zips.iterdir()) == ["ex02_embeddings.zip"]
    submission = tmp_path / "alice" / "ex02_embeddings.ipynb"
    submission.parent.mkdir()
    shutil.copy(ROOT / "exercises" / "solutions" / "ex02_embeddings.ipynb", submission)
    out = tmp_path / "grades"
    graded = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            str(submission),
            "--out",
            str(out),
            "--autograder",
            str(zips),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert graded.returncode == 0, graded.stdout + graded.stderr
    r = json.loads((out / "ex02_embeddings.json").read_text())
    assert r["of"] == 12 and r["questions"]["q1"]["of"] == 6, r
    assert r["points"] < 12 and "PRIVATE VARIANT" in json.dumps(r["questions"]["q1"]), r
    assert (
        not (ROOT / "exercises" / "autograder" / "ex02_embeddings.zip").read_bytes()
        == (zips / "ex02_embeddings.zip").read_bytes()
    )


def test_an_autograder_folder_that_does_not_exist_is_an_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade.main(
            [
                str(ROOT / "exercises" / "ex02_embeddings.ipynb"),
                "--autograder",
                str(tmp_path / "none"),
            ]
        )
    assert "no such folder" in capsys.readouterr().err


def test_checker_reads_otter_test_files_without_otters_package_init():
    name, sources = checker.read_autograder(
        ROOT / "exercises" / "autograder" / "ex02_embeddings.zip"
    )
    tests = checker.load_tests(sources)
    assert name == "ex02_embeddings" and sorted(tests) == ["q1", "q2", "q3"]
    assert [tests[q].possible for q in ("q1", "q2", "q3")] == [4, 3, 3]


@pytest.mark.parametrize(
    "source, binds",
    [
        ('learner_id = "s1"', True),
        ('learner_id: str = "s1"', True),
        ('a, learner_id = 1, "s1"', True),
        ('learner_id += "x"', True),
        ("print(learner_id)", False),
        ('def f():\n    learner_id = "s1"', False),
        ("learner_id = (", False),
    ],
)
def test_the_cell_that_writes_a_pinned_name(source, binds):
    """Issue 32, fault 3: exercise 12 grades the id its cell wrote; which cells write it."""
    assert checker.assigns(source, "learner_id") is binds
    assert checker.PINNED["ex12"] == ("learner_id",)


def test_a_withheld_module_is_not_preloaded():
    """Issue 32, fault 7: ex09 withholds torch; the kernel must not preload torch, nor
    tutorlib.nn, which imports it (its start would fail), while the other exercises still do."""
    assert checker.needs_withheld("torch", ("torch",))
    assert checker.needs_withheld("tutorlib.nn", ("torch",))
    assert not checker.needs_withheld("tutorlib.attention", ("torch",))
    assert not checker.needs_withheld("torch", sandbox.withheld_for("ex07_cross_attention"))
    assert sandbox.withheld_for("ex09_training") == ("torch",)


def test_a_failed_test_says_its_message_as_written():
    """Issue 32, fault 8: otter's _generate_error_message strips the quotes at both ends of a
    message ("softmax_axis' is not ..."); the checker runs each test case itself and hands on
    the message whole, with its quotes and every line."""
    source = (
        "from otter.test_files import test_case\n"
        "OK_FORMAT = False\n"
        'name = "q1"\n'
        "points = 3\n\n"
        "@test_case(points=1)\n"
        "def test_named(env):\n"
        "    assert False, f\"{'softmax_axis'!r} is not the bug of {'carla.m'!r}\"\n\n"
        "@test_case(points=1)\n"
        "def test_two_lines(env):\n"
        "    assert False, \"'first' line\\nsecond 'line'\"\n\n"
        "@test_case(points=1)\n"
        "def test_calls_none(env):\n"
        "    env['f']()\n"
    )
    test_file = checker.load_tests({"q1": source})["q1"]
    got = [checker.run_case(test_file, i, {"f": None}, 5)[1] for i in range(3)]
    assert got == [
        "'softmax_axis' is not the bug of 'carla.m'",
        "'first' line\nsecond 'line'",
        "TypeError: 'NoneType' object is not callable",
    ]


@pytest.mark.slow  # grades in the bwrap sandbox
def test_a_submission_over_its_time_is_stopped_and_the_next_one_still_graded(tmp_path):
    """--timeout kills the checker (and its kernel) on a submission that overruns, says so, and a
    fresh checker grades the next submission."""
    slow = (
        ROOT / "tests" / "submissions" / "ex02" / "broken_loop_cell.ipynb"
    )  # a cell loops forever
    good = ROOT / "exercises" / "solutions" / "ex02_embeddings.ipynb"
    run_ = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            str(slow),
            str(good),
            "--out",
            str(tmp_path),
            "--jobs",
            "1",
            "--timeout",
            "15",
            "--cell-timeout",
            "120",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run_.returncode == 0, run_.stderr[-2000:]
    stopped = json.loads((tmp_path / "broken_loop_cell.json").read_text())
    assert (
        stopped["status"] == "error" and "grading took longer than 15 s" in stopped["messages"][0]
    ), stopped
    graded = json.loads((tmp_path / "ex02_embeddings.json").read_text())
    assert graded["status"] == "graded" and graded["points"] == 10, graded


def test_read_only_paths_under_tmp_stay_visible_above_the_private_tmp(monkeypatch, tmp_path):
    """A checkout in /tmp (CI's may be) keeps its virtualenv visible: the private /tmp is
    mounted first and the read-only paths on top, never the other way round."""
    venv = "/tmp/some-checkout/.venv"
    monkeypatch.setattr(sandbox, "read_only_paths", lambda: ["/usr", venv])
    cmd = sandbox.command(tmp_path, 3, 4, sandbox.Limits(), 12345)
    binds = [(i, cmd[i + 2]) for i, a in enumerate(cmd) if a in ("--bind", "--ro-bind")]
    tmp_at = next(i for i, dest in binds if dest == "/tmp")
    venv_at = next(i for i, dest in binds if dest == venv)
    assert tmp_at < venv_at, f"/tmp is mounted after {venv}, hiding it: {cmd[:20]}"


def test_links_in_a_folder_of_submissions_are_listed_and_refused(tmp_path):
    """An archive unpacked with ``unzip`` keeps its symbolic links: a link to a notebook, a link
    to a folder of them, a link to a file of the machine. Each is refused, none is read."""
    from grading import batch

    secret = tmp_path / "private.txt"
    secret.write_text("SECRET")
    real = tmp_path / "elsewhere"
    real.mkdir()
    shutil.copy(ROOT / "exercises" / "ex01_why_attention.ipynb", real / "ex01_a.ipynb")
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    shutil.copy(
        ROOT / "exercises" / "ex01_why_attention.ipynb", subs / "alice" / "ex01_alice.ipynb"
    )
    os.symlink(
        ROOT / "exercises" / "solutions" / "ex01_why_attention.ipynb", subs / "ex01_bob.ipynb"
    )
    os.symlink(secret, subs / "ex01_carol.ipynb")
    os.symlink(real, subs / "dave")
    found = batch.find_submissions([str(subs)])
    names = sorted(p.name for p in found)
    assert names == ["dave", "ex01_alice.ipynb", "ex01_bob.ipynb", "ex01_carol.ipynb"], names
    refused = {p.name for p in found if batch.symbolic_link(p, [str(subs)]) is not None}
    assert refused == {"dave", "ex01_bob.ipynb", "ex01_carol.ipynb"}
    opts = type(
        "Opts", (), {"paths": [str(subs)], "exercise": None, "autograder": str(batch.AUTOGRADER)}
    )()
    r = batch.grade_one(subs / "ex01_carol.ipynb", opts, None, tmp_path)
    assert (
        r["status"] == "refused"
        and "symbolic link" in r["messages"][0]
        and "SECRET" not in json.dumps(r)
    )


def test_the_checker_runs_under_its_own_limits():
    """The checker never runs a submission's code, but it parses its output: its own address
    space, file size, open files and CPU time are bounded, so a reply that got past wire's
    checks still fails with a MemoryError (which costs that test) instead of taking the host."""
    probe = (
        "import resource, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "from grading import checker\n"
        "checker.set_own_limits(1024)\n"
        "checker.limit_cpu(300)\n"
        "assert resource.getrlimit(resource.RLIMIT_AS)[0] == 1024 << 20\n"
        "assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == checker.CHECKER_FILE_BYTES\n"
        "assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] <= checker.CHECKER_FILES\n"
        "assert 300 < resource.getrlimit(resource.RLIMIT_CPU)[0] < 400\n"
        "try:\n"
        "    bytearray(2 << 30)\n"
        "except MemoryError:\n"
        "    print('refused')\n"
    )
    run_ = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run_.returncode == 0 and run_.stdout.strip() == "refused", (
        run_.stdout + run_.stderr[-2000:]
    )


def test_a_submodule_of_a_shared_module_can_be_called(linked):
    """Issue 32, fault 9: chapter 8 calls feed_forward.linear1 and .linear2; a learner who does
    the same with the module a test hands over gets the submodule to call, and still none of its
    methods."""
    import torch

    link, k = linked
    link.request(
        {
            "op": "run",
            "source": "def f(ff, x):\n    return ff.linear2(ff.linear1(x))\n"
            "def g(ff):\n    return ff.linear1.parameters()",
        }
    )
    names = link.request({"op": "names"})
    torch.manual_seed(0)
    ff = torch.nn.Module()
    ff.linear1, ff.linear2 = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
    x = torch.randn(5, 3)
    with torch.no_grad():
        want = ff.linear2(ff.linear1(x))
    assert torch.allclose(torch.as_tensor(names["f"](ff, x)), want)
    with pytest.raises(Exception, match="not data"):
        names["g"](ff)
