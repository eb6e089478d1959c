"""tutorlib.training: the loss, the schedule, the loop, checkpoints, resuming, Ctrl-C, two processes
and the CLI.

Everything trains tiny models on a few hundred phrasebook pairs, on the CPU.
Each test names, in its docstring or assert message, the wrong program it catches.
"""

import json
import math
import os
import shlex
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from torch.testing import assert_close

from tutorlib.translation.checkpoints import (
    CHECKPOINT_NAME,
    MODEL_NAME,
    CheckpointError,
    load_checkpoint,
    pick_device,
    read_checkpoint,
)
from tutorlib.translation.config import PRESETS, TranslatorConfig
from tutorlib.translation.data import PAD_ID
from tutorlib.translation.model import Translator, translation_loss
from tutorlib.translation.phrasebook import phrasebook
from tutorlib.translation.training import learning_rate, make_optimizer, plot_history, train

TINY = TranslatorConfig(
    d_model=32,
    num_heads=4,
    d_ff=64,
    num_encoder_layers=1,
    num_decoder_layers=1,
    dropout=0.1,
    max_len=16,
    lr=3e-3,
    warmup_steps=5,
    epochs=2,
    batch_size=32,
    seed=3,
)
EXACT = dict(rtol=0, atol=0)
ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def data():
    pairs = phrasebook(
        "train"
    )  # validation on other training pairs: the same words, so 20 steps show progress
    return pairs[:320], pairs[1000:1064]


