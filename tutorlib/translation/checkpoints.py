"""Saving and loading the translator: checkpoints, atomically written and checked when read.

Two files, one format (a dict of tensors, numbers and strings: ``torch.load``
reads it with ``weights_only=True``, and no class path is stored):

- ``translator.pt`` (``MODEL_NAME``): weights, config and vocabularies, what
  translating needs (``save_model``, ``load_checkpoint``, ``load_pretrained``);
- ``checkpoint.pt`` (``CHECKPOINT_NAME``): the same and the training state
  (optimizer, scheduler, position in the data, random states, history), what
  resuming needs (``save_checkpoint``; ``tutorlib.translation.training``
  writes and reads it through ``TrainState``).

``atomic_save`` writes any of them so that a run killed while writing leaves
the previous file intact; ``model_state`` and ``model_from_state`` turn a
model into the dict and back. The file names the model's ``kind``
(``tutorlib.translation.kinds``): the encoder-decoder ``Translator``
(``"translator"``, also every file written before kinds existed), the
decoder-only ``GPT`` of chapter 13 (``"gpt"``), chapter 15's ``ModernGPT``
(``"modern_gpt"``) or chapter 17's ``LatentGPT`` (``"latent_gpt"``), so that all share
these files, their checks and the training loop's resuming; the kind read from the file
decides the config class and the model class, once. ``tutorlib.translator`` keeps
``load_pretrained`` as part of its stable API; the other names live only here.

Derived in chapters 9 (Training a translator) and 10 (Translating and evaluating).
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
import zipfile
from pathlib import Path

import torch

from .config import PRETRAINED_PATH
from .data import Vocab
from .gpt.tokens import SubwordTokenizer
from .kinds import KINDS, kind_of
from .model import Translator

__all__ = [
    "CheckpointError",
    "CHECKPOINT_NAME",
    "MODEL_NAME",
    "pick_device",
    "atomic_save",
    "model_state",
    "model_from_state",
    "save_model",
    "save_checkpoint",
    "read_checkpoint",
    "load_checkpoint",
    "load_pretrained",
    "VARIANTS_DIR",
    "shipped_or_trained",
]

VARIANTS_DIR = PRETRAINED_PATH.parent / "variants"  # the chapters' small trained models
CHECKPOINT_NAME = "checkpoint.pt"  # everything to resume training (train() writes it)
MODEL_NAME = "translator.pt"  # weights, config and vocabularies: what translating needs
FORMAT, FORMAT_VERSION = "tutorlib-translator", 1


def vocab_from_dict(d: dict):
    """A vocabulary stored by its ``to_dict``: chapter 9's word ``Vocab``, or, where the dict says
    ``"type": "bpe"``, chapter 14's ``SubwordTokenizer``."""
    if isinstance(d, dict) and d.get("type") == "bpe":
        return SubwordTokenizer.from_dict(d)
    return Vocab.from_dict(d)


# --- checkpoints ----------------------------------------------------------------------------


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: unreadable, not ours, or not matching its config."""


def pick_device(device=None) -> torch.device:
    """``device`` if given, else the best one here: CUDA, then Apple's MPS, then the CPU.

    A device this machine does not have (``"cuda"`` on a CPU-only build,
    ``"bogus"``) is a ``ValueError`` saying which devices there are.
    """
    if device is not None:
        try:
            device = torch.device(device)
        except (RuntimeError, TypeError):
            raise ValueError(
                f"device must be 'cpu', 'cuda', 'cuda:N' or 'mps', got {device!r}"
            ) from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(
                f"device {str(device)!r} asked for, but this PyTorch sees no CUDA GPU (a CPU-only "
                "build, "
                "or no driver): use --device cpu, or leave it out to take the best one available"
            )
        if (
            device.type == "cuda"
            and device.index is not None
            and device.index >= torch.cuda.device_count()
        ):
            raise ValueError(
                f"device {str(device)!r} asked for, but there are {torch.cuda.device_count()} CUDA "
                f"GPUs (cuda:0 to cuda:{torch.cuda.device_count() - 1})"
            )
        if device.type == "mps" and not (
            getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
        ):
            raise ValueError(
                "device 'mps' asked for, but Apple's MPS is not available here: use cpu"
            )
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def atomic_save(obj, path: Path) -> None:
    """``torch.save`` to a temporary file in the same folder, then rename it over ``path``.

    A rename within one file system is atomic: whoever opens ``path`` sees
    the old file or the new one, never half of one, even if this process is
    killed while writing. A temporary file left by a run killed while
    writing (``.checkpoint.pt.*.tmp``) is removed first.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(
            tmp, 0o666 & ~umask
        )  # mkstemp makes it private (0600); a checkpoint is an ordinary file
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def model_state(model: Translator) -> dict:
    """``model`` as the dict a checkpoint stores: format, config, weights and both vocabularies.

    Plain data only (no class paths), so ``torch.load(..., weights_only=True)``
    reads it back; ``model_from_state`` (after ``read_checkpoint``) rebuilds the model.
    """
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "kind": kind_of(model).name,  # which class reads it back (tutorlib.translation.kinds)
        "config": model.config.to_dict(),
        "model": model.state_dict(),
        "src_vocab": model.src_vocab.to_dict(),
        "tgt_vocab": model.tgt_vocab.to_dict(),
    }


