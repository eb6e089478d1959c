"""What a training run carries from step to step, and what a checkpoint holds to resume it.

``TrainState`` is the model, optimizer, scheduler, step, epoch, position in
the data and history: with the model's files, what ``checkpoint.pt`` holds
(``to_checkpoint``, ``from_checkpoint``). ``resume_checkpoint`` reads the
checkpoint a run resumes from and checks it against the run's arguments. The
loop that uses them is ``tutorlib.translation.training``.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from .checkpoints import CheckpointError, read_checkpoint
from .config import VOCAB_FIELDS, TranslatorConfig
from .processes import rng_state

__all__ = ["RESUME_KEYS", "TrainState", "resume_checkpoint"]


# What a checkpoint holds besides the model when it can resume a run (TrainState.to_checkpoint).
RESUME_KEYS = ("optimizer", "scheduler", "step", "epoch", "next_batch", "history", "rng")


def _new_history() -> dict:
    return {"train": {"step": [], "loss": [], "lr": []}, "epochs": []}


@dataclass
class TrainState:
    """What a run carries from step to step: with the model's files, what ``checkpoint.pt`` holds.

    ``to_checkpoint`` turns it into the dict that ``save_checkpoint`` writes
    beside the model; ``from_checkpoint`` loads such a dict (as
    ``read_checkpoint`` returns it) into a freshly built model, optimizer and
    scheduler, so that the run goes on to the very same weights as a run
    never interrupted.

    Derived in chapter 9 (Training a translator).
    """

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    step: int = 0  # optimizer steps taken in all
    epoch: int = 0  # epochs completed
    next_batch: int = 0  # the batch of the current epoch to take next
    history: dict = field(default_factory=_new_history)  # TrainResult.history

    def to_checkpoint(self, rng: list | None = None) -> dict:
        """The state as plain data and tensors (``RESUME_KEYS``), without the model.

        ``rng`` holds every process's random states, one dict each (default: this process's alone).
        """
        return {
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step,
            "epoch": self.epoch,
            "next_batch": self.next_batch,
            "history": self.history,
            "rng": rng if rng is not None else [rng_state()],
        }

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: dict,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        scheduler: torch.optim.lr_scheduler.LRScheduler,
    ) -> TrainState:
        """Load ``checkpoint`` into ``model``, ``optimizer`` and ``scheduler``: the state it holds.

        The random states are left to the caller (``checkpoint["rng"]``): which
        one is this process's depends on the run (``_restore_rng``).
        """
        missing = [k for k in ("model", *RESUME_KEYS) if k not in checkpoint]
        if missing:
            where = checkpoint.get("path", "the checkpoint")
            raise CheckpointError(
                f"{where} holds a model but not the training state to resume "
                f"({missing} missing): it was written by save_model, not by "
                "train"
            )
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        for group in (
            optimizer.param_groups
        ):  # a checkpoint's groups carry its run's choice; keep this run's
            group["fused"], group["foreach"] = (
                optimizer.defaults["fused"],
                optimizer.defaults["foreach"],
            )
        scheduler.load_state_dict(checkpoint["scheduler"])
        return cls(
            model,
            optimizer,
            scheduler,
            checkpoint["step"],
            checkpoint["epoch"],
            checkpoint["next_batch"],
            checkpoint["history"],
        )


def resume_checkpoint(
    ckpt_path: Path | None, config: TranslatorConfig | None, max_steps: int | None
) -> dict:
    """The checkpoint to resume from, checked against the run's arguments."""
    if ckpt_path is None:
        raise ValueError("resume=True needs the out_dir that holds the checkpoint to resume from")
    checkpoint = read_checkpoint(ckpt_path)
    missing = [k for k in RESUME_KEYS if k not in checkpoint]
    if missing:
        raise CheckpointError(
            f"{ckpt_path} holds a model but not the training state to resume "
            f"({missing} missing): it was written by save_model, not by train"
        )
    saved, step = checkpoint["config"], checkpoint["step"]
    if config is not None and type(config) is not type(saved):
        raise CheckpointError(
            f"{ckpt_path} holds a {type(saved).__name__} run but the config given is a "
            f"{type(config).__name__}: resume with config=None, or train into a new folder"
        )
    if config is not None:
        # the sizes train() takes from the vocabularies are the saved ones
        derived = {k: v for k, v in saved.to_dict().items() if k in VOCAB_FIELDS}
        given = {**config.to_dict(), **derived}
        diff = {k: (v, given[k]) for k, v in saved.to_dict().items() if given[k] != v}
        if diff:
            raise CheckpointError(
                f"{ckpt_path} was trained with another config; (saved, given): "
                f"{diff}. Resume with config=None to use the saved one, or train "
                "into a new folder"
            )
    if max_steps is not None and max_steps <= step:
        raise ValueError(
            f"max_steps={max_steps} but {ckpt_path} is already at step {step}: "
            f"resuming would train past it; give a max_steps above {step} (or none)"
        )
    return checkpoint
