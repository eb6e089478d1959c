"""The GPT's files (chapter 13): the translator's checkpoints with ``kind="gpt"``, and the shipped
GPTs.

``save_gpt`` and ``load_gpt`` are ``save_model`` and ``load_checkpoint`` of
``tutorlib.translation.checkpoints`` checked for a GPT; ``load_pretrained``
reads the shipped GPT on BPE tokens (``tutorlib/pretrained/gpt.pt``) or on
words (``gpt_words.pt``); ``PRETRAINED_GPT_COMMANDS`` holds the commands that
made them.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

from ..checkpoints import CheckpointError, load_checkpoint, save_model
from ..config import PRETRAINED_GPT_PATH, PRETRAINED_GPT_WORDS_PATH
from .model import GPT

__all__ = [
    "save_gpt",
    "load_gpt",
    "load_pretrained",
    "PRETRAINED_GPT_COMMANDS",
    "PRETRAINED_GPT_COMMAND",
]


def save_gpt(model: GPT, path, **meta):
    """Write ``model``'s weights, config and vocabulary to ``path`` (``save_model``'s file,
    ``kind="gpt"``).

    Derived in chapter 13 (The translator as a GPT).
    """
    if not isinstance(model, GPT):
        raise ValueError(f"save_gpt saves a GPT, got {type(model).__name__}")
    return save_model(model, path, **meta)


def load_gpt(path, device=None) -> GPT:
    """The GPT stored at ``path`` (a file from ``save_gpt`` or ``train_gpt``, or its folder), in
    eval mode.

    Derived in chapter 13 (The translator as a GPT).
    """
    model, _, _ = load_checkpoint(path, device=device, what="GPT")
    if not isinstance(model, GPT):
        raise CheckpointError(
            f"{path} holds a {type(model).__name__}, not a GPT: load it with "
            "tutorlib.translation.checkpoints.load_checkpoint"
        )
    return model


# How the shipped GPTs are made: the commands, and where their files go. "pretrained" reads BPE
# tokens (chapter 14); "words" reads chapter 9's words (chapter 13's comparison). The GPT on BPE
# goes on training after its preset's 24 epochs, from its own weights (--init), for
# BPE_LATER_DRAWS more stages of 5 epochs, each on another draw of the real names and numbers
# (--draw): after draws 1 and 2, 94.6 % and 95.4 % of held-out names, where the 24 epochs alone
# wrote 92.9 %. The stages from RELATION_DRAW on also read the sentences with a relation before a
# name (--relations: "my friend ana" -> "minha amiga ana"): 41 % -> 72 % of them right, the
# held-out names at 94.7 %. Two stages at half the learning rate (BPE_LAST_LR, from
# LAST_LR_DRAW on) bring them to 95.6 %, then, the last with a third of the names of its
# phrasebook pairs respelled in the letters of Latin-1 and Latin Extended-A (world.RESPELL_DRAW),
# to 96.3 %, and the names of the languages held out of
# training from 88.7 % to 96.4 %; 72 % of the relations (tutorlib/pretrained/README.md).
BPE_LATER_DRAWS = (1, 2, 3, 4, 5, 6, 7)
RELATION_DRAW = 3
BPE_LR, BPE_LAST_LR, LAST_LR_DRAW = "5e-4", "2.5e-4", 6


def _later_stage(draw: int) -> str:
    before = f"runs/gpt_draw{draw - 1}" if draw > 1 else "runs/gpt"
    lr = BPE_LAST_LR if draw >= LAST_LR_DRAW else BPE_LR
    return (
        f"python -m tutorlib train --model gpt --init {before}/translator.pt --names real "
        f"--draw {draw}{' --relations' * (draw >= RELATION_DRAW)} --epochs 5 --lr {lr} "
        f"--warmup-steps 50 --seed {draw} --out runs/gpt_draw{draw}"
    )


PRETRAINED_GPT_COMMANDS = {
    "bpe": " && ".join(
        [
            "python -m tutorlib train --model gpt --preset pretrained --names real --out runs/gpt",
            *map(_later_stage, BPE_LATER_DRAWS),
            f"cp runs/gpt_draw{BPE_LATER_DRAWS[-1]}/translator.pt "
            f"tutorlib/pretrained/{PRETRAINED_GPT_PATH.name}",
        ]
    ),
    "words": "python -m tutorlib train --model gpt --preset words --relations "
    "--out runs/gpt_words && "
    f"cp runs/gpt_words/translator.pt tutorlib/pretrained/{PRETRAINED_GPT_WORDS_PATH.name}",
}
PRETRAINED_GPT_COMMAND = PRETRAINED_GPT_COMMANDS["bpe"]


def load_pretrained(tokens: str = "bpe", device=None) -> GPT:
    """A GPT translator shipped with tutorlib, in eval mode.

    ``tokens="bpe"`` (the default): ``tutorlib/pretrained/gpt.pt``, on chapter
    14's byte-level BPE, which spells out names and numbers it never saw.
    ``tokens="words"``: ``tutorlib/pretrained/gpt_words.pt``, on chapter 9's
    words, the one chapter 13 compares with the encoder-decoder (same words,
    same batches, the same number of parameters within 0.3 %).
    ``PRETRAINED_GPT_COMMANDS`` holds the command that made each.

    Derived in chapter 13 (The translator as a GPT).
    """
    if tokens not in PRETRAINED_GPT_COMMANDS:
        raise ValueError(
            f"tokens must be one of {sorted(PRETRAINED_GPT_COMMANDS)} (the shipped GPTs), got "
            f"{tokens!r}"
        )
    path = PRETRAINED_GPT_PATH if tokens == "bpe" else PRETRAINED_GPT_WORDS_PATH
    if not path.is_file():
        raise FileNotFoundError(
            f"the shipped GPT translator is missing ({path} does not exist). Make it with "
            f"`{PRETRAINED_GPT_COMMANDS[tokens]}`; meanwhile pass a GPT from train_gpt or "
            "load_gpt(PATH) (on the command line: --checkpoint PATH)"
        )
    return load_gpt(path, device=device)
