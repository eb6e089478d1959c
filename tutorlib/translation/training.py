"""Training the translator: the loss, the loop, checkpoints and several processes (chapter 9).

``train(config, train_pairs, valid_pairs, out_dir)`` builds the vocabularies
and the ``Translator``, then runs AdamW with a warmup, label smoothing and
gradient clipping, validates after every epoch, and writes to ``out_dir``:

- ``checkpoint.pt``: everything needed to resume (weights, config,
  vocabularies, optimizer, scheduler, position in the data, random states,
  history). Written atomically, so a run killed at any moment leaves the
  previous checkpoint intact, and ``resume=True`` continues to the very
  same weights as a run that was never interrupted (CPU, same seed).
- ``translator.pt``: weights, config and vocabularies only, what
  ``load_checkpoint`` and ``translate`` need (about a third of the size).

The loop is a few named steps around ``TrainState`` (the model, optimizer,
scheduler, step, epoch, position in the data and history: what a checkpoint
holds, with ``to_checkpoint`` and ``from_checkpoint``): ``train_step``,
``run_epoch``, ``validate``, ``end_epoch``, ``save_state``. What knows the
model comes from the config's kind (``tutorlib.translation.kinds``): its
builder (``build_translator``), its loss (``translator_loss``) and its
batches (``make_batches``), so that chapter 13's decoder-only translator
trains on the same data by the same steps (``tutorlib.translation.gpt.train_gpt``).
The files are written by ``tutorlib.translation.checkpoints``.

Under ``torchrun --nproc_per_node=N`` it trains with DistributedDataParallel
(gloo on CPU, NCCL on CUDA): each process takes every N-th batch, their
gradients are averaged, and only process 0 writes files.

Ctrl-C (or a notebook's interrupt) finishes the current step, saves a
checkpoint and raises ``KeyboardInterrupt``; a second Ctrl-C stops at once,
and the last checkpoint on disk is still the last good one.

``TrainState`` and resuming are ``tutorlib.translation.state``; processes,
Ctrl-C and random states ``tutorlib.translation.processes``.
``build_translator``, ``translation_loss`` and ``translator_loss`` live with
the model (``tutorlib.translation.model``) and are importable here as before;
This is the loop's home (``tutorlib.training`` held it before).
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.distributed as dist
from tqdm.std import tqdm

from ..checks import whole_number
from ..display import Progress
from .checkpoints import (
    CHECKPOINT_NAME,
    MODEL_NAME,
    save_checkpoint,
    save_model,
)
from .config import TranslatorConfig
from .data import Batch, Vocab, fits, tokenize
from .kinds import ModelKind, kind_of
from .model import Translator, translator_loss
from .phrasebook.splits import copied_words_of
from .processes import StopRequest, check_ranks_agree, rng_state, set_rng_state, setup_distributed
from .state import TrainState, resume_checkpoint

__all__ = [
    "TrainResult",
    "learning_rate",
    "build_vocabs",
    "make_optimizer",
    "train",
    "train_step",
    "run_epoch",
    "validate",
    "end_epoch",
    "save_state",
    "plot_history",
]


def learning_rate(step: int, config: TranslatorConfig, total_steps: int) -> float:
    """The learning rate after ``step`` steps: linear warmup to ``config.lr``, then a half cosine
    down to ``min_lr``.

    (The paper decays with ``1 / sqrt(step)`` instead; the cosine ends at a
    known point, which suits a run of fixed length.)

    Derived in chapter 9 (Training a translator).
    """
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    progress = min(1.0, (step - config.warmup_steps) / max(1, total_steps - config.warmup_steps))
    return config.min_lr + 0.5 * (config.lr - config.min_lr) * (1.0 + math.cos(math.pi * progress))


def build_vocabs(
    pairs, share: bool = False, min_freq: int = 2, *, gendered: bool = False
) -> tuple[Vocab, Vocab]:
    """Source and target vocabularies of the training pairs; with ``share`` one vocabulary of both
    languages.

    A word seen fewer than ``min_freq`` times (2: once) is left out and becomes ``<unk>``: the
    phrasebook uses each name and each number once, so the model learns to write ``<unk>`` where
    the source has one, and ``translate`` copies the word there (chapter 10). ``min_freq=1`` keeps
    every word.

    ``gendered`` is for pairs with real names after a relation ("my friend maria" -> "minha amiga
    maria", issue 36): the real names' words and the numbers are left out however often they
    come (``phrasebook.splits.copied_words``), and the source vocabulary gains ``<unk:f>`` and
    ``<unk:m>``, so that the model reads a name's gender where Portuguese needs it, and still
    copies the name.

    Derived in chapter 9 (Training a translator).
    """
    english = [tokenize(e) for e, _ in pairs]
    portuguese = [tokenize(p) for _, p in pairs]
    en_out, pt_out = copied_words_of(english, portuguese) if gendered else (set(), set())
    if share:
        joint = Vocab.build(
            english + portuguese, min_freq=min_freq, leave_out=en_out | pt_out, gendered=gendered
        )
        return joint, joint
    return (
        Vocab.build(english, min_freq=min_freq, leave_out=en_out, gendered=gendered),
        Vocab.build(portuguese, min_freq=min_freq, leave_out=pt_out),
    )


# More than this share of training pairs too long for max_len is an error, not a warning: the data
# would be lost.
TOO_LONG_SHARE = 0.01


def _check_lengths(pairs, max_len: int) -> None:
    """A few pairs longer than ``max_len`` are left out (make_batches warns); more than 1% is a
    ``ValueError``."""
    too_long = [i for i, (e, p) in enumerate(pairs) if not fits(tokenize(e), tokenize(p), max_len)]
    if len(too_long) > TOO_LONG_SHARE * len(pairs):
        first = too_long[0]
        raise ValueError(
            f"{len(too_long)} of {len(pairs)} training pairs are longer than max_len={max_len} "
            "tokens "
            f"and would be left out (first: pairs[{first}] = {pairs[first]!r}); raise max_len "
            f"(--max-len) or shorten the data. At most {TOO_LONG_SHARE:.0%} may be left out"
        )


@dataclass
class TrainResult:
    """What ``train`` returns. ``history`` is JSON-serialisable (``plot_history`` draws it)."""

    model: Translator  # the trained model, in eval mode, on the training device
    src_vocab: Vocab
    tgt_vocab: Vocab
    # {"train": {"step", "loss", "lr"}: one entry per step, "epochs": [one dict per epoch]}
    history: dict
    checkpoint: Path | None  # out_dir / checkpoint.pt, or None without out_dir
    completed: bool  # False when max_steps stopped the run before its last epoch ended


# --- the optimizer -------------------------------------------------------------------------


def make_optimizer(
    model: torch.nn.Module, config: TranslatorConfig, warn=None
) -> torch.optim.AdamW:
    """AdamW as ``train`` uses it: ``betas=(0.9, 0.98)``, ``eps=1e-9``, weight decay on matrices
    only, fused.

    ``fused=True`` updates all parameters in one kernel instead of a Python
    loop over them (on a small model the loop cost about a sixth of a
    training step); the arithmetic is the same, and a seeded run still gives
    the same weights bit for bit. Where this PyTorch has no fused AdamW for
    the parameters' device it falls back to ``foreach=True`` (one kernel per
    operation over all parameters) and says why through ``warn``.

    Derived in chapter 9 (Training a translator).
    """
    decay = [
        p for p in model.parameters() if p.dim() >= 2
    ]  # matrices; biases and LayerNorms are not decayed
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    options = dict(lr=config.lr, betas=(0.9, 0.98), eps=1e-9)
    try:
        return torch.optim.AdamW(groups, fused=True, **options)
    except (
        RuntimeError,
        ValueError,
    ) as e:  # e.g. "fused=True requires all the params to be ... supported devices"
        device = next(model.parameters()).device
        (warn or warnings.warn)(
            f"AdamW(fused=True) is not available for {device.type} parameters in torch "
            f"{torch.__version__} ({e}); using AdamW(foreach=True) instead"
        )
        return torch.optim.AdamW(groups, foreach=True, **options)


@dataclass
class Run:
    """What stays fixed while ``train`` runs: the config, the processes, where and when to save."""

    config: TranslatorConfig
    device: torch.device
    rank: int = 0  # this process, of world
    world: int = 1  # processes (torchrun)
    ckpt_path: Path | None = None  # where checkpoint.pt goes; None writes nothing
    max_steps: int | None = None  # stop after this many steps in all
    checkpoint_every: int | None = None  # steps between checkpoints (besides every epoch)
    on_step: Callable | None = None  # on_step(step, loss) after every step
    say: Callable = print  # the per-epoch lines
    batch_loss: Callable = translator_loss  # (model, batch, config) -> the loss to minimise


# The last epochs built, by what they were built from: chapter 9 stops its run three times and
# resumes it, and each train() call would otherwise tokenize and batch the same 46,000 pairs again
# (a second each). Keyed by the pairs' and vocabularies' contents, never by identity, so a list
# changed in place between calls is batched anew.
_RECENT_EPOCHS: OrderedDict = OrderedDict()
_RECENT_KEPT = 2


def _content_key(pairs, src_vocab, tgt_vocab, batcher, config: TranslatorConfig, epoch: int):
    """What an epoch's batches depend on, or None where it cannot be told (vocabularies that are
    not ``Vocab`` objects: nothing is kept then)."""
    if not (isinstance(src_vocab, Vocab) and isinstance(tgt_vocab, Vocab)):
        return None
    try:
        contents = hash(tuple(tuple(pair) for pair in pairs))
    except TypeError:  # something unhashable in the pairs: make_batches will say what
        return None
    return (
        contents,
        len(pairs),
        tuple(src_vocab.tokens),
        tuple(tgt_vocab.tokens),
        batcher,
        config.batch_size,
        config.seed + epoch,
        config.max_len,
    )


class _EpochBatches:
    """This process's batches of an epoch: the same shuffle in every process, every ``world``-th.

    The last two epochs built are kept, in this call and across calls (an epoch is asked for
    again when a run resumes).
    """

    def __init__(
        self,
        pairs,
        src_vocab: Vocab,
        tgt_vocab: Vocab,
        config: TranslatorConfig,
        rank: int,
        world: int,
        batcher: Callable,
    ):
        self.pairs, self.src_vocab, self.tgt_vocab = pairs, src_vocab, tgt_vocab
        self.config, self.rank, self.world, self.batcher = config, rank, world, batcher

    def __call__(self, epoch: int) -> list:
        key = _content_key(
            self.pairs, self.src_vocab, self.tgt_vocab, self.batcher, self.config, epoch
        )
        if key is not None and key in _RECENT_EPOCHS:
            _RECENT_EPOCHS.move_to_end(key)
            batches = _RECENT_EPOCHS[key]
        else:
            c = self.config
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # unknown words: translate() says them
                batches = self.batcher(
                    self.pairs,
                    self.src_vocab,
                    self.tgt_vocab,
                    c.batch_size,
                    shuffle=True,
                    seed=c.seed + epoch,
                    max_len=c.max_len,
                )
            if key is not None:
                _RECENT_EPOCHS[key] = batches
                while len(_RECENT_EPOCHS) > _RECENT_KEPT:
                    _RECENT_EPOCHS.popitem(last=False)
        return batches[self.rank :: self.world][: len(batches) // self.world]


class _Progress:
    """The progress line: steps, the epoch, the loss (an exponential mean), target tokens per
    second.

    A :class:`tutorlib.display.Progress`, so it redraws 25 times a run whatever the machine's speed.
    """

    def __init__(self, total: int, initial: int, disable: bool):
        self.bar = Progress(total, initial=initial, disable=disable)
        self.smoothed = None

    def update(self, epoch: int, loss_value: float, rate: float) -> None:
        s = self.smoothed
        self.smoothed = loss_value if s is None else 0.95 * s + 0.05 * loss_value
        self.bar.update(epoch=epoch + 1, loss=f"{self.smoothed:.3f}", tok_s=f"{rate:,.0f}")

    def close(self) -> None:
        self.bar.close()


@dataclass
class _Tally:
    """One epoch's running totals, for its log line and history entry."""

    start: float = field(default_factory=time.perf_counter)
    tokens: int = 0  # target tokens, all processes
    loss: float = 0.0  # summed step losses
    steps: int = 0