def weights(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# --- the loss and the schedule ---------------------------------------------------------


def test_loss_ignores_padding_and_smooths_labels():
    """Mean over real tokens only (padding would dilute it); label smoothing is (1 - eps) NLL + eps
    mean(-log p)."""
    torch.manual_seed(0)
    logits = torch.randn(2, 3, 7, dtype=torch.float64)
    tgt = torch.tensor([[4, 5, 2], [6, 2, PAD_ID]])
    log_p = torch.log_softmax(logits, -1)
    real = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    nll = sum(-log_p[b, t, tgt[b, t]] for b, t in real) / 5
    smooth = sum(-log_p[b, t].mean() for b, t in real) / 5
    assert_close(translation_loss(logits, tgt), nll)
    assert_close(translation_loss(logits, tgt, 0.1), 0.9 * nll + 0.1 * smooth)


def test_learning_rate_warms_up_then_decays_to_min_lr():
    config = replace(TINY, lr=1e-3, min_lr=1e-5, warmup_steps=10)
    rates = [learning_rate(s, config, 100) for s in range(100)]
    assert_close(rates[0], 1e-4) and assert_close(rates[9], 1e-3)
    assert all(a < b for a, b in zip(rates[:10], rates[1:10])), "linear warmup rises"
    assert all(a >= b for a, b in zip(rates[9:], rates[10:])), "then it only falls"
    assert math.isclose(learning_rate(100, config, 100), 1e-5)


def test_pick_device():
    assert pick_device("cpu") == torch.device("cpu")
    expected = (
        "cuda"
        if torch.cuda.is_available()
        else "mps"
        if torch.backends.mps.is_available()
        else "cpu"
    )
    assert pick_device().type == expected


# --- the loop ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def straight(data, tmp_path_factory):
    """An uninterrupted run of two epochs (10 steps each): the reference for resuming."""
    out = tmp_path_factory.mktemp("straight")
    steps = []
    result = train(TINY, *data, out, progress=False, on_step=lambda s, loss: steps.append(s))
    return result, out, steps


def test_training_learns_and_records_its_history(straight):
    result, out, steps = straight
    history = result.history
    assert steps == list(range(1, 21)) and history["train"]["step"] == steps
    assert [e["epoch"] for e in history["epochs"]] == [1, 2]
    losses = history["train"]["loss"]
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5 - 0.5, "the training loss falls"
    uniform = math.log(len(result.tgt_vocab))  # the loss of a model that learned nothing
    assert all(e["valid_loss"] < uniform - 0.4 for e in history["epochs"]), (
        "validation beats guessing"
    )
    assert history["epochs"][1]["tokens_per_s"] > 0
    json.dumps(history)  # it can be written as history.json
    assert result.completed and result.checkpoint == out / CHECKPOINT_NAME
    assert (out / MODEL_NAME).is_file() and (out / CHECKPOINT_NAME).is_file()
    assert not result.model.training


def test_history_plots(straight):
    fig = plot_history(straight[0].history)
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert any("validation" in label for label in labels) and any(
        "training" in label for label in labels
    )
    valid = [line for line in ax.get_lines() if "validation" in line.get_label()][0]
    assert list(valid.get_xdata()) == [10, 20]


def test_the_checkpoint_holds_everything_to_resume(straight):
    _, out, _ = straight
    state = read_checkpoint(out / CHECKPOINT_NAME)
    for key in (
        "model",
        "config",
        "src_vocab",
        "tgt_vocab",
        "optimizer",
        "scheduler",
        "step",
        "rng",
        "history",
    ):
        assert key in state, key
    assert state["step"] == 20 and state["epoch"] == 2 and state["next_batch"] == 0
    model_only = out / MODEL_NAME
    assert "optimizer" not in read_checkpoint(model_only)
    assert model_only.stat().st_size < (out / CHECKPOINT_NAME).stat().st_size / 2


@pytest.mark.parametrize("stop_at", [7, 10])
def test_resuming_reaches_the_same_weights_as_an_uninterrupted_run(
    data, straight, tmp_path, stop_at
):
    """Stop after 7 steps (inside epoch 1) or 10 (at its end), resume, finish: the same weights, bit
    for bit. Forgetting the optimizer's moments, the scheduler, the dropout's random state or the
    position in the shuffled data would each change them; and the second run must really start at
    the checkpoint."""
    first = train(TINY, *data, tmp_path, progress=False, max_steps=stop_at)
    assert not first.completed and read_checkpoint(tmp_path / CHECKPOINT_NAME)["step"] == stop_at
    assert not (tmp_path / MODEL_NAME).exists(), "translator.pt only when training is complete"
    steps = []
    second = train(
        None, *data, tmp_path, resume=True, progress=False, on_step=lambda s, loss: steps.append(s)
    )
    assert steps == list(range(stop_at + 1, 21)), "the resumed run does only the remaining steps"
    expected = straight[0]
    assert_close(weights(second.model), weights(expected.model), **EXACT)
    assert second.history["train"]["loss"] == expected.history["train"]["loss"]
    assert [e["valid_loss"] for e in second.history["epochs"]] == [
        e["valid_loss"] for e in expected.history["epochs"]
    ]


def test_resuming_with_another_config_is_refused(data, straight):
    _, out, _ = straight
    with pytest.raises(
        CheckpointError, match="was trained with another config.*'d_model': \\(32, 64\\)"
    ):
        train(replace(TINY, d_model=64), *data, out, resume=True, progress=False)


def test_resuming_without_a_checkpoint_names_the_file(data, tmp_path):
    with pytest.raises(
        FileNotFoundError, match=f"no translator checkpoint at {tmp_path / CHECKPOINT_NAME}"
    ):
        train(TINY, *data, tmp_path, resume=True, progress=False)


def test_ctrl_c_saves_a_checkpoint_that_resumes_exactly(data, straight, tmp_path):
    """A SIGINT during step 4 lets the step finish, saves the checkpoint and raises
    KeyboardInterrupt; resuming then ends where the uninterrupted run ended."""

    def interrupt(step, loss):
        if step == 4:
            os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)  # Python's own, unless a test before changed it
    with pytest.raises(KeyboardInterrupt, match="interrupted at step 4"):
        train(TINY, *data, tmp_path, progress=False, on_step=interrupt)
    assert read_checkpoint(tmp_path / CHECKPOINT_NAME)["step"] == 4
    after = signal.getsignal(signal.SIGINT)
    assert after is before, f"the handler is put back: was {before!r}, is {after!r}"
    resumed = train(None, *data, tmp_path, resume=True, progress=False)
    assert_close(weights(resumed.model), weights(straight[0].model), **EXACT)


