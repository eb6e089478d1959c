"""The kernel side: runs inside the sandbox, the only process that executes a submission's code.

    python -I -c "import sys; sys.path.append(DIR); from grading.kernel import main; main()" \
        READ_FD WRITE_FD LIMITS_JSON

It lowers its own limits, gives up root (when the sandbox starts it as root), starts an IPython
shell (so cell magics such as ``%%time`` work as in Jupyter), then answers the checker's requests
on the pipe (``wire.Link``):

- ``run``: run one notebook cell; reply with the error it raised, if any;
- ``names``: the learner's names, data as values and the rest (functions, classes, objects) as
  references;
- ``call`` / ``getattr``: call a learner's function on the arguments sent, read an attribute.

It holds no test, no reference value and no score: whatever the submission does in here (patch
numpy, tap a stream, replace an object) can only change the answers it sends back. ``python -I``
keeps the working folder and PYTHON* variables out of ``sys.path``, so a file the submission
writes cannot shadow a library.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import threading
import types

from grading import wire

# IPython's own names, and the ones a notebook gets for free: never part of the learner's answers
HIDDEN = {"In", "Out", "exit", "quit", "get_ipython", "grader"}
NAME_LIMIT = (
    8 << 20
)  # bytes: a bigger value crosses as a reference (a test that uses it reads it then)
ENCODE_SECONDS = 2.0  # one name's encoding: a value that takes longer crosses as a reference
# what the checker may ask the kernel to import at start (slow imports out of the cells' time)
PRELOAD = {"numpy", "torch", "tutorlib", "tutorlib.nn", "tutorlib.attention", "tutorlib.examples"}


class EncodingTooSlow(BaseException):
    """A name's value took longer than ENCODE_SECONDS to encode."""


def _too_slow(signum, frame):
    raise EncodingTooSlow()


class CheckOnlyGrader:
    """Stands for otter's ``grader`` in a submission: ``grader.check("q1")`` cells left in an answer
    cell do nothing here (the instructor's grader runs every test itself)."""

    def check(self, *args, **kwargs):
        return None

    check_all = export = check


def set_limits(limits: dict) -> None:
    """RLIMITs on memory, file size and process count, lowered for good (soft = hard)."""
    for name, value in limits.items():
        which = getattr(resource, name)
        resource.setrlimit(which, (value, value))


class Withheld:
    """A meta-path finder that refuses the modules an exercise withholds (sandbox.WITHHELD). The
    sandbox hides their files too; this is what holds without it (and says why in both)."""

    def __init__(self, modules):
        self.modules = tuple(modules)

    def find_spec(self, name, path=None, target=None):
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                from grading.sandbox import withheld_message

                raise ImportError(withheld_message(module))
        return None


def give_up_root(uid: int) -> None:
    """Become ``uid`` (no capability survives) so that the process limit counts, and forbid
    regaining privileges through setuid programs."""
    if uid < 0 or os.geteuid() != 0:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    except Exception:
        pass
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.geteuid() == 0 or os.getuid() == 0:
        raise SystemExit("the kernel could not give up root")


class Kernel:
    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        config = Config()
        config.HistoryManager.enabled = False
        config.InteractiveShell.colors = "nocolor"
        self.shell = InteractiveShell.instance(config=config)
        self.shell.user_ns["grader"] = CheckOnlyGrader()
        self.baseline = set(self.shell.user_ns)

    def run(self, source: str):
        result = self.shell.run_cell(source, store_history=True)
        error = result.error_before_exec or result.error_in_exec
        if error is None:
            return None
        try:
            text = str(error)
        except BaseException:
            text = ""
        return [type(error).__name__, text[:2000]]

    def names(self, link: wire.Link) -> dict:
        """Every name the notebook defined, data encoded as values, the rest as references."""
        out = {}
        for name, value in list(self.shell.user_ns.items()):
            if (
                name.startswith("_")
                or name in HIDDEN
                or (name in self.baseline and name != "grader")
            ):
                continue
            if isinstance(value, types.ModuleType):
                continue
            out[name] = self.encode_name(link, value)
        return out

    @staticmethod
    def encode_name(link: wire.Link, value):
        """A name's value as data when it is small (measured first, without copying it, then
        encoded within ENCODE_SECONDS), else as a reference that a test reads only if it uses it:
        a learner who keeps a 768 MiB array is not slowed into a test's timeout."""
        if wire.measure(value, NAME_LIMIT) > NAME_LIMIT:  # a big dataset: sent only if a test asks
            return link.share(value)
        timed = threading.current_thread() is threading.main_thread()  # (signals: main thread only)
        if timed:
            previous = signal.signal(signal.SIGALRM, _too_slow)
            signal.setitimer(signal.ITIMER_REAL, ENCODE_SECONDS)
        try:
            encoded = link.encode(value)
            if len(wire._dumps(encoded)) > NAME_LIMIT:
                encoded = None
        except (Exception, EncodingTooSlow):
            encoded = None
        finally:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        return link.share(value) if encoded is None else encoded

    def serve(self, link: wire.Link, m: dict):
        op = m.get("op")
        if (
            op == "hello"
        ):  # import what the exercise uses before any cell runs (outside cell time limits)
            for module in m.get("preload", []):
                if module in PRELOAD:
                    __import__(module)
            return {"pid": os.getpid(), "uid": os.getuid()}
        if op == "run":
            return self.run(str(m.get("source", "")))
        if op == "names":
            return {"$raw": self.names(link)}
        if op == "call":
            target = link.resolve({"side": link.side, "id": m.get("target")})
            args, kwargs = link.arguments(m)
            return target(*args, **kwargs)
        if op == "getattr":
            target = link.resolve({"side": link.side, "id": m.get("target")})
            return getattr(target, str(m.get("name")))
        raise wire.ProtocolError(f"unknown request {op!r}")


class KernelLink(wire.Link):
    """The kernel's end: a ``names`` reply is already encoded."""

    def encode(self, x):
        if type(x) is dict and set(x) == {"$raw"}:
            return {"$dict": [[k, v] for k, v in x["$raw"].items()]}
        return super().encode(x)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    read_fd, write_fd, settings = int(argv[0]), int(argv[1]), json.loads(argv[2])
    set_limits(settings.get("limits", {}))
    if settings.get("withhold"):
        sys.meta_path.insert(0, Withheld(settings["withhold"]))
    give_up_root(int(settings.get("uid", -1)))
    os.set_inheritable(read_fd, False)
    os.set_inheritable(write_fd, False)
    kernel = Kernel()
    link = KernelLink(
        read_fd, write_fd, side="kernel", peer="grader", serve=lambda m: kernel.serve(link, m)
    )
    while True:
        try:
            m = link.receive()
        except wire.Gone:
            os._exit(0)
        if "op" in m:
            link.answer(m)


if __name__ == "__main__":
    main()
