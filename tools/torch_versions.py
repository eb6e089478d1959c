"""Run the fast tests and the chapters' nbval on other releases of PyTorch, each in its own venv.

    python tools/torch_versions.py [--only-fast] VERSION [VERSION ...]      (make test-torch)

`pyproject.toml` accepts a range of PyTorch releases, and a learner's Colab or laptop installs
whichever it already has; `make test` runs the one pinned in `constraints.txt`. This script
checks the others: for each VERSION it makes a fresh virtualenv in `.venv-torch/VERSION`,
installs that torch and the course (`-e .[dev]`, every other package pinned by
`constraints.txt`), then runs `make check`'s tests and the chapters' nbval there. It prints one
line per version and exits non-zero if any failed. The README says which versions were run.

PyPI's Linux wheels of torch bring NVIDIA's CUDA libraries (a few GB); they run on a CPU alone,
as a learner's Colab does without a GPU. Nothing here changes the project's own `.venv`.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / ".venv-torch"


def _constraints_without_torch(path: Path) -> Path:
    """constraints.txt less its torch line: the version under test takes its place."""
    kept = [
        line
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if not line.strip().lower().startswith("torch==")
    ]
    path.write_text("\n".join(kept) + "\n")
    return path


def _run(cmd: list, env: dict, log) -> int:
    log.write(f"$ {' '.join(map(str, cmd))}\n")
    log.flush()
    # a run started in the background (`&`) ignores Ctrl-C, and its children would too: the
    # tests of Ctrl-C need it delivered as in a terminal
    return subprocess.run(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ).returncode


def check_version(version: str, only_fast: bool) -> tuple[bool, str]:
    venv = HOME / version
    venv.parent.mkdir(exist_ok=True)
    python = venv / "bin" / "python"
    log_path = HOME / f"{version}.log"
    # the machine-wide pip constraints may cap torch; the version asked for is the one wanted
    env = dict(os.environ, PIP_CONSTRAINT=os.devnull)
    with open(log_path, "w") as log:
        if not python.exists():
            if _run([sys.executable, "-m", "venv", str(venv)], env, log):
                return False, f"could not make a virtualenv (see {log_path})"
        constraints = _constraints_without_torch(HOME / "constraints-no-torch.txt")
        pip = [str(python), "-m", "pip", "install", "--quiet", "-c", str(constraints)]
        if _run([*pip, f"torch=={version}", "-e", ".[dev]"], env, log):
            return False, f"torch {version} did not install (see {log_path})"
        steps = [
            (
                "fast tests",
                [
                    str(python),
                    "-m",
                    "pytest",
                    "-m",
                    "not slow",
                    "-p",
                    "no:nbval",
                    "-o",
                    "addopts=-p pytester --ignore=tests/submissions",
                    "-q",
                    "tests",
                ],
            ),
        ]
        if not only_fast:
            steps.append(
                (
                    "chapters' nbval",
                    [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "chapters"],
                )
            )
        for name, cmd in steps:
            if _run(cmd, env, log):
                return False, f"{name} failed (see {log_path})"
    return True, f"fast tests{'' if only_fast else ' and chapters'} passed"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+", help="torch releases, e.g. 2.4.1 2.15.0")
    parser.add_argument("--only-fast", action="store_true", help="skip the chapters' nbval")
    args = parser.parse_args(argv)
    failed = []
    for version in args.versions:
        start = time.perf_counter()
        ok, what = check_version(version, args.only_fast)
        print(f"torch {version}: {what} ({time.perf_counter() - start:.0f} s)", flush=True)
        if not ok:
            failed.append(version)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
