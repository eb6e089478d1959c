"""The translator from the command line (chapters 9 and 10).

    python -m tutorlib train --preset tiny --out runs/tiny        # train (torchrun works too)
    python -m tutorlib train --out runs/tiny --resume             # continue an interrupted run
    python -m tutorlib evaluate --checkpoint runs/tiny --beam 4   # BLEU, chrF, exact match on the test split
    python -m tutorlib translate "I am happy" "the red car"       # the shipped model, or --checkpoint

The shipped model, ``tutorlib/pretrained/translator.pt``, is trained by

    python -m tutorlib train --preset pretrained --out tutorlib/pretrained
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import zlib
from pathlib import Path

from .translator import PRESETS, PRETRAINED_PATH, TranslatorConfig

CHECKPOINT_HELP = "translator.pt, checkpoint.pt or a training folder (default: the shipped model)"
# Config fields set from the data, never on the command line.
_DERIVED = {"src_vocab_size", "tgt_vocab_size"}


def _pairs(args, split: str):
    """``(english, portuguese)`` pairs of ``split``: the phrasebook, or ``--data`` FILE.tsv split 90/5/5 by a hash."""
    from . import data

    if args.data is None:
        return data.phrasebook(split)
    pairs = data.load_tatoeba(args.data)
    # the same sentence always lands in the same split, whatever the file's order
    bucket = {"train": range(0, 18), "valid": range(18, 19), "test": range(19, 20)}[split]
    return [(e, p) for e, p in pairs if zlib.crc32(e.encode("utf-8")) % 20 in bucket]


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model and training (override the preset; see TranslatorConfig)")
    for f in dataclasses.fields(TranslatorConfig):
        if f.name in _DERIVED:
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            group.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None)
        else:
            kind = {"int": int, "float": float}.get(f.type if isinstance(f.type, str) else f.type.__name__, str)
            group.add_argument(flag, dest=f.name, type=kind, default=None, metavar=f.name.upper())


def _config(args) -> TranslatorConfig | None:
    overrides = {f.name: getattr(args, f.name) for f in dataclasses.fields(TranslatorConfig)
                 if f.name not in _DERIVED and getattr(args, f.name) is not None}
    if args.resume and args.preset is None and not overrides:
        return None  # the checkpoint's own
    base = PRESETS[args.preset or "tiny"]
    return dataclasses.replace(base, **overrides)


def cmd_train(args) -> int:
    from .training import MODEL_NAME, save_model, train
    from .translator import evaluate

    config = _config(args)
    train_pairs, valid_pairs = _pairs(args, "train"), _pairs(args, "valid")
    if args.train_pairs is not None:
        train_pairs = train_pairs[: args.train_pairs]
    start = time.perf_counter()
    try:
        result = train(config, train_pairs, valid_pairs, args.out, resume=args.resume, max_steps=args.max_steps,
                       device=args.device, progress=not args.no_progress, checkpoint_every=args.checkpoint_every)
    except KeyboardInterrupt as e:
        print(f"\n{e}; resume with: python -m tutorlib train --out {args.out} --resume", file=sys.stderr)
        return 130
    seconds = time.perf_counter() - start
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    out = Path(args.out)
    (out / "history.json").write_text(json.dumps(result.history) + "\n")
    print(f"trained in {seconds:.0f} s; checkpoint {result.checkpoint}")
    if not result.completed:
        print(f"stopped at --max-steps {args.max_steps}; continue with --resume")
        return 0
    test = _pairs(args, "test")
    if test and not args.no_eval:
        scores = evaluate(result.model, test)
        print(f"test split, greedy: BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}, "
              f"exact match {scores['exact_match']:.1f}% of {scores['sentences']} sentences")
        scores = {k: v for k, v in scores.items() if k != "hypotheses"}
        argv = " ".join(["python -m tutorlib", *sys.argv[1:]])
        save_model(result.model, out / MODEL_NAME, command=argv, train_seconds=round(seconds, 1),
                   test_greedy=scores, data="phrasebook" if args.data is None else str(args.data))
    print(f"model: {out / MODEL_NAME}")
    return 0


def _load(args):
    from .training import load_checkpoint

    return load_checkpoint(args.checkpoint or PRETRAINED_PATH, device=args.device)


def cmd_evaluate(args) -> int:
    from .translator import evaluate

    model, _, _ = _load(args)
    pairs = _pairs(args, args.split)
    if args.limit is not None:
        pairs = pairs[: args.limit]
    start = time.perf_counter()
    scores = evaluate(model, pairs, beam_size=args.beam, length_penalty=args.length_penalty)
    seconds = time.perf_counter() - start
    decoding = "greedy" if args.beam == 1 else f"beam {args.beam}, length penalty {args.length_penalty}"
    print(f"{args.split} split ({scores['sentences']} sentences, {decoding}, {seconds:.1f} s): "
          f"BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}, exact match {scores['exact_match']:.1f}%")
    shown = 0
    for (english, reference), hypothesis in zip(pairs, scores["hypotheses"]):
        if shown >= args.show:
            break
        if hypothesis.split() != reference.lower().split():
            print(f"  {english}\n    model:     {hypothesis}\n    reference: {reference}")
            shown += 1
    return 0


def cmd_translate(args) -> int:
    from .translator import translate

    sentences = args.sentences or [line.rstrip("\n") for line in sys.stdin]
    model, _, _ = _load(args)
    for line in translate(sentences, model, beam_size=args.beam, length_penalty=args.length_penalty):
        print(line)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tutorlib", description="The English -> Portuguese translator "
                                     "of chapters 9 and 10.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="train a translator (also under torchrun --nproc_per_node=N)")
    p.add_argument("--preset", choices=sorted(PRESETS), help="a named TranslatorConfig (default: tiny)")
    p.add_argument("--out", default="runs/translator", help="folder for checkpoint.pt, translator.pt, history.json")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--max-steps", type=int, help="stop (with a checkpoint) after this many steps in all")
    p.add_argument("--checkpoint-every", type=int, default=500, help="steps between checkpoints (and every epoch)")
    p.add_argument("--train-pairs", type=int, help="use only the first N training pairs")
    p.add_argument("--no-eval", action="store_true", help="skip the test-split evaluation at the end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (logs only)")
    _add_config_options(p)

    p = sub.add_parser("evaluate", help="BLEU, chrF and exact match on a split")
    p.add_argument("--checkpoint", help=CHECKPOINT_HELP)
    p.add_argument("--split", default="test", choices=["train", "valid", "test"])
    p.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    p.add_argument("--length-penalty", type=float, default=0.6, help="GNMT alpha for beam search")
    p.add_argument("--limit", type=int, help="only the first N pairs")
    p.add_argument("--show", type=int, default=5, help="print up to N wrong translations")

    p = sub.add_parser("translate", help="translate sentences (arguments, or one per line on stdin)")
    p.add_argument("sentences", nargs="*")
    p.add_argument("--checkpoint", help=CHECKPOINT_HELP)
    p.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    p.add_argument("--length-penalty", type=float, default=0.6)

    for p in sub.choices.values():
        p.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
        if p.prog.endswith(("train", "evaluate")):
            p.add_argument("--data", type=Path, help="a tab-separated Tatoeba/ManyThings file, not the phrasebook")
    args = parser.parse_args(argv)
    try:
        return {"train": cmd_train, "evaluate": cmd_evaluate, "translate": cmd_translate}[args.command](args)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
