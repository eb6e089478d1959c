"""Seconds to build the book, and to open and check each of its pages in the browser, side by side.

    .venv/bin/python benchmarks/book_times.py [--no-build]

The build is `jupyter-book build` with -W into a temporary folder (MathJax and the
widget scripts already vendored: `make book` or tools/vendor_assets.py), unless
--no-build, which reads _build/html as it is. Each page is then opened as
tests/test_browser.py opens it (same server, Chromium, waits and checks, one
full-page screenshot): "load" is navigation until MathJax, the widgets and the
search results are rendered; "checks" is reading the page and the screenshot.
The goal is all pages in the browser under 60 s on 2 CPU cores. A figure, not a
test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 60.0


def _test_browser():
    spec = importlib.util.spec_from_file_location(
        "test_browser", ROOT / "tests" / "test_browser.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["test_browser"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def build(out: Path) -> float:
    start = time.perf_counter()
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            str(ROOT),
            "--path-output",
            str(out),
            "--warningiserror",
            "--keep-going",
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(
            "the book build failed (exit "
            f"{run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--no-build", action="store_true", help="time the pages of _build/html, without building"
    )
    args = parser.parse_args()
    tb = _test_browser()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.no_build:
            html, build_s = tb.HTML, None
        else:
            build_s = build(tmp / "book")
            html = tmp / "book" / "_build" / "html"
        start = time.perf_counter()
        with tb.BookBrowser(html=html, screenshots=tmp / "screenshots") as browser:
            startup_s = time.perf_counter() - start
            visits = [browser.visit(target) for target in tb.TARGETS]
        browser_s = time.perf_counter() - start

    width = max(
        len(v.target) for v in visits + [tb.Visit("book build (jupyter-book -W, all pages)")]
    )
    print(f"{'what':<{width}}  {'build s':>8}  {'load s':>7}  {'checks s':>8}  {'page s':>7}")
    if build_s is not None:
        print(f"{'book build (jupyter-book -W, all pages)':<{width}}  {build_s:8.2f}")
    print(f"{'browser start (server + Chromium)':<{width}}  {'':>8}  {startup_s:7.2f}")
    for v in visits:
        print(
            f"{v.target:<{width}}  {'':>8}  {v.load_s:7.2f}  {v.checks_s:8.2f}  "
            f"{v.load_s + v.checks_s:7.2f}"
        )
    slowest = max(visits, key=lambda v: v.load_s + v.checks_s)
    print(
        f"{'all pages in the browser':<{width}}  {'':>8}  {sum(v.load_s for v in visits):7.2f}  "
        f"{sum(v.checks_s for v in visits):8.2f}  {browser_s:7.2f}"
    )
    print(
        f"{len(visits)} pages in {browser_s:.1f} s = {browser_s / BUDGET_S:.2f} of the 60 s "
        f"budget; slowest {slowest.target} ({slowest.load_s + slowest.checks_s:.2f} s)"
        + (f"; browser / build = {browser_s / build_s:.2f}" if build_s else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