def test_a_crash_while_saving_keeps_the_last_good_checkpoint(data, tmp_path, monkeypatch):
    """The checkpoint goes to a temporary file that is renamed over the old one: a crash halfway
    through writing (here torch.save dies after some bytes) leaves the old checkpoint whole and no
    temporary file."""
    train(TINY, *data, tmp_path, progress=False, max_steps=3)
    path = tmp_path / CHECKPOINT_NAME
    good = path.read_bytes()
    real_save = torch.save

    def dying_save(obj, f, *args, **kwargs):
        if isinstance(obj, dict) and obj.get("step") == 5:
            f.write(b"PK\x03\x04 half a checkpoint")
            raise OSError("disk full (simulated)")
        return real_save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", dying_save)
    with pytest.raises(OSError, match="disk full"):
        train(None, *data, tmp_path, resume=True, progress=False, max_steps=5)
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == [CHECKPOINT_NAME]
    monkeypatch.undo()
    model, _, _ = load_checkpoint(path)
    assert read_checkpoint(path)["step"] == 3


# --- the optimizer, clipping and the presets (issue 14) -------------------------------------


def test_train_steps_with_fused_adamw_and_foreach_clipping(data, straight, monkeypatch):
    """The per-parameter loops cost a third of a step: a train() that built a plain AdamW (fused
    None) or clipped one gradient at a time (foreach None/False) fails here."""
    groups = read_checkpoint(straight[1] / CHECKPOINT_NAME)["optimizer"]["param_groups"]
    assert [g["fused"] for g in groups] == [True, True], (
        "the checkpoint's optimizer is the fused AdamW"
    )
    optimizer = make_optimizer(straight[0].model, TINY)
    assert optimizer.defaults["fused"] is True and isinstance(optimizer, torch.optim.AdamW)
    assert [g["weight_decay"] for g in optimizer.param_groups] == [TINY.weight_decay, 0.0]
    assert optimizer.defaults["betas"] == (0.9, 0.98) and optimizer.defaults["eps"] == 1e-9
    calls = []
    real_clip = torch.nn.utils.clip_grad_norm_

    def spy(parameters, max_norm, *args, **kwargs):
        calls.append(kwargs.get("foreach"))
        return real_clip(parameters, max_norm, *args, **kwargs)

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", spy)
    train(TINY, *data, progress=False, max_steps=2)
    assert calls == [True, True], (
        f"clip_grad_norm_ called with foreach={calls}, expected True at each of 2 steps"
    )


def test_without_fused_adamw_it_falls_back_to_foreach_and_says_why(straight, monkeypatch):
    """A device without a fused AdamW (simulated: the constructor refuses fused=True) gets foreach,
    with a warning that names the reason; a make_optimizer that let the error through, or fell back
    silently, fails."""
    real_adamw = torch.optim.AdamW

    class NoFused(real_adamw):
        def __init__(self, params, **kwargs):
            if kwargs.get("fused"):
                raise RuntimeError(
                    "fused=True requires all the params to be on a supported device (simulated)"
                )
            super().__init__(params, **kwargs)

    monkeypatch.setattr(torch.optim, "AdamW", NoFused)
    said = []
    optimizer = make_optimizer(straight[0].model, TINY, said.append)
    assert optimizer.defaults["foreach"] is True and not optimizer.defaults["fused"]
    assert (
        len(said) == 1
        and "fused=True" in said[0]
        and "simulated" in said[0]
        and "foreach" in said[0]
    ), said


def test_a_seeded_run_gives_the_same_weights_twice(data):
    """Fused AdamW, foreach clipping and dropout: two runs with the same seed end bit for bit equal,
    and a different seed does not (else the comparison would prove nothing)."""
    config = replace(TINY, dropout=0.1)
    first = train(config, *data, progress=False, max_steps=6)
    second = train(config, *data, progress=False, max_steps=6)
    assert_close(weights(second.model), weights(first.model), **EXACT)
    assert second.history["train"]["loss"] == first.history["train"]["loss"]
    other = train(replace(config, seed=config.seed + 1), *data, progress=False, max_steps=6)
    assert weights(other.model)["generator.bias"].ne(weights(first.model)["generator.bias"]).any()