def save_model(model: Translator, path, **meta) -> Path:
    """Write ``model``'s weights, config and vocabularies (no optimizer) to ``path``, atomically.

    Extra keyword arguments are stored under ``"meta"`` (scores, the command that trained it...).
    """
    path = Path(path)
    atomic_save({**model_state(model), "meta": meta}, path)
    return path


def save_checkpoint(path, model: Translator, training_state: dict) -> Path:
    """Write ``model`` and the ``training_state`` that resumes it (optimizer, ...), atomically.

    ``training_state`` is a dict of plain data and tensors (``TrainState.to_checkpoint`` makes one);
    its keys sit beside the model's in the file, and ``read_checkpoint`` returns them all.

    Derived in chapter 9 (Training a translator).
    """
    path = Path(path)
    atomic_save({**model_state(model), **training_state}, path)
    return path


def read_checkpoint(path, what: str = "translator") -> dict:
    """The dict stored in a translator checkpoint, checked; ``CheckpointError`` names the file and
    what is wrong.

    ``path`` may be a training folder: its ``translator.pt``, else its ``checkpoint.pt``.
    ``what`` names the model the caller expects ("translator", "GPT") in the message for a
    file that is not there.
    """
    path = Path(path)
    train = f"python -m tutorlib train{' --model gpt' if what == 'GPT' else ''} --out FOLDER"
    where = f" ({path.resolve()})" if not path.is_absolute() else ""
    if path.is_dir():
        candidates = [path / MODEL_NAME, path / CHECKPOINT_NAME]
        found = [p for p in candidates if p.is_file()]
        if not found:
            raise FileNotFoundError(
                f"the folder {path}{where} holds no {MODEL_NAME} or {CHECKPOINT_NAME}: was it "
                f"trained with `{train}` (FOLDER this folder)?"
            )
        path = found[0]
    if not path.is_file():
        raise FileNotFoundError(
            f"no {what} checkpoint at {path}{where}: the file does not exist. A checkpoint is "
            f"a file from save_model or training, or a training folder, where {MODEL_NAME} "
            f"(else {CHECKPOINT_NAME}) is read; train one with `{train}`"
        )
    damage = _plain_damage(path)
    if damage:
        raise CheckpointError(f"{path} cannot be read as a checkpoint: {damage}. {_REMAKE}")
    try:
        _check_zip_crc(path)
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        if "GLOBAL" not in str(e):  # a damaged file, not a file that names code to run
            raise CheckpointError(_unreadable(path, e)) from e
        # torch's own message ends with "set weights_only=False": the one thing not to do with a
        # file
        # that holds code, so it is not passed on
        raise CheckpointError(
            f"{path} holds Python objects that are neither tensors nor plain data (a pickle that "
            "would run code when loaded), which no checkpoint of tutorlib holds: it was not "
            "written "
            "by `python -m tutorlib train` nor save_model. Do not load it with weights_only=False; "
            "retrain, or fetch the course's translator.pt again"
        ) from None
    except Exception as e:
        raise CheckpointError(_unreadable(path, e)) from e
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        what = (
            f"a dict with keys {sorted(state)[:8]}"
            if isinstance(state, dict)
            else f"a {type(state).__name__}"
        )
        raise CheckpointError(
            f"{path} is a PyTorch file but not a tutorlib translator checkpoint: it holds {what}, "
            f"without format={FORMAT!r}"
        )
    if state.get("version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} is a translator checkpoint of format version {state.get('version')!r}; this "
            f"tutorlib reads version {FORMAT_VERSION}"
        )
    missing = [k for k in ("config", "model", "src_vocab", "tgt_vocab") if k not in state]
    if missing:
        raise CheckpointError(f"{path} lacks {missing}: it is incomplete")
    kind = state.setdefault("kind", "translator")  # files from before kinds hold a translator
    if kind not in KINDS:
        raise CheckpointError(
            f"{path} holds a model of kind {kind!r}; this tutorlib reads {sorted(KINDS)}"
        )
    try:
        state["config"] = KINDS[kind].config.from_dict(state["config"])
        state["src_vocab"] = vocab_from_dict(state["src_vocab"])
        state["tgt_vocab"] = vocab_from_dict(state["tgt_vocab"])
    except Exception as e:
        raise CheckpointError(f"{path} has an unusable config or vocabulary: {e}") from e
    state["path"] = path
    return state


