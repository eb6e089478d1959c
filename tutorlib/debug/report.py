"""What every check of ``tutorlib.debug`` returns, ``Report``, and what the checks share.

``Report`` is the public result. The helpers below are shared by the checks of
this package (``probes``, ``training``, ``attention_weights``): they check the
embedded input ``x (B, T, D)``, run a callable without gradients, compare two
outputs position by position, draw seeded noise, find NaN outputs, and find the
``nn.Module`` s behind a callable (to name dropout left on).

Derived in chapter 12 (Why doesn't my Transformer learn?).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

__all__ = ["Report"]


@dataclass
class Report:
    """The result of one check: ``bool(report)`` is True when healthy.

    ``problems`` lists what failed and where (empty when healthy), ``cause``
    the likely cause, ``details`` the numbers behind the verdict (for plots
    and tables). ``str(report)`` reads as one paragraph.

    Derived in chapter 12 (Why doesn't my Transformer learn?).
    """

    check: str
    problems: list = field(default_factory=list)
    cause: str = ""
    summary: str = ""  # one line on what was checked, healthy or not
    details: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return not self.problems

    @property
    def healthy(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if not self.problems:
            return f"{self.check}: healthy. {self.summary}".rstrip()
        shown = self.problems[:4]
        more = len(self.problems) - len(shown)
        text = f"{self.check}: FAILED. " + "; ".join(shown)
        if more:
            text += f"; and {more} more"
        if self.cause:
            text += f". Likely cause: {self.cause}"
        return text

    def __repr__(self) -> str:
        return str(self)


# --- helpers -----------------------------------------------------------------------------


def embedded_input(x, name: str = "x") -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.ndim != 3:
        got = (
            f"shape {tuple(x.shape)}, dtype {x.dtype}"
            if isinstance(x, torch.Tensor)
            else type(x).__name__
        )
        raise ValueError(
            f"{name} must be a float tensor of shape (B, T, D), got {got}. Pass the embedded "
            "inputs (token vectors), not token ids: wrap the embedding inside fn if your model "
            "starts from ids"
        )
    return x


def run_on(fn, x) -> torch.Tensor:
    with torch.no_grad():
        out = fn(x)
    if isinstance(out, (tuple, list)):
        out = out[0]  # (output, weights) as tutorlib's layers return with need_weights
    if not isinstance(out, torch.Tensor) or out.ndim < 2 or out.shape[:2] != x.shape[:2]:
        got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(
            f"fn must map x of shape (B, T, D) = {tuple(x.shape)} to a tensor (B, T, ...) with the "
            f"same B and T, got {got}. Is your model batch_first? torch.nn.Transformer needs "
            "batch_first=True"
        )
    return out.float()


def moved_positions(a: torch.Tensor, b: torch.Tensor, atol: float) -> torch.Tensor:
    """(B, T): did position t of sequence b move by more than the tolerance (NaN counts as
    moved)?"""
    scale = max(1.0, float(torch.nan_to_num(a.abs()).max()))
    diff = (a - b).abs().flatten(2).amax(dim=-1)  # (B, T, ...) -> (B, T)
    return torch.nan_to_num(diff, nan=float("inf")) > atol * scale


def noise_like(x: torch.Tensor, seed: int) -> torch.Tensor:
    # an odd offset, so that the noise never repeats an x drawn with torch.manual_seed(seed)
    g = torch.Generator(device="cpu").manual_seed(7919 + seed)
    scale = float(x.detach().std()) if x.numel() > 1 else 1.0
    return (torch.randn(x.shape, generator=g) * max(scale, 1e-3)).to(x.device, x.dtype)


def nan_problems(out: torch.Tensor) -> list:
    bad = ~torch.isfinite(out.flatten(2)).all(dim=-1)  # (B, T)
    if bad.any():
        where = [tuple(int(i) for i in w) for w in torch.nonzero(bad)[:3]]
        return [
            f"the output is NaN or inf at (sequence, position) {', '.join(map(str, where))}"
            + (f" and {int(bad.sum()) - 3} more" if int(bad.sum()) > 3 else "")
        ]
    return []


NAN_CAUSE = (
    "a query row with every key masked (the softmax divides 0 by 0): a mask with the wrong "
    "polarity (True = hide where True = attend is expected), or the padding mask on the queries' "
    "axis"
)


def modules_behind(fn):
    """The nn.Modules behind ``fn``: itself, or those a lambda or bound method closes over."""
    found = []
    if isinstance(fn, nn.Module):
        return [("", fn)]
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, nn.Module):
        found.append(("", owner))
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, nn.Module):
            found.append(("", value))
    return found


def has_dropout(m: nn.Module) -> bool:
    return any(isinstance(s, nn.Dropout) and s.p > 0 for s in m.modules()) or any(
        getattr(s, "dropout", 0) not in (0, 0.0, None)
        and isinstance(getattr(s, "dropout", 0), float)
        for s in m.modules()
    )