def test_presets_are_what_the_docs_say():
    """PRESETS["pretrained"] as its comment in tutorlib/translation/config.py (and issue 14)
    describe it: the architecture of the shipped model (tutorlib/pretrained/README.md) with the
    training retuned for throughput; and the wide preset of benchmarks/translator_bench.py."""
    p = PRESETS["pretrained"]
    architecture = dict(
        d_model=128,
        num_heads=4,
        d_ff=256,
        num_encoder_layers=3,
        num_decoder_layers=3,
        norm_first=True,
        tie_output=True,
        share_embeddings=False,
        max_len=32,
    )
    assert {k: getattr(p, k) for k in architecture} == architecture
    training = dict(
        batch_size=256,
        lr=2e-3,
        warmup_steps=100,
        epochs=6,
        dropout=0.0,
        label_smoothing=0.1,
        grad_clip=1.0,
        min_lr=1e-5,
        weight_decay=0.01,
        seed=0,
    )
    assert {k: getattr(p, k) for k in training} == training
    steps_per_epoch = math.ceil(len(phrasebook("train")) / p.batch_size)
    assert (steps_per_epoch, p.epochs * steps_per_epoch) == (180, 1080), (
        "6 epochs of 180 steps, as documented"
    )
    assert p.warmup_steps < steps_per_epoch * p.epochs / 2, "the warmup is a small part of the run"
    w = PRESETS["wide"]
    assert (w.d_model, w.num_heads, w.d_ff, w.num_encoder_layers, w.num_decoder_layers) == (
        256,
        4,
        1024,
        3,
        3,
    )
    assert (w.batch_size, w.dropout) == (256, 0.0)
    sizes = dict(
        src_vocab_size=665, tgt_vocab_size=1170
    )  # the phrasebook's vocabularies (min_freq=2)
    assert Translator(replace(p, **sizes)).num_parameters() == 1_230_354, "the shipped model's size"


# --- two processes and the command line ------------------------------------------------------


def run_cli(*args, launcher=(), timeout=240):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    command = [*(launcher or [sys.executable]), "-m", "tutorlib", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env
    )


TINY_CLI = [
    "--d-model",
    "32",
    "--num-heads",
    "4",
    "--d-ff",
    "64",
    "--num-encoder-layers",
    "1",
    "--num-decoder-layers",
    "1",
    "--batch-size",
    "32",
    "--max-len",
    "16",
    "--train-pairs",
    "1024",
    "--no-progress",
]


@pytest.mark.slow  # torchrun starts two training processes
def test_torchrun_with_two_cpu_processes(tmp_path):
    """DistributedDataParallel over gloo: both processes end with the same weights (checked in
    train), only process 0 logs and writes, and the checkpoint is whole. 256 pairs in batches of 32
    = 8 batches, 4 each."""
    launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--standalone"]
    done = run_cli(
        "train", *TINY_CLI, "--epochs", "2", "--out", str(tmp_path), "--no-eval", launcher=launcher
    )
    assert done.returncode == 0, done.stdout + done.stderr
    log = done.stdout + done.stderr
    assert "the 2 processes agree on the final weights" in log
    assert log.count("epoch 2/2: train loss") == 1, "one process logs"
    assert "16 steps per epoch x 2 epochs, 2 processes" in log  # 1,024 pairs / 32 / 2 processes
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        CHECKPOINT_NAME,
        "history.json",
        MODEL_NAME,
    ]
    state = read_checkpoint(tmp_path / CHECKPOINT_NAME)
    assert state["step"] == 32 and len(state["rng"]) == 2, "one random state per process"
    load_checkpoint(tmp_path / MODEL_NAME)


