"""The training loop's processes and interruptions (chapter 9): torchrun, Ctrl-C, random states.

Under ``torchrun --nproc_per_node=N`` the loop (``tutorlib.translation.training``)
joins the process group (``setup_distributed``: gloo on CPU, NCCL on CUDA) and
checks at the end that every process holds the same weights
(``check_ranks_agree``). ``StopRequest`` turns the first Ctrl-C (or SIGTERM)
into "stop after this step and save"; ``rng_state`` / ``set_rng_state`` are
what a checkpoint stores so that a resumed run draws the same dropout masks.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

import os
import random
import signal
import threading

import torch
import torch.distributed as dist
from tqdm.std import tqdm

from .checkpoints import pick_device

__all__ = ["rng_state", "set_rng_state", "setup_distributed", "check_ranks_agree", "StopRequest"]


# --- random states --------------------------------------------------------------------


def rng_state() -> dict:
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "python": random.getstate(),
    }


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    random.setstate(state["python"])


# --- several processes ---------------------------------------------------------------


def setup_distributed(device) -> tuple[int, int, torch.device, bool]:
    """``(rank, world_size, device, created)``: joins torchrun's process group when there is one."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1 and not dist.is_initialized():
        return 0, 1, pick_device(device), False
    created = False
    device = pick_device(device)
    if device.type == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
        created = True
    return dist.get_rank(), dist.get_world_size(), device, created


def check_ranks_agree(model: torch.nn.Module, device) -> None:
    """After DDP training every process must hold the same weights; a checksum per process proves
    it."""
    total = torch.zeros(1, dtype=torch.float64, device=device)
    for p in model.parameters():
        total += p.detach().double().sum()
    sums = [torch.zeros_like(total) for _ in range(dist.get_world_size())]
    dist.all_gather(sums, total)
    if any(not torch.equal(s, sums[0]) for s in sums):
        raise RuntimeError(
            f"the processes ended with different weights (checksums {[s.item() for s in sums]})"
        )


# --- Ctrl-C -------------------------------------------------------------------------------


class StopRequest:
    """While active, the first Ctrl-C (SIGINT, or a SIGTERM as torchrun and job schedulers send)
    only asks the loop to stop after its step; a second one stops at once."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.requested = False
        self._old = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._old = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        tqdm.write(
            f"{signal.Signals(signum).name}: stopping after this step and saving a checkpoint "
            "(once more to stop at once)"
        )

    def __exit__(self, *exc):
        for s, old in self._old.items():
            signal.signal(s, old)
