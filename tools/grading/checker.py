"""The checking side: the hidden tests run here, in a process that never runs a submission's code.

    python tools/grade.py --worker [--cell-timeout T] [--memory MB] [--no-sandbox]

(what ``batch`` starts for each job: it grades the submissions sent on its stdin, one after the
other, so that otter's classes, numpy and torch are imported once per checker process). It reads
the tests from the autograder zip with otter's own classes (``ExceptionTestFile`` for test
functions, ``OKTestFile`` for doctests), starts the submission's kernel in the sandbox
(``session``), runs its cells there, then runs each test case **here**, in a namespace built from
the learner's names:

- a value the notebook defined (a number, a string, a list, an array) arrives as data, decoded
  afresh for every test case, so no test sees what an earlier one (or the learner) changed;
- a function or class the notebook defined is a proxy: calling it sends the arguments as data (a
  fresh copy for every call), the kernel runs the learner's function on them and sends the result
  back as data. An object the test hands the function (an ``nn.Module``) stays here: the learner's
  code can call it, and read its public data attributes, through the pipe, and nothing else.

So references are computed from the test's own copies, comparisons run on plain values, and the
score is computed and written here. A patched library, a lying object, a tapped stream or a
replaced object in the kernel can change only the answers the learner's own functions give.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import resource
import signal
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from grading import sandbox, screen, wire
from grading.session import Session

OUTPUT_LIMIT = (
    1_000_000  # bytes of output above which the report says the notebook printed too much
)
CHECKER_MEMORY_MB = (
    3072  # address space of the checker process (numpy, torch and otter map under 1 GB)
)
CHECKER_FILE_BYTES = 64 << 20  # largest file the checker writes (a result: a few KB)
CHECKER_FILES = 1024  # open files of the checker (a kernel's pipes: a handful)


def set_own_limits(memory_mb: int) -> None:
    """The checker's own limits. It never runs a submission's code, but it decodes what the
    kernel sends: a reply that gets past wire's checks still cannot make it allocate more than
    ``memory_mb`` (the allocation fails with a MemoryError, which costs that test). Soft limits
    only: the kernel it starts sets its own (larger address space for torch) from these."""
    for which, value in (
        (resource.RLIMIT_AS, memory_mb << 20),
        (resource.RLIMIT_FSIZE, CHECKER_FILE_BYTES),
        (resource.RLIMIT_NOFILE, CHECKER_FILES),
        (resource.RLIMIT_CORE, 0),
    ):
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, hard))


def limit_cpu(seconds: float) -> None:
    """Give this checker ``seconds`` more of CPU time from now (one submission's worth): past
    it, SIGXCPU ends the checker and the batch reports that submission and starts another."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    value = int(used.ru_utime + used.ru_stime + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (value, hard))


def read_autograder(path: Path) -> tuple[str | None, dict[str, str]]:
    """(assignment name, {question: test file source}) of an otter autograder zip."""
    with zipfile.ZipFile(path) as zf:
        config = (
            json.loads(zf.read("otter_config.json")) if "otter_config.json" in zf.namelist() else {}
        )
        tests = {
            n[len("tests/") : -3]: zf.read(n).decode()
            for n in sorted(zf.namelist())
            if re.fullmatch(r"tests/[^/]+\.py", n)
        }
    return config.get("assignment_name"), tests


def import_otter_test_files():
    """otter's test-file classes, without running otter's package ``__init__`` (which imports
    pandas and the rest of otter: a second per submission). The test files import
    ``otter.test_files`` themselves, and get these same classes."""
    import importlib.util
    import types

    if "otter" not in sys.modules:
        spec = importlib.util.find_spec("otter")
        if spec is not None and spec.submodule_search_locations:
            package = types.ModuleType("otter")
            package.__path__ = list(spec.submodule_search_locations)
            package.__spec__, package.__file__ = spec, spec.origin
            sys.modules["otter"] = package
    import otter.test_files

    return otter.test_files


def load_tests(tests: dict[str, str]) -> dict:
    """otter's test-file objects, built from the instructor's test files (trusted code)."""
    test_files = import_otter_test_files()
    ExceptionTestFile, OKTestFile = test_files.ExceptionTestFile, test_files.OKTestFile

    loaded = {}
    for name, source in tests.items():
        env: dict = {}
        exec(compile(source, f"tests/{name}.py", "exec"), env)
        if env.get("OK_FORMAT"):
            loaded[name] = OKTestFile.from_spec(env["test"], path=f"tests/{name}.py")
        else:
            loaded[name] = ExceptionTestFile.from_string(source, path=f"tests/{name}.py")
    return loaded


def message_of(text: str) -> str:
    """The line of a failed test's report a learner can act on."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("AssertionError:") and line != "AssertionError:":
            return line[len("AssertionError:") :].strip()
    for line in reversed(lines):
        head = line.split(":", 1)[0]
        if head.isidentifier() and head.endswith(
            ("Error", "Exception", "Exit", "Interrupt", "Warning")
        ):
            return line
    return lines[-1] if lines else "failed"


def failure_message(e: BaseException) -> str:
    """What a failed test function says to the learner, as its author wrote it: an assertion's
    message whole (every line, every quote), else the exception's type and text. (otter's
    ``_generate_error_message`` strips the quotes at both ends of the text, so "'softmax_axis'
    is not ..." would reach the learner as "softmax_axis' is not ...".)"""
    text = str(e)
    if isinstance(e, AssertionError) and text.strip():
        return text.strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def real_modules(test_file) -> dict:
    """For doctest-style tests, which read ``np`` and friends from the namespace: the real ones."""
    import numpy

    aliases = {"np": numpy, "numpy": numpy, "math": math}
    if "torch" in sys.modules:
        import torch

        aliases.update({"torch": torch, "nn": torch.nn, "F": torch.nn.functional})
    return aliases


def preloads(sources: dict[str, str], cells: list) -> list[str]:
    """The slow imports of this exercise, done before any cell or test runs, in both processes."""
    text = "\n".join(list(sources.values()) + [c.source for c in cells])
    wanted = ["numpy", "tutorlib", "tutorlib.attention", "tutorlib.examples"]
    if re.search(r"\btorch\b|tutorlib\.nn|from tutorlib import nn", text):
        wanted += ["torch", "tutorlib.nn"]
    return wanted


# what a preloaded module imports that an exercise may withhold (tutorlib.nn is built on torch)
PRELOAD_NEEDS = {"tutorlib.nn": ("torch",)}


def needs_withheld(module: str, withheld: tuple[str, ...]) -> bool:
    """True when ``module`` is, or imports, a module the exercise withholds: the kernel could
    not preload it (its cells that import it fail with the withheld message instead)."""
    names = (module, *PRELOAD_NEEDS.get(module, ()))
    return any(n == w or n.startswith(w + ".") for n in names for w in withheld)


# names an exercise grades as the cell that first writes them left them (issue 32, fault 3):
# ex12 plants each learner's bug by their id, so the id written in question 1's cell is the one
# graded (and printed in the report), not one a later cell changes it to
PINNED = {"ex12": ("learner_id",)}


def assigns(source: str, name: str) -> bool:
    """Whether a cell's Python binds ``name`` at its top level (``name = ...``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Name) and t.id == name:
                    return True
    return False


def pin(pinned: dict, names: tuple, cell, session: Session) -> None:
    """After ``cell`` ran: the first value it gives a pinned name (not ``...`` or None), with
    the cell that wrote it."""
    wanted = [n for n in names if n not in pinned and assigns(cell.source, n)]
    if not wanted:
        return
    env = session.names()
    for n in wanted:
        value = env.get(n)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            pinned[n] = (value, cell.label())


class CaseTimeout(BaseException):
    pass


def _alarm(signum, frame):
    raise CaseTimeout()


def run_case(test_file, i: int, env: dict, seconds: float) -> tuple[bool, str]:
    """Run test case ``i`` of a test file in ``env``; (passed, message). A test that runs past
    ``seconds`` here (not waiting on the kernel) is stopped with CaseTimeout."""
    from otter.test_files import ExceptionTestFile
    from otter.test_files.ok_test import run_doctest

    tc = test_file.test_cases[i]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds + 1)
    try:
        if isinstance(test_file, ExceptionTestFile):
            try:
                tc.body.call_func(env)
                return True, ""
            except Exception as e:
                return False, failure_message(e)
        passed, text = run_doctest(
            f"{test_file.name} {i}", tc.body, {**env, **real_modules(test_file)}
        )
        return passed is True, "" if passed is True else message_of(text)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def grade(submission: Path, zip_path: Path, opts) -> dict:
    """Grade one notebook against one autograder zip: the result the batch reports."""
    name, sources = read_autograder(zip_path)
    result = {"questions": {}, "messages": [], "integrity": []}
    try:
        if submission.is_symlink():  # batch refuses links; a link made since is not followed
            raise screen.NotANotebook("it is a symbolic link")
        cells, problems, nb_name = screen.notebook_cells(submission)
    except Exception as e:
        result["messages"].append(f"not a notebook that can be read: {screen.why_unreadable(e)}")
        cells, problems, nb_name = [], [], None
    result["messages"] += problems
    if nb_name and name and nb_name != name:
        result["messages"].append(f"this notebook says it is {nb_name}; it was graded as {name}")
    limits = sandbox.Limits(memory_mb=opts.memory)
    withhold = sandbox.withheld_for(name)
    preload = [m for m in preloads(sources, cells) if not needs_withheld(m, withhold)]
    session = Session(
        limits,
        sandboxed=not opts.no_sandbox,
        uid=opts.uid,
        cell_timeout=opts.cell_timeout,
        preload=preload,
        withhold=withhold,
    )
    status = "error"
    tests = {}
    try:
        session.spawn()  # the kernel starts and imports what the exercise uses, while
        tests = load_tests(sources)  # this process loads the tests and imports the same (the
        for module in preload:  # tests import them too: not inside a test's time limit)
            __import__(module)
        session.ready()
        pinned_names, pinned = PINNED.get((name or "")[:4], ()), {}
        for c in cells:
            o = session.run_cell(c)
            if o.status == "ok" and pinned_names:
                pin(pinned, pinned_names, c, session)
            if o.status == "error":
                result["messages"].append(f"{c.label()} raised {o.error[0]}: {o.error[1]}"[:500])
            elif o.status == "timeout":
                result["messages"].append(
                    f"{c.label()} ran longer than {opts.cell_timeout:g} s "
                    "(an infinite loop?): it was stopped and skipped"
                )
            elif o.status == "dead":
                result["messages"].append(
                    f"{c.label()} stopped the Python process (os._exit, a crash, "
                    "or too much memory): it was skipped"
                )
        if pinned_names:
            final = session.names()
            result["graded_as"] = {n: pinned[n][0] for n in pinned}
            for n, (value, where) in pinned.items():
                if final.get(n) != value:
                    result["messages"].append(
                        f"{n} was changed after {where} (to {final.get(n)!r}): the notebook "
                        f"was graded as the {n} that cell wrote, {value!r}"
                    )
        pins = {n: v for n, (v, _) in pinned.items()} if pinned_names else {}
        for q in sorted(tests):
            result["questions"][q] = grade_question(
                q, tests[q], session, opts.cell_timeout, result, pins
            )
        printed = session.output()
        if printed > OUTPUT_LIMIT:
            result["messages"].append(
                f"the notebook printed {printed / 1e6:.1f} MB of output; the grader "
                f"only counts it (more than {OUTPUT_LIMIT / 1e6:g} MB is too much)"
            )
        status = "graded"
    except Exception as e:
        result["messages"].append(f"grader error: {type(e).__name__}: {e}")
    finally:
        session.close()
    result["messages"] += session.notes
    for q in sorted(tests or sources):  # questions the grader never reached
        of = float(tests[q].possible) if q in tests else 0.0
        result["questions"].setdefault(
            q, {"points": 0.0, "of": of, "cases": [], "messages": ["not graded"]}
        )
    result["integrity"] = list(dict.fromkeys(result["integrity"]))
    result["status"] = status
    return result


def grade_question(
    q: str, test_file, session: Session, seconds: float, result: dict, pins: dict | None = None
) -> dict:
    """Run every test case of question ``q``; ``pins`` replace the learner's names of the same
    name (PINNED)."""
    cases = []
    for i, tc in enumerate(test_file.test_cases):
        outcome = {
            "name": str(tc.name or f"{q} {i}"),
            "hidden": bool(tc.hidden),
            "points": float(tc.points or 0),
            "passed": False,
            "message": "",
        }
        cases.append(outcome)
        session.link.deadline = time.monotonic() + seconds
        try:
            env = {**session.names(), **(pins or {})}
            outcome["passed"], outcome["message"] = run_case(test_file, i, env, seconds)
        except (wire.TimedOut, CaseTimeout) as e:
            if isinstance(e, wire.TimedOut) and str(e).startswith("decoding"):
                outcome["message"] = (
                    f"the notebook's kernel sent a reply that took more than {seconds:g} s to read"
                )
                result["integrity"].append(
                    f"{q}: the kernel sent a reply that could not be read in time"
                )
            else:
                outcome["message"] = (
                    f"this test did not finish in {seconds:g} s: does your code loop forever?"
                )
            session.restart()
        except wire.Gone:
            outcome["message"] = (
                "this test stopped the Python process (os._exit, a crash, or too much memory)"
            )
            session.restart()
        except (wire.ProtocolError, MemoryError, RecursionError) as e:
            why = (
                str(e)
                if isinstance(e, wire.ProtocolError)
                else f"{type(e).__name__} while reading its reply"
            )
            outcome["message"] = (
                f"the notebook's kernel sent something that is not an answer ({why})"
            )
            result["integrity"].append(f"{q}: the kernel broke the protocol ({why})")
            session.restart()
    points = sum(c["points"] for c in cases if c["passed"])
    if getattr(test_file, "all_or_nothing", False) and not all(c["passed"] for c in cases):
        points = 0.0
    messages = list(dict.fromkeys(c["message"] for c in cases if not c["passed"] and c["message"]))
    return {
        "points": round(points, 6),
        "of": float(test_file.possible),
        "cases": cases,
        "messages": messages,
    }


def main(argv: list[str]) -> int:
    """Serve the batch: grade the submissions it sends on stdin, one JSON line each
    ({"zip", "submission", "result"}), write each result to its file and answer "done"."""
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--worker", action="store_true")
    p.add_argument("--cell-timeout", type=float, default=20)
    p.add_argument("--memory", type=int, default=sandbox.Limits.memory_mb)
    p.add_argument(
        "--uid", type=int, default=None, help="the kernel's user (default: one of its own)"
    )
    p.add_argument("--checker-memory", type=int, default=CHECKER_MEMORY_MB)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--no-sandbox", action="store_true")
    opts = p.parse_args(argv)
    set_own_limits(opts.checker_memory)
    opts.uid = sandbox.kernel_uid() if opts.uid is None else opts.uid
    # scratch folders go in the batch's temporary folder (the working folder it starts us in):
    # when the batch kills this process on a timeout, they are deleted with that folder
    tempfile.tempdir = os.getcwd()
    for line in sys.stdin:
        job = json.loads(line)
        limit_cpu(opts.timeout)
        result = grade(Path(job["submission"]), Path(job["zip"]), opts)
        Path(job["result"]).write_text(json.dumps(result))
        sys.stdout.write("done\n")
        sys.stdout.flush()
    return 0