# --- the steps of the loop ------------------------------------------------------------------


def save_state(state: TrainState, run: Run) -> None:
    """Write ``checkpoint.pt`` (process 0), with every process's random states."""
    rng = [None] * run.world
    if run.world > 1:
        dist.all_gather_object(rng, rng_state())
    else:
        rng = [rng_state()]
    if run.rank == 0 and run.ckpt_path is not None:
        save_checkpoint(run.ckpt_path, state.model, state.to_checkpoint(rng))


def _restore_rng(rng: list, run: Run) -> None:
    if len(rng) == run.world:
        set_rng_state(rng[run.rank])
    else:
        warnings.warn(
            f"{run.ckpt_path} was written by {len(rng)} processes, this run has "
            f"{run.world}: the dropout masks will differ from an uninterrupted run"
        )


def train_step(state: TrainState, net: torch.nn.Module, batch: Batch, run: Run) -> float:
    """One step: the loss of ``batch``, gradients clipped to ``grad_clip``, AdamW, the schedule.

    ``net`` is the model, or its DistributedDataParallel wrapper. Returns the
    loss; the step is counted in ``state`` and its loss and learning rate in
    ``state.history``.
    """
    net.train()
    batch = batch.to(run.device)
    loss = run.batch_loss(net, batch, run.config)
    state.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    # foreach: one norm over all gradients at once instead of one small kernel per parameter
    torch.nn.utils.clip_grad_norm_(state.model.parameters(), run.config.grad_clip, foreach=True)
    state.optimizer.step()
    state.scheduler.step()
    state.step, state.next_batch = state.step + 1, state.next_batch + 1
    loss_value = loss.item()
    state.history["train"]["step"].append(state.step)
    state.history["train"]["loss"].append(loss_value)
    state.history["train"]["lr"].append(state.scheduler.get_last_lr()[0])
    return loss_value