# How to get a damaged checkpoint back: what every message about one ends with.
_REMAKE = (
    "Make it again with the command that wrote it (`python -m tutorlib train --out FOLDER`, "
    "with --model gpt for a GPT, writes FOLDER/translator.pt; tutorlib/pretrained/README.md "
    "has the shipped models' commands), or copy it again from where it came"
)


def _plain_damage(path: Path) -> str:
    """What is plainly wrong with a file before torch reads it, or ``""``: it is empty, or it
    is a zip archive (what ``torch.save`` writes) cut short, whose end never came."""
    size = path.stat().st_size
    if size == 0:
        return "the file is empty (0 bytes): a save or a copy that never wrote it"
    with open(path, "rb") as f:
        head = f.read(4)
    if head == b"PK\x03\x04" and not zipfile.is_zipfile(path):
        return (
            f"it is truncated: it begins as the zip archive torch.save writes, but the "
            f"archive's end is missing after {size:,} bytes (a copy or download that did not "
            "finish?)"
        )
    return ""


def _unreadable(path: Path, e: Exception) -> str:
    # torch's weights_only message advises weights_only=False, wrong for a damaged file: only its
    # own finding ("Unsupported operand 0") is passed on, its first sentence whole
    lines = [
        line.strip()
        for line in str(e).splitlines()
        if line.strip()
        and not any(w in line for w in ("weights_only", "Weights only", "documentation"))
    ]
    if not lines:  # older torch: the advice and its finding on one line
        found = (str(e).rpartition("WeightsUnpickler error:")[2].strip().splitlines() or [""])[0]
        lines = [found if "weights_only" not in found else ""]
    what = lines[0]
    end = what.find(". ")
    what = what[: end + 1] if end > 0 else what  # torch's first sentence, never cut inside it
    return (
        f"{path} cannot be read as a checkpoint ({type(e).__name__}{': ' + what if what else ''}). "
        "It is truncated or corrupted (a copy that did not finish?) or not a PyTorch file at "
        f"all. {_REMAKE}"
    )


def _check_zip_crc(path: Path) -> None:
    """A ``torch.save`` file is a zip archive, each member with a CRC-32: recompute them all.

    ``torch.load`` does not, so a few overwritten bytes inside the weights
    would load as different numbers and translate to nonsense (or nothing).
    """
    if not zipfile.is_zipfile(path):
        return  # the legacy (non-zip) format, or not a PyTorch file: torch.load says which
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
    if bad is not None:
        raise ValueError(
            f"the stored checksum (CRC-32) of {bad!r} inside it does not match its bytes"
        )


def _check_finite(state: dict, path: Path) -> None:
    """Refuse weights holding NaN or infinity: a run that diverged, or a damaged file."""
    for name, tensor in state["model"].items():
        if (
            torch.is_tensor(tensor)
            and tensor.is_floating_point()
            and not torch.isfinite(tensor).all()
        ):
            bad = int((~torch.isfinite(tensor)).sum())
            raise CheckpointError(
                f"{path}: the weights {name!r} hold {bad} NaN or infinite value"
                f"{'s' if bad > 1 else ''} of {tensor.numel()}. Did the training diverge "
                "(a learning rate too high)? Use an earlier checkpoint"
            )


def model_from_state(state: dict, device) -> Translator:
    """The model a ``read_checkpoint`` dict describes, on ``device``; weights finite and matching.

    A mismatch (edited config, weights of another model) is a ``CheckpointError`` naming the file.
    """
    path, config = state["path"], state["config"]
    _check_finite(state, path)
    try:
        model = KINDS[state["kind"]].model(config, state["src_vocab"], state["tgt_vocab"])
    except ValueError as e:
        raise CheckpointError(f"{path}: its config and vocabularies do not match: {e}") from e
    try:
        model.load_state_dict(state["model"])
    except RuntimeError as e:
        problems = [line.strip() for line in str(e).splitlines()[1:] if line.strip()]
        more = f" (and {len(problems) - 2} more)" if len(problems) > 2 else ""
        raise CheckpointError(
            f"{path}: the weights do not match the model its config describes: "
            f"{' '.join(problems[:2])}{more}. Was the config edited, or the weights saved "
            "from another model?"
        ) from e
    return model.to(pick_device(device))


