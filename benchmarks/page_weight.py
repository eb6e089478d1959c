"""Page weight and first paint of every page, cold cache, 1366 px: this book next to an earlier one.

    .venv/bin/python benchmarks/page_weight.py [--baseline REV] [--repeat N] [--pages a,b,...]

The baseline (default: 8c585d6, the book before issue 10's static explorers) is
checked out into a temporary git worktree and built there, reusing vendor/'s
npm tarballs; this tree's book is read from _build/html (`make book` first).
Both sites are served on 127.0.0.1 and each page is opened in a fresh Chromium
context (empty cache), alternating baseline and current, N times; the table
shows the medians. "weight" is every byte the page's requests transferred;
"first paint" is the browser's first-contentful-paint mark. A figure, not a
test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PAGES, _QuietHandler  # noqa: E402

BASELINE = "8c585d6"


def serve(html: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(html))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def build_baseline(rev: str, work: Path) -> Path:
    tree = work / "baseline"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
        check=True,
        capture_output=True,
    )
    (tree / "vendor").mkdir()
    shutil.copytree(ROOT / "vendor" / "npm", tree / "vendor" / "npm")
    python = str(Path(sys.executable))
    subprocess.run([python, "tools/vendor_assets.py"], cwd=tree, check=True, capture_output=True)
    run = subprocess.run(
        [str(Path(python).parent / "jupyter-book"), "build", ".", "--quiet"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    if run.returncode:
        sys.exit(f"the baseline book did not build:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    return tree / "_build" / "html"


MEASURE = """() => {
  const paint = performance.getEntriesByType("paint").find((e) => e.name === \
"first-contentful-paint");
  return paint ? paint.startTime : null;
}"""


def measure(browser, url: str) -> tuple[int, float]:
    context = browser.new_context(viewport=DESKTOP)
    sizes = []
    try:
        page = context.new_page()
        page.on(
            "requestfinished",
            lambda r: sizes.append(
                r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"]
            ),
        )
        response = page.goto(url, wait_until="load")
        if response is None or response.status >= 400:  # a page the baseline did not have yet
            return 0, float("nan")
        page.wait_for_timeout(300)
        return sum(sizes), page.evaluate(MEASURE)
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--pages", default="", help="comma-separated pages (default: every page of _toc.yml)"
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    pages = [p for p in args.pages.split(",") if p] or PAGES
    current = ROOT / "_build" / "html"
    if not (current / "index.html").is_file():
        sys.exit("build the book first: make book")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        try:
            base_html = build_baseline(args.baseline, Path(tmp))
            servers = [serve(base_html), serve(current)]
            rows = {p: ([], [], [], []) for p in pages}
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for _ in range(args.repeat):
                    for p in pages:
                        for k, (_, base) in enumerate(servers):
                            weight, paint = measure(browser, f"{base}{p}.html")
                            rows[p][k].append(weight)
                            rows[p][2 + k].append(paint or float("nan"))
                browser.close()
        finally:
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "worktree",
                    "remove",
                    "--force",
                    str(Path(tmp) / "baseline"),
                ],
                capture_output=True,
            )
    width = max(len(p) for p in pages)
    print(
        f"{'page':<{width}}  {'before KB':>9}  {'now KB':>7}  {'ratio':>5}  {'before FCP ms':>13}  "
        f"{'now FCP ms':>10}  {'ratio':>5}"
    )
    for p in pages:
        wb, wn, fb, fn = (statistics.median(x) for x in rows[p])
        if wb == 0:  # new since the baseline
            print(f"{p:<{width}}  {'new':>9}  {wn / 1024:7.0f}  {'':>5}  {'':>13}  {fn:10.0f}")
            continue
        print(
            f"{p:<{width}}  {wb / 1024:9.0f}  {wn / 1024:7.0f}  {wn / wb:5.2f}  {fb:13.0f}  "
            f"{fn:10.0f}  {fn / fb:5.2f}"
        )
    heaviest = max(pages, key=lambda p: statistics.median(rows[p][1]))
    print(
        f"heaviest page now: {heaviest} ({statistics.median(rows[heaviest][1]) / 1024:.0f} KB); "
        f"baseline {args.baseline}, {args.repeat} cold loads each, medians"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
