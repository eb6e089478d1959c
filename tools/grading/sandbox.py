"""The operating-system sandbox a submission's kernel runs in: Debian's bubblewrap (``bwrap``).

What the kernel sees and may do (``command`` builds the bwrap command line):

- the system (``/usr``, ``/etc``, ...), the Python installation, the virtualenv and tutorlib's
  source, all **read-only**: nothing can be written into the virtualenv (no ``sitecustomize``, no
  ``.pth``), and nothing of the repository or the instructor's files is visible (no autograder
  zips, no private masters, no other submission);
- one **private writable scratch folder** (its home, working folder and ``/tmp``), created empty for
  each kernel and deleted when it stops;
- **no network** (a network namespace of its own), a **private process namespace** (when the
  kernel stops, every process it started dies with it: a ``fork`` + ``setsid`` survivor cannot
  outlive it), its own session, IPC and host name;
- **rlimits** on address space, file size and process count, set by the kernel before it gives
  up root (as root, bwrap keeps only the right to change user, and the kernel becomes a user of
  its own, so the process limit counts).

Without bwrap the grader refuses to run unless ``--no-sandbox`` is given; then the kernel runs as
a plain process (``LOST_WITHOUT_SANDBOX`` says what that loses).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

PACKAGE = (
    Path(__file__).resolve().parent
)  # tools/grading, mounted read-only at /opt/grading/grading
MOUNTED_PACKAGE = "/opt/grading"
HOME = "/home/learner"
PYTHON = os.path.abspath(sys.executable)  # the virtualenv's python, mounted at the same path
FIRST_UID = 100000  # kernels run as users from here on (when the grader runs as root)


def kernel_uid() -> int:
    """A user of its own for this checker's kernels: no two checkers running at once share one
    (their process ids differ), so one submission's processes never count against another's
    limit."""
    return FIRST_UID + os.getpid() % 400000


LOST_WITHOUT_SANDBOX = (
    "without bubblewrap the submission runs as an ordinary process of your account: it can read "
    "and write your files (the virtualenv, the autograder zips, other submissions), use the "
    "network, and leave processes running; its scores are still computed outside it, and memory "
    "and file-size limits still apply"
)


# What a question may call (exercises/README.md): the modules a kernel does not get, per exercise,
# because a question asks the learner to build what they export. In the sandbox each is hidden
# behind a read-only stub whose import fails with the reason; without it the kernel refuses the
# import itself (a learner could undo that: --no-sandbox loses it too).
WITHHELD = {
    "ex03": ("torch",),  # question 1 builds log-softmax, which torch.log_softmax is (issue 32)
    # question 1 builds masked attention, which tutorlib.attention.scaled_dot_product_attention
    # is but for a query with every key masked (issue 32)
    "ex04": ("tutorlib.attention",),
    # question 1 cuts heads from a fused projection and question 2 builds multi-head attention
    # with a head mask, in NumPy; torch's view, transpose and nn.MultiheadAttention would be
    # chapter 5's code pasted (issue 32)
    "ex05": ("torch",),
    # question 2 builds label smoothing in another convention; F.cross_entropy's
    # label_smoothing rescaled is that convention (issue 32, fault 7): NumPy and plain Python only
    "ex09": ("torch",),
    "ex10": ("sacrebleu",),  # question 3 builds sentence BLEU; the grader compares with it
    "ex11": (
        "tutorlib.efficient",
    ),  # questions 1 and 2 build the online softmax and tiled attention
    "ex14": ("tutorlib.tokenizers",),  # questions 2 to 4 build BPE's trainer, encoder, decoder
    "ex15": ("tutorlib.modern",),  # questions 1 to 3 build RoPE, repeat_kv, the window mask
}


def withheld_for(exercise: str | None) -> tuple[str, ...]:
    """The modules withheld from the kernel of ``exercise`` (an assignment name,
    ``ex10_decoding``)."""
    return WITHHELD.get((exercise or "")[:4], ())


def withheld_message(module: str) -> str:
    return (
        f"{module} is not available when this exercise is graded: a question asks you to build "
        "what it exports (the question says what you may call)"
    )


def module_paths(module: str) -> list[tuple[str, bool]]:
    """The files (False) and package folders (True) that hold ``module`` and its byte-code, as
    this process imports them (the kernel uses the same virtualenv)."""
    spec = importlib.util.find_spec(module)
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [(os.path.realpath(p), True) for p in spec.submodule_search_locations]
    origin = os.path.realpath(spec.origin)
    paths = [(origin, False)]
    cache = Path(origin).parent / "__pycache__"
    paths += [(str(p), False) for p in sorted(cache.glob(Path(origin).stem + ".*.pyc"))]
    return paths


def stubs(modules: tuple[str, ...], folder: Path) -> list[str]:
    """bwrap arguments that hide ``modules`` behind read-only stubs written in ``folder`` (which
    the kernel cannot write: it is not its scratch)."""
    args = []
    for i, module in enumerate(modules):
        stub = f"raise ImportError({withheld_message(module)!r})\n"
        (folder / f"{i}").mkdir()
        (folder / f"{i}" / "__init__.py").write_text(stub)
        (folder / f"{i}.py").write_text(stub)
        for path, package in module_paths(module):
            args += [
                "--ro-bind",
                str(folder / f"{i}") if package else str(folder / f"{i}.py"),
                path,
            ]
    return args


@dataclass
class Limits:
    memory_mb: int = 6144  # address space of the kernel (torch alone maps about 2 GB)
    file_bytes: int = 64 << 20  # largest file it may write
    processes: int = 256  # processes and threads of its user (sandbox only)

    def rlimits(self, sandboxed: bool) -> dict[str, int]:
        limits = {
            "RLIMIT_AS": self.memory_mb << 20,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_CORE": 0,
        }
        if sandboxed:
            limits["RLIMIT_NPROC"] = self.processes
        return limits


@functools.cache
def bwrap() -> str | None:
    """The path of a bwrap that works on this machine, or None."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    try:
        ok = (
            subprocess.run(
                [
                    path,
                    "--ro-bind",
                    "/",
                    "/",
                    "--unshare-net",
                    "--unshare-pid",
                    "--proc",
                    "/proc",
                    "--dev",
                    "/dev",
                    "true",
                ],
                capture_output=True,
                timeout=30,
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return path if ok else None


def editable_sources() -> list[str]:
    """Folders outside the virtualenv that it imports from (tutorlib installed with pip -e)."""
    found = []
    for name in ("tutorlib",):
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            path = os.path.realpath(location)
            if not path.startswith(os.path.realpath(sys.prefix) + os.sep):
                found.append(path)
    return found


def read_only_paths() -> list[str]:
    paths = [
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/etc",
        sys.base_prefix,
        sys.prefix,
    ]
    python = os.path.realpath(sys.executable)
    paths.append(os.path.dirname(os.path.dirname(python)))
    out = []
    for p in paths + editable_sources():
        if os.path.exists(p) and p not in out:
            out.append(p)
    return out


def environment(home: str) -> dict[str, str]:
    return {
        "PATH": os.pathsep.join([os.path.dirname(PYTHON), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": home,
        "TMPDIR": home + "/tmp",
        "USER": "learner",
        "LOGNAME": "learner",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": home + "/.matplotlib",
        "IPYTHONDIR": home + "/.ipython",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "JUPYTER_PLATFORM_DIRS": "1",
        "VIRTUAL_ENV": sys.prefix,
    }


def kernel_argv(read_fd: int, write_fd: int, settings: dict, package_parent: str) -> list[str]:
    boot = (
        f"import sys; sys.path.append({package_parent!r}); from grading.kernel import main; main()"
    )
    return [PYTHON, "-I", "-B", "-u", "-c", boot, str(read_fd), str(write_fd), json.dumps(settings)]


def command(
    scratch: Path,
    read_fd: int,
    write_fd: int,
    limits: Limits,
    uid: int,
    withhold: tuple[str, ...] = (),
    stub_folder: Path | None = None,
) -> list[str]:
    """The bwrap command line that starts a kernel confined as described above."""
    # The private /tmp first: read-only paths that live under /tmp (a checkout in /tmp/..., as
    # CI's may be) are then mounted on top of it instead of being hidden by it.
    cmd = [bwrap() or "bwrap", "--bind", str(scratch / "tmp"), "/tmp"]
    made: set[str] = {"/tmp"}
    for p in read_only_paths():
        for parent in reversed(Path(p).parents[:-1]):  # bwrap would make them 0700: unreadable
            if str(parent) not in made and not os.path.islink(parent):
                made.add(str(parent))
                cmd += ["--perms", "0755", "--dir", str(parent)]
        cmd += ["--ro-bind", p, p]
    cmd += [
        "--perms",
        "0755",
        "--dir",
        "/opt",
        "--perms",
        "0755",
        "--dir",
        MOUNTED_PACKAGE,
        "--perms",
        "0755",
        "--dir",
        "/home",
        "--ro-bind",
        str(PACKAGE),
        f"{MOUNTED_PACKAGE}/grading",
        "--bind",
        str(scratch),
        HOME,
        *(stubs(withhold, stub_folder) if withhold else []),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
        "--chdir",
        HOME,
        "--cap-drop",
        "ALL",
    ]
    if os.geteuid() == 0:
        cmd += [
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
        ]  # for the kernel to give up root
    for k, v in environment(HOME).items():
        cmd += ["--setenv", k, v]
    root = os.geteuid() == 0  # only a user of its own makes the process limit count
    settings = {
        "limits": limits.rlimits(sandboxed=root),
        "uid": uid if root else -1,
        "withhold": list(withhold),
    }
    return cmd + kernel_argv(read_fd, write_fd, settings, MOUNTED_PACKAGE)


class Process:
    """A kernel process and its pipes, from the checker's side. Its output (what the submission
    prints) is only counted, never read as anything."""

    TAIL = 4000

    def __init__(self, limits: Limits, sandboxed: bool, uid: int, withhold: tuple[str, ...] = ()):
        self.scratch = Path(tempfile.mkdtemp(prefix="grade-scratch-"))
        self.stubs = Path(tempfile.mkdtemp(prefix="grade-stubs-"))
        (self.scratch / "tmp").mkdir()
        if sandboxed and os.geteuid() == 0:
            for p in (self.scratch, self.scratch / "tmp"):
                os.chown(p, uid, uid)
                os.chmod(p, 0o711)  # bwrap, root without capabilities, must enter it
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        if sandboxed:
            cmd = command(self.scratch, req_r, rep_w, limits, uid, withhold, self.stubs)
            env = None
        else:
            settings = {
                "limits": limits.rlimits(sandboxed=False),
                "uid": -1,
                "withhold": list(withhold),
            }
            cmd = kernel_argv(req_r, rep_w, settings, str(PACKAGE.parent))
            env = environment(str(self.scratch))
        self.proc = subprocess.Popen(
            cmd,
            pass_fds=(req_r, rep_w),
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
            cwd=str(self.scratch),
        )
        for fd in (req_r, rep_w, out_w):
            os.close(fd)
        self.printed = 0
        self.tail = b""
        self.drain = threading.Thread(target=self._drain, args=(out_r,), daemon=True)
        self.drain.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    return
                self.printed += len(chunk)
                self.tail = (self.tail + chunk)[-self.TAIL :]

    def close(self) -> None:
        """Kill the kernel and everything it started; delete its scratch folder."""
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        for fd in (self.req_w, self.rep_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.drain.join(timeout=5)
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.stubs, ignore_errors=True)