def load_checkpoint(
    path, device=None, *, what: str = "translator"
) -> tuple[Translator, Vocab, Vocab]:
    """``(model, src_vocab, tgt_vocab)`` from a ``translator.pt`` or ``checkpoint.pt`` (or a
    training folder).

    The model is in eval mode, on ``device`` (default: ``pick_device()``).
    A missing, corrupted or mismatched file raises an error naming the file
    and what is wrong (``what``: the model expected, "translator" or "GPT", for a file that is
    not there).

    Derived in chapter 10 (Translating and evaluating).
    """
    state = read_checkpoint(path, what)
    model = model_from_state(state, device).eval()
    return model, model.src_vocab, model.tgt_vocab


def load_pretrained(device=None) -> tuple[Translator, Vocab, Vocab]:
    """The translator shipped with tutorlib: ``(model, src_vocab, tgt_vocab)``, in eval mode.

    Read from ``tutorlib/pretrained/translator.pt``; how it was trained, and
    its scores, are in ``tutorlib/pretrained/README.md``.

    Derived in chapter 10 (Translating and evaluating).
    """
    return load_checkpoint(PRETRAINED_PATH, device=device)


def shipped_or_trained(name: str, recipe: dict, train, *, retrain: bool = False):
    """The model ``train()`` would make, read from the copy shipped for the chapters when it was
    made by this very ``recipe``; trained here otherwise.

    A chapter whose lesson needs several trainings of minutes each (chapters 13 and 15) ships the
    models they give, about a megabyte each, in ``tutorlib/pretrained/variants/<name>.pt``
    with the ``recipe`` that made them (plain data: the config's ``to_dict()``, steps, what was
    trained further). The chapter states its recipe and calls this: the shipped file is used only
    if its recorded recipe equals the cell's, so a reader who changes a number in the cell gets a
    model trained on their recipe, not a stale one; ``retrain=True``, or the environment variable
    ``TUTORLIB_RETRAIN=1``, trains in any case. With ``TUTORLIB_SAVE_VARIANTS=1`` a model trained
    here is written to that folder with its recipe: running the chapter with both variables is the
    command that makes the shipped files (``tutorlib/pretrained/README.md``).

    Returns ``(model, how)``, ``how`` being ``"shipped"`` or ``"trained"``.
    """
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise ValueError(f"name must be letters, digits and '_', got {name!r}")
    if not isinstance(recipe, dict):
        raise ValueError(f"recipe must be a dict of plain data, got {type(recipe).__name__}")
    recipe = json.loads(json.dumps(recipe))  # as the file will hold it: lists, not tuples
    path = VARIANTS_DIR / f"{name}.pt"
    retrain = retrain or os.environ.get("TUTORLIB_RETRAIN") == "1"
    shipped = None
    if not retrain and path.is_file():
        state = read_checkpoint(path)
        shipped = state.get("meta", {}).get("recipe")
        if shipped == recipe:
            return model_from_state(state, torch.device("cpu")).eval(), "shipped"
    if not retrain and os.environ.get("TUTORLIB_REQUIRE_SHIPPED") == "1":
        # the tests run the chapters so: a chapter that would train for minutes is a stale file
        if shipped is None:
            why = f"there is no {path}"
        else:
            keys = sorted(k for k in set(recipe) | set(shipped) if recipe.get(k) != shipped.get(k))
            why = f"{path} was made by another recipe (it differs in {keys})"
        raise RuntimeError(
            f"{why}, and TUTORLIB_REQUIRE_SHIPPED=1 forbids training it here: make it again "
            "with the chapter's own cells, TUTORLIB_RETRAIN=1 TUTORLIB_SAVE_VARIANTS=1 "
            "(tutorlib/pretrained/README.md)"
        )
    model = train()
    if os.environ.get("TUTORLIB_SAVE_VARIANTS") == "1":
        save_model(model, path, recipe=recipe)
    return model.cpu().eval(), "trained"  # on the CPU, as a shipped one: the cells make CPU inputs
