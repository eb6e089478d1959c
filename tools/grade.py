"""Grade exercise submissions: one notebook, or a folder of them, without Docker.

    python tools/grade.py SUBMISSION.ipynb|FOLDER ... [--out DIR] [--jobs N]

Each submission is graded in its own process, under a memory limit (RLIMIT_AS) and a wall-time
limit, against the hidden tests of its exercise's autograder zip (exercises/autograder/exNN_*.zip,
the bundle ``otter assign`` writes and ``otter run -a`` reads). The exercise comes from the file
name (``exNN_...ipynb``), else from a parent folder named ``exNN...``, else from the notebook's
otter metadata; ``--exercise`` overrides all three. Writes ``DIR/<name>.json`` per submission
(points per question, the feedback of every failed test, what went wrong in the notebook) and
``DIR/summary.csv``, and prints a table. Default DIR: ``grades/`` in the current folder.

How a submission is graded (exercises/README.md has the full story):

1. **Screened, never trusted.** Only the code cells are kept; outputs, metadata, the test cells
   (``grader.check``) and the setup cells are dropped. A cell that uses what no exercise needs and
   a cheat would (changing a library's attributes, ``exec``/``eval``/``setattr``/``globals()``,
   frame or interpreter introspection, ``os._exit``, subprocesses, IPython magics, importing otter)
   is not run, and the JSON says which cell and why.
2. **Run in a fresh kernel** (a Jupyter kernel started by a worker process), cell by cell, each
   under a time limit. A cell that raises is reported and the next one runs (points for what
   works); a cell that hangs or kills the kernel (infinite loop, ``os._exit``, a crash, a memory
   bomb) is skipped: the kernel restarts and replays the cells before it. Output is capped.
3. **Tested fresh.** Before the submission runs, the kernel loads the tests from the zip and takes
   a snapshot of numpy, torch, tutorlib, otter, math and builtins (module attributes, classes,
   function code, tutorlib's data). Then, test case by test case: any change to those is undone
   and reported, the test runs with otter's test-file classes in a copy of the notebook's
   namespace where ``np``, ``math`` (and ``torch``) are the real modules, and a change made while
   it runs zeroes its question. Each result comes back on one output line marked with a random
   token chosen after the submission ran; a second such line (a forged one) fails the test.

Nothing the submission prints, writes to disk, or stores in its metadata is read as a grade.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import queue
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AUTOGRADER = ROOT / "exercises" / "autograder"

# Defaults (override on the command line). A submission of the course's exercises takes a few
# seconds; the limits are there for the broken ones.
CELL_TIMEOUT = 20          # seconds per notebook cell, and per question's tests
SUBMISSION_TIMEOUT = 300   # seconds for one whole submission (all cells, restarts and tests)
MEMORY_MB = 6144           # address-space limit of the worker and its kernel (torch maps ~2 GB)
OUTPUT_LIMIT = 1_000_000   # bytes of output a submission may print in total; the rest is dropped
FILE_LIMIT = 64 << 20      # largest file the worker or the kernel may write (RLIMIT_FSIZE)
ATTEMPTS = 3               # worker runs per submission when a run is killed (each skips what hung)

# First lines of the generated notebooks' setup cells (tools/exercises.py): never run by the grader.
SETUP_MARKERS = ("# Colab, Binder or a fresh Jupyter: install", "# Check your answers in place:")


# =============================================================================================
# 1. Screening: which cells may run


FORBIDDEN_IMPORTS = {
    "otter", "ctypes", "cffi", "gc", "inspect", "traceback", "importlib", "imp", "builtins",
    "__builtin__", "__main__", "IPython", "ipykernel", "jupyter_client", "zmq", "subprocess",
    "multiprocessing", "concurrent", "threading", "_thread", "signal", "pty", "pdb", "bdb", "code",
    "codeop", "runpy", "marshal", "pickle", "_pickle", "dill", "cloudpickle", "shelve", "copyreg",
    "socket", "site", "sysconfig", "resource", "mmap", "faulthandler", "tracemalloc", "operator",
    "atexit", "asyncio", "sched", "shutil", "tempfile", "posix", "nt", "_posixsubprocess",
}
FORBIDDEN_NAMES = {
    "__import__", "exec", "eval", "compile", "globals", "locals", "vars", "setattr", "getattr",
    "delattr", "breakpoint", "get_ipython", "exit", "quit", "__builtins__", "__loader__", "__spec__",
    "In", "Out", "_ih", "_oh", "_dh", "_i", "_ii", "_iii", "memoryview",
}
ALLOWED_DUNDERS = {"__init__", "__name__", "__doc__", "__len__", "__call__", "__repr__", "__str__",
                   "__version__", "__qualname__", "__future__"}
FORBIDDEN_ATTRS = {
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next",
    "gi_frame", "gi_code", "cr_frame", "ag_frame", "co_code", "func_globals",
    "_getframe", "_current_frames", "settrace", "setprofile", "_exit", "kill", "killpg", "fork",
    "forkpty", "system", "popen", "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp",
    "execvpe", "spawnl", "spawnle", "spawnv", "spawnve", "spawnlp", "spawnvp", "posix_spawn",
    "setsid", "setpgid", "dup2", "abort", "attrgetter", "methodcaller", "_inner",
}
SYS_ONLY_ATTRS = {"modules", "meta_path", "path_hooks", "displayhook", "excepthook"}   # harmless on other objects


@dataclass
class Cell:
    number: int          # 1-based position in the notebook (markdown cells count)
    source: str          # what the kernel runs
    first_line: str

    def label(self) -> str:
        return f'cell {self.number} ("{self.first_line[:50]}")'


def _interactive_python(source: str) -> str:
    """The Python a notebook cell runs (IPython's magics and shell escapes turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name.split(".")[0]) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {(a.asname or a.name) for a in node.names}
    return names


def screen(source: str, library_names: set[str]) -> str | None:
    """Why this cell may not run (None if it may). ``library_names``: names bound to imports
    anywhere in the notebook, and aliases of them."""
    code = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith("%matplotlib"))
    try:
        tree = ast.parse(_interactive_python(code))
    except SyntaxError as e:
        return f"has a syntax error (line {e.lineno}: {e.msg})"
    except Exception as e:  # IPython could not transform it
        return f"could not be read as Python ({type(e).__name__}: {e})"
    if any(isinstance(n, ast.Name) and n.id == "get_ipython" for n in ast.walk(tree)):
        return "uses IPython magics or shell commands (% or !), which the grader does not run"
    # aliases of libraries, e.g. `m = np.linalg`, count as the library
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            value = node.value
            if value is not None and not isinstance(value, ast.Call) and _root_name(value) in library_names:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                library_names |= {t.id for t in targets if isinstance(t, ast.Name)}
    sys_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
                 if a.name == "sys"} | {"sys"}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in modules:
                if m.split(".")[0] in FORBIDDEN_IMPORTS:
                    return f"imports {m} (line {line}), which a submission may not use"
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name in FORBIDDEN_ATTRS | SYS_ONLY_ATTRS or a.name == "*" or a.name.startswith("__"):
                        return f"imports {a.name} from {node.module} (line {line}), which a submission may not use"
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            return f"uses {node.id} (line {line}), which a submission may not use"
        elif isinstance(node, ast.Name) and re.fullmatch(r"_i?\d+", node.id):
            return f"reads IPython's history ({node.id}, line {line})"
        elif isinstance(node, ast.Attribute):
            a = node.attr
            on_sys = isinstance(node.value, ast.Name) and node.value.id in sys_names and a in SYS_ONLY_ATTRS
            if (a.startswith("__") and a.endswith("__") and a not in ALLOWED_DUNDERS) or a in FORBIDDEN_ATTRS or on_sys:
                if a == "_exit":
                    return f"calls os._exit (line {line}), which would stop the grader"
                return f"uses .{a} (line {line}), which a submission may not use"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "/proc/" in node.value or "/dev/fd" in node.value:
                return f"refers to {node.value!r} (line {line})"
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if root in library_names:
                target = ast.unparse(node)
                return f"changes {target} (line {line}): a submission may not change a library or its data"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            continue
    return None