def run_epoch(
    state: TrainState,
    net: torch.nn.Module,
    batches: list,
    run: Run,
    stop=None,
    progress: _Progress | None = None,
) -> tuple[str | None, _Tally]:
    """Train on ``batches`` from ``state.next_batch`` to the epoch's end, or until told to stop.

    Returns ``(halt, tally)``: ``halt`` is ``"interrupted"`` (Ctrl-C: ``stop.requested``),
    ``"stopped"`` (``max_steps`` reached) or None; ``tally`` the epoch's totals.
    A checkpoint is saved every ``checkpoint_every`` steps.
    """
    tally = _Tally()
    while state.next_batch < len(batches):
        batch = batches[state.next_batch]
        loss_value = train_step(state, net, batch, run)
        tally.tokens += batch.num_tgt_tokens * run.world
        tally.loss, tally.steps = tally.loss + loss_value, tally.steps + 1
        if progress is not None:
            rate = tally.tokens / max(time.perf_counter() - tally.start, 1e-9)
            progress.update(state.epoch, loss_value, rate)
        if run.on_step is not None:
            run.on_step(state.step, loss_value)
        interrupted = stop is not None and stop.requested
        if run.world > 1:  # every process stops at the same step, or the others would wait forever
            flag = torch.tensor([float(interrupted)], device=run.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            interrupted = bool(flag.item())
        if interrupted:
            return "interrupted", tally
        if run.max_steps is not None and state.step >= run.max_steps:
            return "stopped", tally
        if run.checkpoint_every and state.step % run.checkpoint_every == 0:
            save_state(state, run)
    return None, tally


def validate(model: torch.nn.Module, valid_batches: list, run: Run) -> float:
    """The mean loss per target token over ``valid_batches`` (all processes'), in eval mode."""
    model.eval()
    total = torch.zeros(2, dtype=torch.float64, device=run.device)  # summed loss, tokens
    with torch.no_grad():
        for batch in valid_batches:
            batch = batch.to(run.device)
            loss = run.batch_loss(model, batch, run.config)
            total += torch.tensor(
                [loss.item() * batch.num_tgt_tokens, batch.num_tgt_tokens],
                dtype=torch.float64,
                device=run.device,
            )
    if run.world > 1:
        dist.all_reduce(total)
    return (total[0] / total[1]).item() if total[1] > 0 else float("nan")


def end_epoch(state: TrainState, valid_batches: list, run: Run, tally: _Tally) -> None:
    """After an epoch: validate, log the epoch in ``state.history`` and in words, move on, save."""
    valid_loss = validate(state.model, valid_batches, run)
    seconds = time.perf_counter() - tally.start
    state.history["epochs"].append(
        {
            "epoch": state.epoch + 1,
            "step": state.step,
            "valid_loss": valid_loss,
            "train_loss": tally.loss / max(tally.steps, 1),
            "seconds": seconds,
            "tokens_per_s": tally.tokens / max(seconds, 1e-9),
        }
    )
    run.say(
        f"epoch {state.epoch + 1}/{run.config.epochs}: "
        f"train loss {tally.loss / max(tally.steps, 1):.4f}, valid loss {valid_loss:.4f}, "
        f"{tally.tokens / max(seconds, 1e-9):,.0f} target tokens/s"
    )
    state.epoch, state.next_batch = state.epoch + 1, 0
    save_state(state, run)


# --- the training loop ----------------------------------------------------------------


def train(
    config: TranslatorConfig | None,
    train_pairs,
    valid_pairs,
    out_dir=None,
    *,
    resume: bool = False,
    max_steps: int | None = None,
    device=None,
    progress: bool = True,
    checkpoint_every: int | None = None,
    on_step=None,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    log=None,
    batch_loss: Callable | None = None,
    model: torch.nn.Module | None = None,
) -> TrainResult:
    """Train a model of ``config``'s kind on ``(english, portuguese)`` pairs; a ``TrainResult``.

    Every step: a batch (target shifted right behind BOS: teacher forcing),
    the loss with label smoothing, gradients clipped to ``config.grad_clip``,
    one AdamW step at ``learning_rate(step)`` (fused: ``make_optimizer``). A
    tqdm bar shows the loss and the target tokens per second; after every
    epoch the validation loss.

    - ``config``: a ``TranslatorConfig`` trains a ``Translator``; another
      kind's config (chapter 13's ``GPTConfig``) trains its model: the kind
      (``tutorlib.translation.kinds``) gives the builder, the loss and the
      batches, decided once from the config (or the checkpoint's, resuming).
    - ``out_dir``: where ``checkpoint.pt`` (after every epoch, every
      ``checkpoint_every`` steps, at ``max_steps`` and on Ctrl-C) and, at the
      end, ``translator.pt`` are written. None writes nothing.
    - ``resume``: continue from ``out_dir/checkpoint.pt``, with its config
      (``config`` may be None; if given it must be the same).
    - ``max_steps``: stop (with a checkpoint) after this many steps in all;
      the learning-rate schedule still spans ``config.epochs``.
    - ``on_step(step, loss)``: called after every step (live plots, tests).
    - ``src_vocab``, ``tgt_vocab``: use these instead of building them from ``train_pairs``.
    - ``log``: prints the per-epoch lines (default: ``tqdm.write``, which keeps the bar intact).
    - ``batch_loss(model, batch, config)``: the loss of one batch, instead of the kind's
      (the translator's: ``translator_loss``).
    - ``model``: go on training this model (of the config's kind, its shape) instead of a
      fresh one; the loop reads ``model.config`` from then on.

    Derived in chapter 9 (Training a translator).
    """
    _check_options(config, max_steps, checkpoint_every)
    rank, world, device, created_group = setup_distributed(device)
    say = (log or tqdm.write) if rank == 0 else (lambda *a, **k: None)
    out_dir = Path(out_dir) if out_dir is not None else None
    ckpt_path = out_dir / CHECKPOINT_NAME if out_dir is not None else None
    checkpoint = None
    if resume:
        checkpoint = resume_checkpoint(ckpt_path, config, max_steps)
        config = checkpoint["config"]
        src_vocab, tgt_vocab = checkpoint["src_vocab"], checkpoint["tgt_vocab"]
    elif config is None:
        raise ValueError(
            "config is None: give a TranslatorConfig (or resume=True to take the checkpoint's)"
        )
    kind = kind_of(config)  # the one place the run decides what it trains

    # the data and the model
    train_pairs, valid_pairs = list(train_pairs), list(valid_pairs)
    _check_lengths(train_pairs, config.max_len)
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    if src_vocab is None or tgt_vocab is None:
        src_vocab, tgt_vocab = build_vocabs(train_pairs, config.share_embeddings)
    model = (model if model is not None else kind.build(config, src_vocab, tgt_vocab)).to(device)
    config = model.config  # sized to the vocabularies
    optimizer = make_optimizer(model, config, say)
    run = Run(
        config,
        device,
        rank,
        world,
        ckpt_path,
        max_steps,
        checkpoint_every,
        on_step,
        say,
        batch_loss or kind.loss,
    )
    epoch_batches = _EpochBatches(
        train_pairs, src_vocab, tgt_vocab, config, rank, world, kind.batcher
    )
    valid_batches = _valid_batches(kind, valid_pairs, src_vocab, tgt_vocab, run)
    # the same every epoch: ceil(pairs / batch_size) batches, shared out among the processes
    steps_per_epoch = len(epoch_batches(checkpoint["epoch"] if checkpoint is not None else 0))
    if steps_per_epoch == 0:
        raise ValueError(
            f"{len(train_pairs)} training pairs make no batch for each of {world} processes"
        )

    # the schedule and the state, fresh or resumed
    total_steps = config.epochs * steps_per_epoch
    state = _start_state(model, optimizer, total_steps, checkpoint, run)
    net = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    say(_summary(model, src_vocab, tgt_vocab, train_pairs, steps_per_epoch, total_steps, run))
    halt = _run_epochs(state, net, epoch_batches, valid_batches, run, total_steps, progress)
    return _finish(state, run, halt, out_dir, created_group)


def _summary(model, src_vocab, tgt_vocab, pairs, steps_per_epoch, total_steps, run: Run) -> str:
    """The line that opens a run: its size, its data, its steps and where it runs."""
    stops_early = run.max_steps is not None and run.max_steps < total_steps
    return (
        f"{model.num_parameters():,} parameters, {len(src_vocab)} + {len(tgt_vocab)} words, "
        f"{len(pairs):,} training pairs, {steps_per_epoch} steps per epoch x "
        f"{run.config.epochs} epochs"
        + (f", {run.world} processes" if run.world > 1 else "")
        + f", on {run.device}"
        + (f", stopping at step {run.max_steps}" if stops_early else "")
    )


def _run_epochs(state, net, epoch_batches, valid_batches, run: Run, total_steps, progress):
    """The epochs from ``state`` on, with the progress bar; returns how they ended (``halt``)."""
    max_steps = run.max_steps
    stops_early = max_steps is not None and max_steps < total_steps
    bar_total = max(min(max_steps, total_steps), state.step) if stops_early else total_steps
    bar = _Progress(bar_total, state.step, disable=not progress or run.rank != 0)
    halt = None
    try:
        with StopRequest() as stop:
            while state.epoch < run.config.epochs and halt is None:
                batches = epoch_batches(state.epoch)
                halt, tally = run_epoch(state, net, batches, run, stop, bar)
                if state.next_batch < len(batches):  # stopped within it: validate when resumed
                    save_state(state, run)
                    break
                end_epoch(state, valid_batches, run, tally)
    finally:
        bar.close()
    return halt


def _check_options(config, max_steps, checkpoint_every) -> None:
    if max_steps is not None:
        whole_number("max_steps", max_steps, 1, hint="None trains every epoch")
    if checkpoint_every is not None:
        whole_number(
            "checkpoint_every", checkpoint_every, 1, hint="None saves after every epoch only"
        )
    if config is not None:
        whole_number(
            "config.epochs", config.epochs, 1, hint="0 epochs would write an untrained model"
        )


def _valid_batches(kind: ModelKind, pairs, src_vocab, tgt_vocab, run: Run) -> list:
    """This process's validation batches: in order, every ``world``-th."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batches = kind.batcher(
            pairs,
            src_vocab,
            tgt_vocab,
            run.config.batch_size,
            shuffle=False,
            max_len=run.config.max_len,
        )
    return batches[run.rank :: run.world]


def _start_state(model, optimizer, total_steps: int, checkpoint: dict | None, run: Run):
    """The schedule and the ``TrainState``: fresh, or loaded from ``checkpoint`` (and said)."""
    config = run.config
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: learning_rate(s, config, total_steps) / config.lr
    )  # LambdaLR multiplies config.lr
    torch.manual_seed(config.seed + run.rank)  # each process its own dropout masks
    if checkpoint is None:
        return TrainState(model, optimizer, scheduler)
    state = TrainState.from_checkpoint(checkpoint, model, optimizer, scheduler)
    _restore_rng(checkpoint["rng"], run)
    run.say(
        f"resuming from {run.ckpt_path} at step {state.step} (epoch {state.epoch + 1}, "
        f"batch {state.next_batch})"
    )
    return state


def _finish(
    state: TrainState, run: Run, halt: str | None, out_dir: Path | None, created_group: bool
) -> TrainResult:
    """After the loop: Ctrl-C raises; else the processes must agree; translator.pt is written."""
    model, ckpt_path, step = state.model, run.ckpt_path, state.step
    if halt == "interrupted":
        run.say(
            f"interrupted at step {step}; {ckpt_path or 'no checkpoint (no out_dir)'} holds it"
            + (": resume with resume=True (CLI: --resume)" if ckpt_path else "")
        )
        if created_group:
            dist.destroy_process_group()
        raise KeyboardInterrupt(f"training interrupted at step {step}; checkpoint: {ckpt_path}")
    completed = state.epoch >= run.config.epochs
    if run.world > 1:
        check_ranks_agree(model, run.device)
        run.say(f"the {run.world} processes agree on the final weights")
    if completed and run.rank == 0 and out_dir is not None:
        save_model(model, out_dir / MODEL_NAME)
    if run.world > 1:
        dist.barrier()
    if created_group:
        dist.destroy_process_group()
    model.eval()
    return TrainResult(model, model.src_vocab, model.tgt_vocab, state.history, ckpt_path, completed)


# --- loss curves ---------------------------------------------------------------------------


def plot_history(history: dict, ax=None):
    """The loss curves of a ``train`` history: training loss per step, validation loss per epoch.
    Returns the figure.

    Derived in chapter 9 (Training a translator).
    """
    import matplotlib.pyplot as plt

    from ..display import OKABE_ITO

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 3.5))
    else:
        fig = ax.figure
    steps, losses = history["train"]["step"], history["train"]["loss"]
    ax.plot(
        steps,
        losses,
        color=OKABE_ITO["blue"],
        alpha=0.3,
        linewidth=0.8,
        label="training loss (each step)",
    )
    if len(losses) >= 20:
        w = max(5, len(losses) // 50)
        windows = [losses[max(0, i - w + 1) : i + 1] for i in range(len(losses))]
        smooth = [sum(window) / len(window) for window in windows]
        ax.plot(steps, smooth, color=OKABE_ITO["blue"], label=f"training loss (mean of {w} steps)")
    epochs = history["epochs"]
    if epochs:
        ax.plot(
            [e["step"] for e in epochs],
            [e["valid_loss"] for e in epochs],
            "o-",
            color=OKABE_ITO["vermillion"],
            label="validation loss (each epoch)",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("loss (label-smoothed cross-entropy)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig
