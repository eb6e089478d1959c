"""benchmarks/run_all.py: the report's schema on a small, fast subset. No timing assertions (the
machine is noisy)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run_all():
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_all"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    run_all = _run_all()
    assert run_all.main(["--quick", "--only", "memory,attention", "--out", str(out)]) == 0
    assert (out / "results.png").stat().st_size > 0
    return json.loads((out / "results.json").read_text())


@pytest.mark.slow  # runs two benchmarks
def test_schema_and_ratios(report):
    assert report["quick"] is True and report["groups"] == ["memory", "attention"]
    entries = report["entries"]
    assert {e["group"] for e in entries} == {"memory", "attention"}
    for e in entries:
        assert "error" not in e, e
        assert {"name", "value", "unit", "goal", "direction", "met", "raw"} <= set(e)
        assert isinstance(e["name"], str) and isinstance(e["raw"], dict) and e["raw"]
        assert isinstance(e["value"], float) and math.isfinite(e["value"]) and e["value"] > 0
        assert isinstance(e["goal"], float) and e["goal"] > 0
        assert e["direction"] in ("<=", ">=")
        expected = e["value"] <= e["goal"] if e["direction"] == "<=" else e["value"] >= e["goal"]
        assert e["met"] is expected


def test_entry_met_and_errors_are_recorded(monkeypatch):
    run_all = _run_all()
    assert run_all.entry("a", 2.0, 1.0, ">=")["met"] is True
    assert run_all.entry("a", 2.0, 1.0, "<=")["met"] is False

    def broken(quick):
        raise RuntimeError("boom")

    monkeypatch.setitem(run_all.BENCHES, "memory", broken)
    report = run_all.run(["memory"], quick=True)
    (e,) = report["entries"]
    assert e["error"] == "RuntimeError: boom" and e["met"] is False


def test_bpe_bench_trainers_agree_and_the_group_is_wired():
    run_all = _run_all()  # puts benchmarks/ on sys.path
    assert "tokenizer" in run_all.GROUPS and "tokenizer" in run_all.BENCHES
    import bpe_bench

    r = bpe_bench.naive_vs_incremental(subset=200, vocab_size=300)  # asserts the same merges
    assert r["pairs"] == 200 and r["vocab_size"] == 300 and r["speedup"] > 0


def test_gpt_bench_cache_formulas_match_the_real_caches_and_the_group_is_wired():
    run_all = _run_all()  # puts benchmarks/ on sys.path
    assert "gpt" in run_all.GROUPS and "gpt" in run_all.BENCHES
    import gpt_bench

    models = gpt_bench.load_models(bpe=False)
    r = gpt_bench.kv_cache(models)  # asserts the formulas against the caches the decoders fill
    real = r["checked_on_one_sentence"]
    # one cache of 6 blocks over S + T positions against 3 layers over T and S: twice the bytes
    assert real["GPT, words"] == 2 * real["encoder-decoder"]
    assert r["mean_bytes"]["GPT, words"] > 1.9 * r["mean_bytes"]["encoder-decoder"]


def test_serving_bench_counts_and_the_group_is_wired(capsys):
    run_all = _run_all()  # puts benchmarks/ on sys.path
    assert "serving" in run_all.GROUPS and "serving" in run_all.BENCHES
    import serving_bench

    from tutorlib.serving.step import prompts_of
    from tutorlib.translation.gpt.checkpoints import load_pretrained
    from tutorlib.translation.phrasebook import phrasebook

    bpe = load_pretrained()
    prompts, budgets = prompts_of(bpe, [en for en, _ in phrasebook("test", names="real")[:6]])
    reference, _ = serving_bench.plain(bpe, prompts, budgets)
    r = serving_bench.paged_rows(bpe, prompts, budgets, reference)
    assert r["identical"] and r["contiguous_over_paged_block8"] > 1
    assert "contiguous / paged bytes" in capsys.readouterr().out


def test_heads_group_is_wired_and_its_costs_are_measured():
    """The heads group is in run_all, and its translator costs come from a real ablation: on
    four sentences, switching off decoder layer 0's head 0 (the costliest measured) loses BLEU."""
    run_all = _run_all()
    assert "heads" in run_all.GROUPS and run_all.BENCHES["heads"] is run_all.bench_heads
    import heads_bench

    from tutorlib.translation.checkpoints import load_pretrained
    from tutorlib.translation.phrasebook import phrasebook

    model, _, _ = load_pretrained(device="cpu")
    test = phrasebook("test")[:8]
    base, by = heads_bench.costs_table(model, test, phrasebook("valid")[:8])
    assert len(by) == 36 and all(len(v) == 2 for v in by.values())
    assert base > 90 and max(v[0] for v in by.values()) > 0