def notebook_cells(path: Path) -> tuple[list[Cell], list[str], str | None]:
    """The code cells to run, the problems found while screening them, and the notebook's
    assignment name (from its otter metadata, if any)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    name = (nb.metadata.get("otter") or {}).get("assignment_name")
    raw = []
    for i, c in enumerate(nb.cells, start=1):
        if c.get("cell_type") != "code":
            continue
        src = c.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        stripped = src.strip()
        if not stripped or stripped.startswith(SETUP_MARKERS):
            continue
        if re.fullmatch(r"(grader\.(check|check_all|export)\([^()]*\)\s*;?\s*)+", stripped):
            continue
        first = next((l.strip() for l in src.splitlines() if l.strip()), "")
        raw.append(Cell(i, src, first))
    library = set()
    for cell in raw:
        try:
            library |= _imported_names(ast.parse(_interactive_python(cell.source)))
        except Exception:
            pass
    cells, problems = [], []
    for cell in raw:
        why = screen(cell.source, library)
        if why is None:
            cells.append(cell)
        else:
            problems.append(f"{cell.label()} {why}: it was not run")
    return cells, problems, name


# =============================================================================================
# 2. Inside the kernel: the guard and the test runner (sent as source, run before any student cell)

KERNEL_PRELUDE = r'''
def _make_grader(tests, nonce, output_limit, guard_torch):
    import builtins, io, json, math, os, sys, types
    import numpy, numpy.linalg, numpy.testing
    import tutorlib, tutorlib.attention, tutorlib.examples
    import warnings
    from otter.test_files import ExceptionTestFile, OKTestFile
    from otter.test_files.abstract_test import TestCaseResult
    from otter.test_files.ok_test import run_doctest
    aliases = {"np": numpy, "numpy": numpy, "math": math}
    if guard_torch:
        import torch, torch.nn, torch.nn.functional, tutorlib.nn
        aliases.update({"torch": torch, "nn": torch.nn, "F": torch.nn.functional})

    _dict, _id, _isinstance, _type, _len, _str, _list = dict, id, isinstance, type, len, str, list
    _setattr, _getattr, _hasattr, _sorted, _repr = setattr, getattr, hasattr, sorted, repr
    _FunctionType, _ModuleType = types.FunctionType, types.ModuleType
    _dumps, _modules = json.dumps, sys.modules
    _BaseException, _Exception, _round, _sum = BaseException, Exception, round, sum

    # -- output cap: the kernel forwards at most output_limit bytes of prints
    real_out, real_err = sys.stdout, sys.stderr
    class Capped(io.TextIOBase):
        budget = [output_limit]
        def __init__(self, inner):
            self._inner = inner
        def write(self, s):
            s = _str(s)
            if self.budget[0] > 0:
                self._inner.write(s[: self.budget[0]])
            self.budget[0] -= _len(s)
            return _len(s)
        def flush(self):
            self._inner.flush()
        def __getattr__(self, name):   # set_parent and the rest of ipykernel's stream API
            return _getattr(self._inner, name)
    sys.stdout, sys.stderr = Capped(real_out), Capped(real_err)
    capped_out, capped_err = sys.stdout, sys.stderr

    # -- tests, loaded before the submission runs
    loaded = {}
    for name, source in tests.items():
        env = {}
        exec(compile(source, f"tests/{name}.py", "exec"), env)
        if env.get("OK_FORMAT"):
            loaded[name] = OKTestFile.from_spec(env["test"], path=f"tests/{name}.py")
        else:
            loaded[name] = ExceptionTestFile.from_string(source, path=f"tests/{name}.py")

    # -- snapshot of what tests rely on
    prefixes = ("builtins", "math", "cmath", "numpy", "tutorlib", "otter", "json", "random", "functools",
                "itertools", "copy", "types", "inspect", "traceback", "doctest", "re", "collections",
                "fractions", "decimal", "statistics") + (("torch",) if guard_torch else ())
    volatile = {"__warningregistry__", "_abc_impl", "__slotnames__", "__abstractmethods__", "input"}
    modules, classes, functions, seen = [], [], [], set()
    def watch_function(f):
        if _type(f) is _FunctionType and _id(f) not in seen:
            seen.add(_id(f))
            functions.append((f, f.__code__, f.__defaults__, f.__kwdefaults__))
    def watch_class(c):
        if _id(c) in seen or not _str(_getattr(c, "__module__", "")).startswith(prefixes):
            return
        seen.add(_id(c))
        if c.__flags__ & (1 << 8):   # immutable (builtin) type: nothing to patch
            return
        d = _dict(c.__dict__)
        classes.append((c, d))
        for v in d.values():
            watch_function(v)
            if _isinstance(v, (staticmethod, classmethod)):
                watch_function(v.__func__)
    warnings_off = warnings.catch_warnings()
    warnings_off.__enter__()
    warnings.simplefilter("ignore")
    for mname, m in _sorted(_modules.items()):
        if m is None or not mname.split(".")[0] in prefixes or not _isinstance(m, _ModuleType):
            continue
        d = _dict(vars(m))
        modules.append((mname, m, d))
        for v in d.values():
            watch_function(v)
            if _isinstance(v, _type):
                watch_class(v)
    for c in (ExceptionTestFile, OKTestFile, TestCaseResult):
        watch_class(c)
    # tutorlib's data (the course's worked numbers): a copy, and a fingerprint to notice in-place edits
    import copy, pickle
    _deepcopy, _pickle = copy.deepcopy, pickle.dumps
    data = []
    for mname, m, d in modules:
        if mname.split(".")[0] == "tutorlib":
            for k, v in d.items():
                if _isinstance(v, (_dict, _list, tuple, set, numpy.ndarray)) and not k.startswith("__"):
                    try:
                        data.append((m, d, mname, k, _deepcopy(v), _pickle(v)))
                    except _Exception:
                        pass
    warnings_off.__exit__(None, None, None)

    def restore():
        """Undo every change to the watched modules, classes and functions; say what changed."""
        changed = []
        for mname, m, d in modules:
            if _modules.get(mname) is not m:
                _modules[mname] = m
                changed.append(f"sys.modules[{mname!r}]")
            live = vars(m)
            for k, v in d.items():
                if live.get(k, live) is not v and k not in volatile:
                    live[k] = v
                    changed.append(f"{mname}.{k}")
        for c, d in classes:
            live = c.__dict__
            for k in _list(live):
                if k not in d and k not in volatile:
                    type.__delattr__(c, k)
                    changed.append(f"{c.__module__}.{c.__qualname__}.{k}")
            for k, v in d.items():
                if live.get(k, live) is not v and k not in volatile:
                    type.__setattr__(c, k, v)
                    changed.append(f"{c.__module__}.{c.__qualname__}.{k}")
        for f, code, defaults, kwdefaults in functions:
            if f.__code__ is not code or f.__defaults__ is not defaults or f.__kwdefaults__ is not kwdefaults:
                f.__code__, f.__defaults__, f.__kwdefaults__ = code, defaults, kwdefaults
                changed.append(f"{f.__module__}.{f.__qualname__}")
        for m, d, mname, k, original, fingerprint in data:
            try:
                same = _pickle(vars(m).get(k)) == fingerprint
            except _BaseException:
                same = False
            if not same:   # a fresh copy, which the module snapshot now expects too
                vars(m)[k] = d[k] = _deepcopy(original)
                changed.append(f"{mname}.{k}")
        if sys.stdout is not capped_out or sys.stderr is not capped_err:
            sys.stdout, sys.stderr = capped_out, capped_err
            changed.append("sys.stdout")
        return changed

    def message_of(text):
        """The line of a failed test's report a learner can act on."""
        lines = [l.strip() for l in _str(text).splitlines() if l.strip()]
        for l in reversed(lines):
            if l.startswith("AssertionError:") and l != "AssertionError:":
                return l[len("AssertionError:"):].strip()
        for l in reversed(lines):
            head = l.split(":", 1)[0]
            if head.isidentifier() and (head.endswith(("Error", "Exception", "Exit", "Interrupt", "Warning"))):
                return l
        return lines[-1] if lines else "failed"

    def run_case(name, i, user_ns, token):
        """Run test case i of question ``name`` against a copy of the notebook's namespace."""
        changed_before = restore()
        env = {k: v for k, v in user_ns.items() if not k.startswith("_grader_")}
        env.update(aliases)
        tf = loaded[name]
        tc = tf.test_cases[i]
        try:
            if _isinstance(tf, ExceptionTestFile):
                try:
                    tc.body.call_func(env)
                    passed, text = True, ""
                except _BaseException as e:
                    passed = False
                    try:
                        text = tf._generate_error_message(e)
                    except _BaseException:
                        text = f"{_type(e).__name__}: {e}"
            else:
                passed, text = run_doctest(f"{name} {i}", tc.body, env)
                passed = passed is True
        except _BaseException as e:
            passed, text = False, f"{_type(e).__name__}: {e}"
        changed_during = restore()
        report = {"passed": passed and not changed_during, "message": "" if passed else message_of(text),
                  "changed_before": changed_before, "changed_during": changed_during,
                  "printed": output_limit - Capped.budget[0]}
        real_out.write("\n" + token + " " + _dumps(report) + "\n")
        real_out.flush()

    def info():
        return {n: {"of": float(tf.possible), "all_or_nothing": bool(getattr(tf, "all_or_nothing", False)),
                    "cases": [{"name": _str(tc.name or f"{n} {i}"), "hidden": bool(tc.hidden), "points": float(tc.points)}
                              for i, tc in enumerate(tf.test_cases)]}
                for n, tf in loaded.items()}

    return types.SimpleNamespace(run_case=run_case, info=info, restore=restore)