@pytest.mark.slow  # trains, resumes and evaluates a translator
def test_cli_train_resume_evaluate_translate(tmp_path):
    done = run_cli("train", *TINY_CLI, "--epochs", "1", "--max-steps", "3", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    # the command it suggests goes on with the same data: run it as printed
    suggested = done.stdout.split("stopped at --max-steps 3; continue with: ")[1].splitlines()[0]
    words = shlex.split(suggested)
    assert words[:5] == ["python", "-m", "tutorlib", "train", "--out"] and "--resume" in words
    assert "--train-pairs 1024" in suggested
    done = run_cli(*words[3:], "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "resuming from" in done.stdout + done.stderr
    assert "test split, greedy: BLEU" in done.stdout
    meta = read_checkpoint(tmp_path / MODEL_NAME)["meta"]
    assert meta["command"].startswith("python -m tutorlib train") and "bleu" in meta["test_greedy"]
    assert "pairs" not in meta["test_greedy"] and "hypotheses" not in meta["test_greedy"], (
        "scores, not text"
    )
    done = run_cli(
        "evaluate", "--checkpoint", str(tmp_path), "--limit", "20", "--beam", "2", "--show", "1"
    )
    assert done.returncode == 0, done.stderr
    # TINY_CLI's max_len leaves out the first 20 test sentences that are longer, and says how many
    assert "test split (18 sentences, 2 longer than max_len=16 skipped, beam 2" in done.stdout
    assert "exact match" in done.stdout
    done = run_cli("translate", "--checkpoint", str(tmp_path / MODEL_NAME), "the cat", "")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 2 and done.stdout.splitlines()[1] == ""


def test_cli_splits_a_tatoeba_file_by_a_hash_of_the_english(tmp_path):
    """--data FILE.tsv: about 90/5/5, no sentence in two splits, and the same split whatever the
    file's order."""
    from argparse import Namespace

    from tutorlib.translation.cli import _pairs

    lines = [
        f"Sentence number {i}.\tFrase número {i}.\tCC-BY 2.0 (France) Attribution: tatoeba.org #{i}"
        for i in range(600)
    ]
    forward, backward = tmp_path / "por.txt", tmp_path / "rop.txt"
    forward.write_text("\n".join(lines) + "\n", encoding="utf-8")
    backward.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    splits = {s: _pairs(Namespace(data=forward), s) for s in ("train", "valid", "test")}
    assert sum(len(v) for v in splits.values()) == 600
    assert len(set().union(*map(set, splits.values()))) == 600, "no pair in two splits"
    assert (
        len(splits["train"]) > 480
        and 10 < len(splits["valid"]) < 60
        and 10 < len(splits["test"]) < 60
    )
    for split, pairs in splits.items():
        assert set(_pairs(Namespace(data=backward), split)) == set(pairs)


# --- issue 14: every option checked before work starts --------------------------------------------


from tutorlib.translation.cli import main  # noqa: E402
from tutorlib.translation.sentences import split_sentences  # noqa: E402


@pytest.mark.parametrize(
    "options, message",
    [
        (["--epochs", "0"], "argument --epochs: must be at least 1, got 0"),
        (["--checkpoint-every", "0"], "argument --checkpoint-every: must be at least 1, got 0"),
        (["--checkpoint-every", "-3"], "must be at least 1, got -3"),
        (["--train-pairs", "0"], "argument --train-pairs: must be at least 1"),
        (["--max-steps", "0"], "argument --max-steps: must be at least 1"),
        (["--lr", "nan"], "argument --lr: must be a finite number"),
    ],
)
def test_cli_train_refuses_bad_options_at_once(options, message, capsys):
    """An --epochs 0 that reached train() would write an untrained model; argparse must stop it
    (exit 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(["train", *options])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize(
    "command, options, message",
    [
        ("evaluate", ["--limit", "-5"], "argument --limit: must be at least 1, got -5"),
        ("evaluate", ["--limit", "0"], "argument --limit: must be at least 1, got 0"),
        ("evaluate", ["--beam", "0"], "argument --beam: must be at least 1, got 0"),
        ("evaluate", ["--show", "-1"], "argument --show: must be at least 0, got -1"),
        ("translate", ["--max-len", "0", "x"], "argument --max-len: must be at least 1, got 0"),
    ],
)
def test_cli_evaluate_and_translate_refuse_bad_options(command, options, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, *options])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_cli_checks_data_and_out_before_training(tmp_path, capsys, monkeypatch):
    """A bad --out found after training would lose the run; train() must not even be called."""
    import tutorlib.translation.training as training  # where the CLI looks train up

    monkeypatch.setattr(training, "train", lambda *a, **k: pytest.fail("training started"))
    a_file = tmp_path / "file.txt"
    a_file.write_text("I run.\tEu corro.\n")
    cases = [
        (["--out", str(a_file)], "is a file, not a folder"),
        (["--out", str(a_file / "sub")], "is a file, so no folder can be made"),
        (["--data", str(tmp_path)], "is a folder"),
        (["--data", str(tmp_path / "missing.txt")], "no such file"),
        (["--data", str(a_file), "--out", str(tmp_path / "o")], "split empty"),
    ]
    for options, message in cases:
        assert main(["train", *options]) == 1, options
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (options, err)


def test_cli_evaluate_bad_device_is_one_line(capsys):
    assert main(["evaluate", "--device", "bogus"]) == 1
    assert capsys.readouterr().err.startswith("error: device must be 'cpu', 'cuda'")


def test_cli_help_does_not_import_torch():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tutorlib", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0
    imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")], (
        "torch imported for --help"
    )


def test_train_refuses_a_max_len_that_drops_many_pairs(data):
    """--max-len 5 used to train on the few short pairs left, with only a warning."""
    train_pairs, valid_pairs = data
    with pytest.raises(
        ValueError, match=r"of \d+ training pairs are longer than max_len=5 tokens.*first: pairs\["
    ):
        train(replace(TINY, max_len=5), train_pairs, valid_pairs, progress=False)


def test_train_refuses_zero_epochs_and_bad_step_counts(data):
    train_pairs, valid_pairs = data
    for kwargs, message in [
        ({"config": replace(TINY, epochs=0)}, "config.epochs must be at least 1"),
        ({"max_steps": 0}, "max_steps must be at least 1"),
        ({"checkpoint_every": -1}, "checkpoint_every must be at least 1"),
    ]:
        config = kwargs.pop("config", TINY)
        with pytest.raises(ValueError, match=message):
            train(config, train_pairs, valid_pairs, progress=False, **kwargs)


def test_resuming_with_max_steps_below_the_checkpoint_is_an_error(data, straight):
    """It used to train one more step past the checkpoint."""
    train_pairs, valid_pairs = data
    out_dir = straight[1]
    step = read_checkpoint(out_dir / CHECKPOINT_NAME)["step"]
    before = (out_dir / CHECKPOINT_NAME).read_bytes()
    with pytest.raises(ValueError, match=f"max_steps=2 but .* is already at step {step}"):
        train(None, train_pairs, valid_pairs, out_dir, resume=True, max_steps=2, progress=False)
    assert (out_dir / CHECKPOINT_NAME).read_bytes() == before


def test_split_sentences():
    assert split_sentences("I am happy. She is tired!  Are you?") == [
        "I am happy.",
        "She is tired!",
        "Are you?",
    ]
    assert split_sentences("Wait... what?! ok") == ["Wait...", "what?!", "ok"]
    assert split_sentences("   ") == []


# --- the loop's parts: TrainState and batch_loss ---------------------------------------------


def test_train_state_goes_to_a_checkpoint_and_back_exactly(data, tmp_path):
    """TrainState.to_checkpoint -> save_checkpoint -> read_checkpoint -> TrainState.from_checkpoint,
    into a model, optimizer and scheduler built afresh from another seed: the next step gives the
    same weights and loss, bit for bit, as the next step of the original. Forgetting the weights,
    AdamW's moments, the scheduler or the counters would each change them."""
    from tutorlib.translation.checkpoints import save_checkpoint, save_model
    from tutorlib.translation.data import make_batches
    from tutorlib.translation.state import TrainState
    from tutorlib.translation.training import Run, build_vocabs, train_step

    train_pairs, _ = data
    src_vocab, tgt_vocab = build_vocabs(train_pairs)
    config = replace(TINY, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    batches = make_batches(
        train_pairs, src_vocab, tgt_vocab, config.batch_size, seed=0, max_len=config.max_len
    )

    def fresh(seed):
        torch.manual_seed(seed)
        model = Translator(config, src_vocab, tgt_vocab)
        optimizer = make_optimizer(model, config)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: learning_rate(s, config, 50) / config.lr
        )
        return model, optimizer, scheduler

    run = Run(config, torch.device("cpu"))
    state = TrainState(*fresh(0))
    for batch in batches[:3]:
        train_step(state, state.model, batch, run)
    path = save_checkpoint(tmp_path / CHECKPOINT_NAME, state.model, state.to_checkpoint())
    checkpoint = read_checkpoint(path)
    restored = TrainState.from_checkpoint(checkpoint, *fresh(1))
    assert (restored.step, restored.epoch, restored.next_batch) == (3, 0, 3)
    assert restored.history == state.history
    losses = []
    for s in (state, restored):
        torch.set_rng_state(checkpoint["rng"][0]["torch"])  # the next step's dropout masks
        losses.append(train_step(s, s.model, batches[3], run))
    assert losses[0] == losses[1]
    assert_close(weights(restored.model), weights(state.model), **EXACT)
    assert restored.scheduler.get_last_lr() == state.scheduler.get_last_lr()
    model_only = save_model(state.model, tmp_path / MODEL_NAME)
    with pytest.raises(CheckpointError, match="not the training state to resume"):
        TrainState.from_checkpoint(read_checkpoint(model_only), *fresh(2))


def test_the_loop_takes_its_loss_from_batch_loss(data, straight):
    """The one model-specific step is batch_loss(model, batch, config): train calls it for every
    step and every validation batch, and the translator's default gives the very run it always
    did."""
    from tutorlib.translation.model import translator_loss

    calls = {"train": 0, "valid": 0}

    def counting(model, batch, config):
        calls["train" if torch.is_grad_enabled() else "valid"] += 1
        return translator_loss(model, batch, config)

    result = train(TINY, *data, progress=False, batch_loss=counting)
    valid_batches = math.ceil(len(data[1]) / TINY.batch_size)
    assert calls == {"train": 20, "valid": TINY.epochs * valid_batches}
    assert_close(weights(result.model), weights(straight[0].model), **EXACT)
    halved = train(
        TINY,
        *data,
        progress=False,
        max_steps=3,
        batch_loss=lambda m, b, c: 0.5 * translator_loss(m, b, c),
    )
    first_three = straight[0].history["train"]["loss"][:3]
    assert halved.history["train"]["loss"] != first_three, "batch_loss is used"


def test_an_epochs_batches_are_built_once_across_runs_and_anew_when_the_pairs_change():
    # chapter 9 stops and resumes its run three times: each train() call asks for the same
    # epochs of the same pairs; they are batched once, and again only if the pairs change
    from tutorlib.translation import training as loop

    pairs = [("the red car", "o carro vermelho"), ("i am happy.", "sou feliz.")] * 8
    src, tgt = loop.build_vocabs(pairs, min_freq=1)
    config = replace(PRESETS["tiny"], batch_size=4)
    calls = []

    def batcher(pairs, src_vocab, tgt_vocab, batch_size, shuffle, seed, max_len):
        calls.append(seed)
        return [(seed, i) for i in range(len(pairs) // batch_size)]

    loop._RECENT_EPOCHS.clear()
    first = loop._EpochBatches(pairs, src, tgt, config, 0, 1, batcher)
    assert first(0) == [(0, 0), (0, 1), (0, 2), (0, 3)] and calls == [0]
    again = loop._EpochBatches(list(pairs), src, tgt, config, 0, 1, batcher)  # a new run
    assert again(0) == first(0) and calls == [0]
    assert again(1)[0] == (1, 0) and calls == [0, 1]
    pairs[3] = ("the black cats", "os gatos pretos")  # changed in place: batched anew
    assert loop._EpochBatches(pairs, src, tgt, config, 0, 1, batcher)(0) and calls == [0, 1, 0]
    # the other process of two takes every second batch of the same epoch
    assert loop._EpochBatches(pairs, src, tgt, config, 1, 2, batcher)(0) == [(0, 1), (0, 3)]
    loop._RECENT_EPOCHS.clear()
