"""The in-page translator (assets/web/, issue 37) beside the Python one, on this machine.

    .venv/bin/python benchmarks/web_translator.py [--limit N] [--reps 20] [--no-quality]

Prints, side by side:

1. what the page fetches: translator.bin and translator.json (exported now, from the checkpoint
   in the tree) and the four JavaScript modules, against the 3 MB budget;
2. what float16 does to the model: the shipped model and its rounded twin
   (``tutorlib.translation.web.rounded_model``) on the test split, greedy and beam 4: BLEU, exact
   match, and how many translations are the same string;
3. latency of a 10-word sentence: Python (``translate``, the shipped model, one thread and two)
   and headless Chromium (the built book's front page, the live box driven as a reader drives
   it): time until the weights are fetched and read, the first translation after that, then the
   median of ``--reps`` translations, greedy and beam 4.

Needs the built book (make book) and Chromium, as tests/test_browser.py does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tutorlib.translation.checkpoints import load_pretrained  # noqa: E402
from tutorlib.translation.decoding import translate  # noqa: E402
from tutorlib.translation.evaluation import evaluate  # noqa: E402
from tutorlib.translation.phrasebook import phrasebook  # noqa: E402
from tutorlib.translation.web import export, rounded_model  # noqa: E402

SENTENCE = "the tall teacher will not clean your small red car"  # 10 words
BUDGET = 3_000_000


def transfer() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sizes = export(tmp)
    scripts = {p.name: p.stat().st_size for p in sorted((ROOT / "assets" / "web").glob("*.js"))}
    total = sum(sizes.values()) + sum(scripts.values())
    print("1. what the page fetches on first use (bytes)")
    for name, size in {**sizes, **scripts}.items():
        print(f"   {name:18} {size:>10,}")
    print(f"   {'total':18} {total:>10,}  ({total / BUDGET:.0%} of the 3 MB budget)")


def quality(limit: int | None) -> None:
    shipped = load_pretrained()[0]
    rounded = rounded_model(shipped)
    pairs = phrasebook("test")[:limit]
    print(f"2. float16 weights on the test split ({len(pairs)} sentences)")
    for beam in (1, 4):
        a = evaluate(shipped, pairs, beam_size=beam)
        b = evaluate(rounded, pairs, beam_size=beam)
        same = sum(x == y for x, y in zip(a["hypotheses"], b["hypotheses"]))
        how = "greedy" if beam == 1 else "beam 4"
        print(
            f"   {how:7} BLEU {a['bleu']:.2f} -> {b['bleu']:.2f}, exact {a['exact_match']:.1f}% -> "
            f"{b['exact_match']:.1f}%, same translation {same} of {len(pairs)}"
        )


def python_latency(reps: int) -> dict:
    model = load_pretrained()[0]
    out = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for beam in (1, 4):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                translate(SENTENCE, model, beam)  # warm
                times = []
                for _ in range(reps):
                    start = time.perf_counter()
                    translate(SENTENCE, model, beam)
                    times.append(time.perf_counter() - start)
            out[threads, beam] = statistics.median(times) * 1000
    return out


MEASURE = """async ([sentence, beam, reps]) => {
  const box = document.querySelector(".tutorlib-live-translator");
  const input = box.querySelector("input[type=text]");
  box.querySelectorAll("input[type=radio]")[beam === 1 ? 0 : 1].checked = true;
  const once = async (line) => {
    const start = performance.now();
    input.value = line;
    box.querySelector("form").requestSubmit();
    while (!(box.dataset.state === "done" && box.dataset.shown === line)) {
      await new Promise((r) => setTimeout(r, 1));
    }
    return [performance.now() - start, Number(box.dataset.ms)];
  };
  const runs = [];
  for (let i = 0; i < reps; i++) runs.push(await once(sentence + " ".repeat(i % 2)));
  return runs;
}"""


def browser_latency(reps: int) -> dict:
    from test_browser import DESKTOP, BookBrowser

    out = {}
    with BookBrowser(screenshots=None) as book:
        context = book.browser.new_context(viewport=DESKTOP)
        page = context.new_page()
        page.goto(book.base + "index.html", wait_until="load")
        page.wait_for_function(
            "() => document.querySelector('.tutorlib-live-translator[data-ready]')"
        )
        start = time.perf_counter()
        page.focus(".tutorlib-live-translator input[type=text]")  # the first use: fetch and read
        page.wait_for_function(
            "() => document.querySelector('.tutorlib-live-translator [role=status]')"
            ".textContent.includes('ready')",
            timeout=60_000,
        )
        out["ready"] = (time.perf_counter() - start) * 1000
        first = page.evaluate(MEASURE, [SENTENCE + "  ", 1, 1])[0]
        out["first"] = first
        for beam in (1, 4):
            runs = page.evaluate(MEASURE, [SENTENCE, beam, reps])
            out[beam] = (
                statistics.median(r[0] for r in runs),
                statistics.median(r[1] for r in runs),
            )
        context.close()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N test sentences (part 2)")
    parser.add_argument("--reps", type=int, default=20, help="translations per median (part 3)")
    parser.add_argument("--no-quality", action="store_true", help="skip part 2 (a minute or two)")
    args = parser.parse_args(argv)
    transfer()
    if not args.no_quality:
        torch.set_num_threads(1)
        quality(args.limit)
    py = python_latency(args.reps)
    web = browser_latency(args.reps)
    print(f"3. one 10-word sentence ({SENTENCE!r}), median of {args.reps}, ms")
    print(f"   page: weights fetched and read {web['ready']:.0f} ms after the first focus")
    wall, worker = web["first"]
    print(f"   page: first translation after that {wall:.0f} ms ({worker:.0f} in the worker)")
    for beam in (1, 4):
        how = "greedy" if beam == 1 else "beam 4"
        wall, worker = web[beam]
        print(
            f"   {how:7} page {wall:6.1f} (worker {worker:5.1f})   python 1 thread "
            f"{py[1, beam]:6.1f}, 2 threads {py[2, beam]:6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
