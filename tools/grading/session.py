"""A submission's kernel seen from the checker: start it, run cells, restart it and replay.

A cell that hangs or kills the kernel (an infinite loop, ``os._exit``, a crash, a memory bomb) is
skipped: the kernel is killed with everything it started, a fresh one starts in a fresh scratch
folder and the cells that worked before run again. The same happens when a test's call hangs or
kills the kernel (``Session.recover``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from grading import sandbox, wire
from grading.screen import Cell

START_TIMEOUT = 60  # seconds for a kernel to start (it imports IPython)


@dataclass
class CellOutcome:
    status: str  # ok | error | timeout | dead
    error: list[str] | None = None  # [exception name, message] when the cell raised


class LearnerError(Exception):
    """An exception the learner's code raised in the kernel, rebuilt in the checker by name."""


def exception_from(kind: str, message: str) -> Exception:
    """An exception of the learner's type when it is a builtin one (tests catch TypeError, say),
    else a LearnerError subclass carrying its name. Never SystemExit or KeyboardInterrupt."""
    import builtins

    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    name = kind if kind.isidentifier() else "LearnerError"
    return type(name, (LearnerError,), {})(message)


def is_module(obj) -> bool:
    """A torch.nn.Module (without importing torch where no test uses it)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


class CheckerLink(wire.Link):
    """The checker's end of the pipe. It shares objects with the kernel only as arguments of a
    call the test makes (a module the test hands the learner's function); what it sends back to
    the kernel's requests, and the attributes it lets the kernel read, must be data."""

    def __init__(self, read_fd: int, write_fd: int):
        super().__init__(
            read_fd,
            write_fd,
            side="checker",
            peer="submission",
            serve=self.serve_kernel,
            share=self.may_share,
        )
        self.sending_arguments = False

    def may_share(self, obj) -> None:
        """Arguments of a call are shared; so is a submodule read from a shared module
        (``feed_forward.linear1``, as chapter 8 calls it): the kernel may call it and read its
        public data, as it may the module itself (issue 32, fault 9)."""
        if self.sending_arguments or is_module(obj):
            return
        raise wire.Unsendable(f"a {type(obj).__name__} is not data")

    def request(self, message: dict):
        self.sending_arguments = message.get("op") == "call"
        try:
            return super().request(message)
        except wire.Raised as e:
            raise exception_from(e.kind, str(e)) from None
        finally:
            self.sending_arguments = False

    def answer(self, m: dict) -> None:
        saved, self.sending_arguments = self.sending_arguments, False
        try:
            super().answer(m)
        finally:
            self.sending_arguments = saved

    def serve_kernel(self, m: dict):
        """The kernel's requests: call an object the test handed over, or read a public data
        attribute of it. Nothing else of the checker is reachable."""
        op, target = m.get("op"), m.get("target")
        if type(target) is not int or target not in self.objects:
            raise wire.ProtocolError(
                f"a request about an object the grader never shared ({target!r})"
            )
        obj = self.objects[target]
        if op == "call":
            args, kwargs = self.arguments(m)
            return obj(*args, **kwargs)
        if op == "getattr":
            name = m.get("name")
            if type(name) is not str or name.startswith("_"):
                raise AttributeError(f"the grader's {type(obj).__name__} does not share {name!r}")
            return getattr(obj, name)
        raise wire.ProtocolError(f"a request the grader does not serve ({op!r})")


@dataclass
class Session:
    limits: sandbox.Limits
    sandboxed: bool
    uid: int
    cell_timeout: float
    preload: list[str] = field(default_factory=list)  # modules the kernel imports before any cell
    withhold: tuple = ()  # modules the kernel does not get (sandbox.WITHHELD)
    good: list[Cell] = field(default_factory=list)  # cells that ran (replayed after a restart)
    notes: list[str] = field(default_factory=list)
    printed: int = 0

    def __post_init__(self):
        self.process = None
        self.link = None

    # -- the kernel process
    def start(self) -> None:
        self.spawn()
        self.ready()

    def spawn(self) -> None:
        """Start a kernel; it imports ``preload`` while the checker does other work (``ready``
        waits)."""
        self.process = sandbox.Process(self.limits, self.sandboxed, self.uid, self.withhold)
        self.link = CheckerLink(self.process.rep_r, self.process.req_w)
        self.hello = self.link.start({"op": "hello", "preload": self.preload})

    def ready(self) -> None:
        self.link.deadline = time.monotonic() + START_TIMEOUT
        try:
            self.link.finish(self.hello)
        except (wire.Gone, wire.TimedOut, wire.ProtocolError) as e:
            time.sleep(0.2)
            tail = self.process.tail.decode(errors="replace").strip().splitlines()
            self.close()
            raise RuntimeError(
                f"the kernel did not start ({e}): {tail[-1] if tail else 'no output'}"
            ) from None

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.printed += self.process.printed
            self.process = self.link = None

    def restart(self) -> None:
        """A fresh kernel with the cells that worked before; a cell that now hangs or kills it
        is dropped (the submission is not deterministic)."""
        self.close()
        while True:
            self.start()
            for c in list(self.good):
                outcome = self._run(c)
                if outcome.status in ("timeout", "dead"):
                    self.good.remove(c)
                    self.notes.append(
                        f"{c.label()} behaved differently when run again: it was skipped"
                    )
                    self.close()
                    break
            else:
                return

    # -- cells
    def _run(self, cell: Cell) -> CellOutcome:
        self.link.deadline = time.monotonic() + self.cell_timeout
        try:
            error = self.link.request({"op": "run", "source": cell.source})
        except wire.TimedOut:
            return CellOutcome("timeout")
        except (wire.Gone, wire.ProtocolError):
            return CellOutcome("dead")
        if error is not None and not (type(error) is list and len(error) == 2):
            return CellOutcome("dead")
        return CellOutcome("error" if error else "ok", error)

    def run_cell(self, cell: Cell) -> CellOutcome:
        outcome = self._run(cell)
        if outcome.status in ("ok", "error"):
            self.good.append(cell)
        else:
            self.restart()
        return outcome

    # -- tests
    def names(self) -> dict:
        """The learner's names: data as fresh copies, functions and objects as proxies."""
        self.link.objects.clear()
        self.link.ids.clear()
        try:
            names = self.link.request({"op": "names"})
        except (wire.ProtocolError, wire.TimedOut, wire.Gone):
            raise
        except Exception as e:  # the kernel answered with an error: its names code was replaced
            raise wire.ProtocolError(
                f"the names of the notebook could not be read ({type(e).__name__})"
            ) from None
        if type(names) is not dict:
            raise wire.ProtocolError("the names of the notebook are not a dict")
        return names

    def output(self) -> int:
        return self.printed + (self.process.printed if self.process else 0)