'''


class KernelGone(Exception):
    pass


@dataclass
class Outcome:
    status: str = "ok"                 # ok | error | timeout | dead
    error: tuple[str, str] | None = None
    printed: int = 0                   # characters of output
    marked: list[str] = field(default_factory=list)   # lines carrying the token


class Kernel:
    """A Jupyter kernel for one submission, run in ``workdir``."""

    def __init__(self, workdir: Path, env: dict[str, str], sockets: Path):
        from jupyter_client import KernelManager

        # Unix sockets rather than TCP ports: no port races between parallel graders, nothing on the network.
        self.km = KernelManager(kernel_name="python3", transport="ipc", ip=str(sockets / "kernel"),
                                connection_file=str(sockets / "kernel.json"))
        self.km.start_kernel(cwd=str(workdir), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=60)
        except RuntimeError as e:
            self.close()
            raise KernelGone(str(e))

    def run(self, code: str, timeout: float, token: str | None = None, history: bool = True) -> Outcome:
        msg_id = self.kc.execute(code, store_history=history, allow_stdin=False, stop_on_error=False)
        deadline = time.monotonic() + timeout
        out = Outcome()
        pieces, kept = [], 0       # the text of a cell run with a token, to find its marked lines
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                out.status = "timeout"
                return out
            try:
                msg = self.kc.get_iopub_msg(timeout=min(left, 0.25))
            except queue.Empty:
                if not self.km.is_alive():
                    out.status = "dead"
                    return out
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                text = content.get("text", "")
                out.printed += len(text)
                if token and kept < 4 * OUTPUT_LIMIT:
                    pieces.append(text)
                    kept += len(text)
            elif kind in ("execute_result", "display_data"):
                out.printed += len(json.dumps(content.get("data", {})))
            elif kind == "error":
                out.error = (content.get("ename", "Error"), content.get("evalue", ""))
            elif kind == "status" and content.get("execution_state") == "idle":
                out.status = "error" if out.error else "ok"
                if token:
                    out.marked = [l for l in "".join(pieces).splitlines() if token in l]
                return out

    def close(self):
        try:
            self.kc.stop_channels()
        except Exception:
            pass
        try:
            self.km.shutdown_kernel(now=True)
        except Exception:
            pass


# =============================================================================================
# 3. The worker: grades one submission (run by the batch in a limited child process)


def read_autograder(path: Path) -> tuple[str | None, dict[str, str]]:
    with zipfile.ZipFile(path) as zf:
        config = json.loads(zf.read("otter_config.json")) if "otter_config.json" in zf.namelist() else {}
        tests = {n[len("tests/"):-3]: zf.read(n).decode() for n in sorted(zf.namelist())
                 if re.fullmatch(r"tests/[^/]+\.py", n)}
    return config.get("assignment_name"), tests


def kernel_env(workdir: Path) -> dict[str, str]:
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(workdir), "TMPDIR": str(workdir), "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    for keep in ("VIRTUAL_ENV", "PYTHONPATH"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    return env


def worker(args) -> int:
    progress = open(args.progress, "a", buffering=1)

    def note(event: str):
        progress.write(event + "\n")

    name, tests = read_autograder(Path(args.zip))
    result = {"questions": {}, "messages": [], "integrity": []}
    try:
        cells, problems, nb_name = notebook_cells(Path(args.submission))
    except Exception as e:
        result["messages"].append(f"not a notebook that can be read: {type(e).__name__}: {e}")
        cells, problems, nb_name = [], [], None
    result["messages"] += problems
    if nb_name and name and nb_name != name:
        result["messages"].append(f"this notebook says it is {nb_name}; it was graded as {name}")
    skip_cells = set(args.skip_cells or [])
    skip_cases = set(args.skip_cases or [])
    cells = [c for c in cells if c.number not in skip_cells]

    guard_torch = any("torch" in t for t in tests.values()) or any(
        re.search(r"\b(import|from)\s+torch\b|tutorlib\.nn|from tutorlib import nn", c.source) for c in cells)
    scratch = Path(tempfile.mkdtemp(prefix="grade-"))
    workdir, sockets = scratch / "run", scratch / "kernel"
    workdir.mkdir()
    sockets.mkdir(mode=0o700)
    env = kernel_env(workdir)
    grader = "_grader_" + secrets.token_hex(8)
    setup = (KERNEL_PRELUDE + f"\n{grader} = _make_grader({tests!r}, None, {OUTPUT_LIMIT}, {guard_torch!r})\n"
             f"del _make_grader\n")
    kernel = None
    good: list[Cell] = []
    info: dict[str, dict] = {}

    def start() -> Kernel:
        for attempt in range(3):
            try:
                k = Kernel(workdir, env, sockets)
                break
            except KernelGone:
                if attempt == 2:
                    raise
                time.sleep(1)
        note(f"kernel {k.km.provisioner.pid}")   # its own session: the batch kills it if this worker dies
        token = secrets.token_hex(16)
        o = k.run(setup + f"print({token!r}, __import__('json').dumps({grader}.info()))",
                  timeout=120, token=token, history=False)
        if o.status != "ok" or len(o.marked) != 1:
            k.close()
            raise RuntimeError(f"the grader could not set up its kernel: {o.status} {o.error}")
        info.update(json.loads(o.marked[0].split(token, 1)[1]))
        return k

    def replay() -> Kernel:
        k = start()
        for c in good:
            o = k.run(c.source, timeout=args.cell_timeout)
            if o.status in ("timeout", "dead"):   # it ran before: the submission is not deterministic
                k.close()
                raise RuntimeError(f"{c.label()} behaved differently when run again")
        return k

    def empty(q: str, message: str) -> dict:
        return {"points": 0.0, "of": info.get(q, {}).get("of", 0.0), "cases": [], "messages": [message]}

    printed = 0
    status = "error"
    try:
        kernel = start()
        for c in cells:
            note(f"cell {c.number}")
            o = kernel.run(c.source, timeout=args.cell_timeout)
            printed += o.printed
            if o.status in ("ok", "error"):
                good.append(c)
                if o.error:
                    result["messages"].append(f"{c.label()} raised {o.error[0]}: {o.error[1]}"[:500])
                continue
            if o.status == "timeout":
                result["messages"].append(
                    f"{c.label()} ran longer than {args.cell_timeout:g} s (an infinite loop?): it was stopped and skipped")
            else:
                result["messages"].append(
                    f"{c.label()} stopped the Python process (os._exit, a crash, or too much memory): it was skipped")
            kernel.close()
            kernel = replay()
        changed_before: set[str] = set()
        for q in sorted(tests):
            cases, changed_during = [], set()
            for i, case in enumerate(info[q]["cases"]):
                outcome = dict(case, passed=False, message="")
                cases.append(outcome)
                if f"{q}:{i}" in skip_cases:
                    outcome["message"] = "this test never finished (the grading run was stopped)"
                    continue
                note(f"case {q}:{i}")
                token = secrets.token_hex(16)
                o = kernel.run(f"{grader}.run_case({q!r}, {i}, globals(), {token!r})", timeout=args.cell_timeout,
                               token=token, history=False)
                if o.status in ("timeout", "dead"):
                    outcome["message"] = (
                        f"this test did not finish in {args.cell_timeout:g} s: does your code loop forever?"
                        if o.status == "timeout" else
                        "this test stopped the Python process (os._exit, a crash, or too much memory)")
                    kernel.close()
                    kernel = replay()
                elif len(o.marked) > 1:
                    outcome["message"] = "the submission printed a forged grader report"
                    changed_during.add("the grader's report (forged)")
                elif len(o.marked) == 0:
                    outcome["message"] = f"the test could not report ({o.error and o.error[0]}: {o.error and o.error[1]})"
                else:
                    report = json.loads(o.marked[0].split(token, 1)[1])
                    outcome["passed"], outcome["message"] = report["passed"], report["message"]
                    printed = max(printed, report["printed"])
                    changed_before |= set(report["changed_before"])
                    changed_during |= set(report["changed_during"])
            points = sum(c["points"] for c in cases if c["passed"])
            if info[q]["all_or_nothing"] and not all(c["passed"] for c in cases):
                points = 0.0
            messages = list(dict.fromkeys(c["message"] for c in cases if not c["passed"] and c["message"]))
            if changed_during:
                what = ", ".join(sorted(changed_during)[:8])
                points = 0.0
                messages.insert(0, f"{q} scores 0: while its tests ran, the submission changed {what}")
                result["integrity"].append(f"{q}: changed {what} while the tests ran")
            result["questions"][q] = {"points": round(points, 6), "of": info[q]["of"], "cases": cases,
                                      "messages": messages}
        if printed > OUTPUT_LIMIT:
            result["messages"].append(
                f"the notebook printed {printed / 1e6:.1f} MB of output; the grader kept the first "
                f"{OUTPUT_LIMIT / 1e6:g} MB")
        if changed_before:
            result["integrity"].insert(0, "the notebook changed " + ", ".join(sorted(changed_before)[:8])
                                       + " (undone before the tests ran)")
        status = "graded"
    except Exception as e:
        result["messages"].append(f"grader error: {type(e).__name__}: {e}")
    finally:
        if kernel is not None:
            kernel.close()
        shutil.rmtree(scratch, ignore_errors=True)
    for q in sorted(tests):   # questions the grader never reached
        result["questions"].setdefault(q, empty(q, "not graded"))
    result["integrity"] = list(dict.fromkeys(result["integrity"]))
    result["status"] = status
    Path(args.result).write_text(json.dumps(result))
    note("done")
    return 0


# =============================================================================================
# 4. The batch: one limited worker process per submission


def exercise_of(path: Path, forced: str | None) -> tuple[str | None, Path | None]:
    """(exercise name, autograder zip) for a submission, or (None, None)."""
    def zip_for(prefix: str):
        found = sorted(AUTOGRADER.glob(f"{prefix}*.zip"))
        return (found[0].stem, found[0]) if len(found) == 1 else (None, None)

    if forced:
        if forced.endswith(".zip") and Path(forced).is_file():
            return Path(forced).stem, Path(forced)
        return zip_for(forced if "_" in forced else forced + "_")
    m = re.match(r"(ex\d\d)_", path.name)
    if m:
        return zip_for(m.group(1) + "_")
    for parent in path.resolve().parents:
        m = re.match(r"(ex\d\d)(_|$)", parent.name)
        if m:
            return zip_for(m.group(1) + "_")
    try:
        meta = json.loads(path.read_text()).get("metadata", {}).get("otter", {}).get("assignment_name")
    except Exception:
        meta = None
    if isinstance(meta, str) and re.fullmatch(r"ex\d\d_\w+", meta):
        return zip_for(meta)
    return None, None


def _limits(memory_mb: int):
    def apply():
        os.setsid()
        as_bytes = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _kill_group(proc: subprocess.Popen):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_kernels(progress_file: Path):
    """Kernels run in sessions of their own (jupyter_client's choice): kill any the worker left."""
    for line in progress_file.read_text().splitlines():
        if line.startswith("kernel ") and line.split()[1].isdigit():
            pid = int(line.split()[1])
            try:
                if b"ipykernel_launcher" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    continue
                os.killpg(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass


def grade_one(path: Path, opts) -> dict:
    started = time.monotonic()
    exercise, zip_path = exercise_of(path, opts.exercise)
    base = {"submission": str(path), "exercise": exercise}
    if zip_path is None:
        return {**base, "status": "error", "points": 0.0, "of": 0.0, "questions": {}, "integrity": [],
                "messages": ["cannot tell which exercise this is: name it exNN_..., put it in a folder exNN, "
                             "or pass --exercise"], "seconds": 0.0}
    skip_cells: list[int] = []
    skip_cases: list[str] = []
    notes: list[str] = []
    result = None
    with tempfile.TemporaryDirectory(prefix="grade-batch-") as tmp:
        for attempt in range(ATTEMPTS):
            result_file, progress_file = Path(tmp) / f"result{attempt}.json", Path(tmp) / f"progress{attempt}.txt"
            progress_file.write_text("")
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--zip", str(zip_path),
                   "--submission", str(path.resolve()), "--result", str(result_file), "--progress", str(progress_file),
                   "--cell-timeout", str(opts.cell_timeout)]
            cmd += [a for n in skip_cells for a in ("--skip-cell", str(n))]
            cmd += [a for c in skip_cases for a in ("--skip-case", c)]
            log = open(Path(tmp) / f"worker{attempt}.log", "wb")
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=_limits(opts.memory), cwd=tmp)
            try:
                rc = proc.wait(timeout=opts.timeout)
                why = None if rc == 0 else f"the grading process failed (exit status {rc})"
            except subprocess.TimeoutExpired:
                why = f"grading took longer than {opts.timeout:g} s"
            _kill_group(proc)   # the worker and anything left in its session
            proc.wait()
            _kill_kernels(progress_file)
            log.close()
            if why is None and result_file.is_file():
                result = json.loads(result_file.read_text())
                break
            last = [l.strip() for l in progress_file.read_text().splitlines() if l.startswith(("cell ", "case "))]
            last = last[-1] if last else ""
            if last.startswith("cell "):
                skip_cells.append(int(last.split()[1]))
                notes.append(f"{why} while running cell {last.split()[1]}: it was skipped")
            elif last.startswith("case "):
                skip_cases.append(last.split()[1])
                notes.append(f"{why} while testing {last.split()[1].split(':')[0]}: that test was skipped")
            else:
                tail = (Path(tmp) / f"worker{attempt}.log").read_bytes()[-2000:].decode(errors="replace")
                notes.append(f"{why}: {tail.strip().splitlines()[-1] if tail.strip() else 'no output'}")
                break
    if result is None:
        result = {"status": "error", "questions": {}, "messages": [], "integrity": []}
    result["messages"] = notes + result["messages"]
    questions = result["questions"]
    points = round(sum(q["points"] for q in questions.values()), 6)
    of = round(sum(q["of"] for q in questions.values()), 6)
    return {**base, "status": result["status"], "points": points, "of": of, "questions": questions,
            "messages": result["messages"], "integrity": result["integrity"],
            "seconds": round(time.monotonic() - started, 2)}


def find_submissions(paths: list[str]) -> list[Path]:
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        elif p.is_file():
            found.append(p)
        else:
            raise SystemExit(f"no such file or folder: {p}")
    return found


def _fmt(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def report_names(results: list[dict]) -> list[str]:
    """A JSON file name per submission: its stem, with parent folders added when stems collide."""
    stems = [Path(r["submission"]).stem for r in results]
    names = []
    for r, stem in zip(results, stems):
        if stems.count(stem) > 1:
            parts = Path(r["submission"]).with_suffix("").parts[-3:]
            stem = "__".join(parts)
        names.append(re.sub(r"[^\w.-]", "_", stem))
    return names


def write_reports(results: list[dict], out: Path) -> tuple[Path, list[Path]]:
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for r, name in zip(results, report_names(results)):
        f = out / f"{name}.json"
        f.write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
        files.append(f)
    questions = sorted({q for r in results for q in r["questions"]}, key=lambda q: (len(q), q))
    summary = out / "summary.csv"
    with open(summary, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["submission", "exercise", "points", "of", *questions, "status", "seconds", "integrity", "messages"])
        for r in results:
            w.writerow([r["submission"], r["exercise"] or "", _fmt(r["points"]), _fmt(r["of"]),
                        *[_fmt(r["questions"][q]["points"]) if q in r["questions"] else "" for q in questions],
                        r["status"], r["seconds"], " | ".join(r["integrity"]),
                        " | ".join(r["messages"] + [m for q in r["questions"].values() for m in q["messages"]])[:2000]])
    return summary, files


def table(results: list[dict]) -> str:
    questions = sorted({q for r in results for q in r["questions"]}, key=lambda q: (len(q), q))
    rows = [["submission", *questions, "total", "notes"]]
    for r in results:
        notes = r["integrity"][:1] or [m for q in r["questions"].values() for m in q["messages"]][:1] or r["messages"][:1]
        note = ("! " if r["integrity"] else "") + (notes[0] if notes else "")
        rows.append([Path(r["submission"]).name,
                     *[(_fmt(r["questions"][q]["points"]) + "/" + _fmt(r["questions"][q]["of"])) if q in r["questions"] else "-"
                       for q in questions],
                     f"{_fmt(r['points'])}/{_fmt(r['of'])}" + ("" if r["status"] == "graded" else f" ({r['status']})"),
                     textwrap.shorten(note, 70, placeholder="...")])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row[:-1], widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * min(120, max(len(l) for l in lines)))
    return "\n".join(lines)


def grade_all(paths: list[str], opts) -> list[dict]:
    subs = find_submissions(paths)
    if not subs:
        raise SystemExit("no .ipynb submissions found")
    results = [None] * len(subs)
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        futures = {pool.submit(grade_one, s, opts): i for i, s in enumerate(subs)}
        for fut, i in futures.items():
            results[i] = fut.result()
            if not opts.quiet:
                r = results[i]
                print(f"graded {subs[i]}: {_fmt(r['points'])}/{_fmt(r['of'])} in {r['seconds']:.1f} s", file=sys.stderr)
    return results


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        p = argparse.ArgumentParser()
        p.add_argument("--worker", action="store_true")
        p.add_argument("--zip", required=True)
        p.add_argument("--submission", required=True)
        p.add_argument("--result", required=True)
        p.add_argument("--progress", required=True)
        p.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT)
        p.add_argument("--skip-cell", dest="skip_cells", type=int, action="append")
        p.add_argument("--skip-case", dest="skip_cases", action="append")
        return worker(p.parse_args(argv))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", help="submitted notebooks (.ipynb) and folders of them")
    p.add_argument("--out", default="grades", help="folder for <name>.json and summary.csv (default: grades)")
    p.add_argument("--exercise", help="grade every submission as this exercise (exNN, exNN_topic or a zip)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="submissions graded at once")
    p.add_argument("--timeout", type=float, default=SUBMISSION_TIMEOUT, help="seconds for one submission")
    p.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT, help="seconds for one cell or question")
    p.add_argument("--memory", type=int, default=MEMORY_MB, help="address-space limit in MB")
    p.add_argument("--quiet", action="store_true", help="print only the table")
    opts = p.parse_args(argv)
    results = grade_all(opts.paths, opts)
    summary, _ = write_reports(results, Path(opts.out))
    print(table(results))
    print(f"\nwrote {len(results)} JSON file(s) and {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
