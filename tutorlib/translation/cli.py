"""The translator from the command line (chapters 9 and 10): what ``python -m tutorlib`` runs.

    python -m tutorlib train --preset tiny --out runs/tiny       # train (torchrun works too)
    python -m tutorlib train --out runs/tiny --resume            # continue an interrupted run
    python -m tutorlib evaluate --checkpoint runs/tiny --beam 4  # BLEU, chrF, exact match (test)
    python -m tutorlib translate "I am happy" "the red car"      # the shipped one, or --checkpoint
    # stdin: one line in, one line out, at once
    echo "I am happy. She is tired!" | python -m tutorlib translate

The shipped model, ``tutorlib/pretrained/translator.pt``, is trained by

    python -m tutorlib train --preset pretrained --relations --out tutorlib/pretrained

``--model gpt`` does the same with chapter 13's decoder-only translator
(``tutorlib.translation.gpt``): ``train --model gpt --preset tiny``,
``translate --model gpt --checkpoint runs/gpt "..."`` (and ``--temperature``,
``--top-k``, ``--top-p``, ``--seed`` to sample). A checkpoint's own kind
decides which model reads it; ``--model`` chooses the shipped one when no
``--checkpoint`` is given: for ``--model gpt`` the GPT on BPE tokens of chapter 14
(``tutorlib/pretrained/gpt.pt``; chapter 13's GPT on words is
``--checkpoint tutorlib/pretrained/gpt_words.pt``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import time
import zlib
from pathlib import Path

from ..checks import finite_number, whole_number
from .config import (  # torch-free: --help answers at once
    COMMAND_LINE_KINDS,
    VOCAB_FIELDS,
    GPTConfig,
    TranslatorConfig,
)
from .phrasebook.world import NAMES
from .sentences import split_sentences  # torch-free too; translate() splits with it as well

# Nothing here imports torch at the top: the commands import it when they run, so that --help and a
# mistyped option answer in a fraction of a second. So the model kinds (tutorlib.translation.kinds,
# which imports the models) are read when a command runs; --model's choices, presets and options
# come from their torch-free part, COMMAND_LINE_KINDS: the encoder-decoder translator (chapter 9)
# or the GPT (chapter 13).

CHECKPOINT_HELP = "translator.pt, checkpoint.pt or a training folder (default: the shipped model)"
_MODELS = COMMAND_LINE_KINDS


def _config_fields() -> list:
    """The options of both configs, the translator's first: a field both have is one option."""
    seen, out = set(), []
    for cls, _ in _MODELS.values():
        for f in dataclasses.fields(cls):
            if f.name not in VOCAB_FIELDS and f.name not in seen:
                seen.add(f.name)
                out.append(f)
    return out


class CommandError(Exception):
    """A problem the user can fix, printed as one line ``error: ...`` with exit status 1."""


def _count(minimum: int):
    """An argparse type: a whole number of at least ``minimum``, or argparse's own one-line
    error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        try:
            return whole_number("the value", value, minimum)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e).replace("the value must", "must")) from None

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def _finite(text: str) -> float:
    """An argparse type: a finite number, or argparse's own one-line error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    try:
        return finite_number("the value", value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).replace("the value must", "must")) from None


def _check_data(path: Path | None) -> None:
    """``--data`` must be a readable file: said before any work starts."""
    if path is None:
        return
    if not path.exists():
        raise CommandError(
            f"--data {path}: no such file (download por-eng.zip from "
            "https://www.manythings.org/anki/ "
            "and give the unzipped por.txt)"
        )
    if path.is_dir():
        raise CommandError(
            f"--data {path} is a folder; give the tab-separated file inside it (por.txt)"
        )
    if not os.access(path, os.R_OK):
        raise CommandError(f"--data {path} cannot be read (permissions)")


def _check_out(path: Path) -> None:
    """``--out`` must be a folder we can write to, or a path where one can be made: said before
    training starts."""
    if path.exists() and not path.is_dir():
        raise CommandError(
            f"--out {path} is a file, not a folder: give a folder for checkpoint.pt and "
            "translator.pt"
        )
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise CommandError(f"--out {path}: {existing} is a file, so no folder can be made under it")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CommandError(f"--out {path}: the folder {existing} is not writable (permissions)")


def _pairs(args, split: str):
    """``(english, portuguese)`` pairs of ``split``: the phrasebook, or ``--data`` FILE.tsv split
    90/5/5 by a hash."""
    from . import data
    from .phrasebook import phrasebook
    from .phrasebook.splits import relation_pairs

    if args.data is None:
        # a later draw of names and numbers, and the relations before names, are for training
        # on; valid and test stay the splits the other stages were measured on
        draw = (getattr(args, "draw", None) or 0) if split == "train" else 0
        relations = bool(getattr(args, "relations", False)) and split == "train"
        names = args.names or "made-up"
        pairs = phrasebook(split, names=names, draw=draw, relations=relations)
        if relations and names == "made-up":
            # a made-up name says no gender (it takes the masculine): the relations before real
            # names, whose gender a gendered vocabulary reads, teach the agreement
            pairs += relation_pairs(split, "real", draw)
        return pairs
    pairs = data.load_tatoeba(args.data)
    # the same sentence always lands in the same split, whatever the file's order
    bucket = {"train": range(0, 18), "valid": range(18, 19), "test": range(19, 20)}[split]
    chosen = [(e, p) for e, p in pairs if zlib.crc32(e.encode("utf-8")) % 20 in bucket]
    if not chosen:
        raise CommandError(
            f"--data {args.data}: its {len(pairs)} pairs leave the {split} split empty (pairs are "
            f"split 90/5/5 by a hash of the English sentence); use a file with more pairs"
        )
    return chosen


# The smallest value of each whole-number config option (1 unless listed): --epochs 0 would write an
# untrained model.
_MINIMUM = {"max_len": 2, "warmup_steps": 0, "seed": 0}


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "model and training (override the preset; see TranslatorConfig, or GPTConfig with --model "
        "gpt)"
    )
    for f in _config_fields():
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            group.add_argument(
                flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None
            )
        else:
            name = f.type if isinstance(f.type, str) else f.type.__name__
            kind = {"int": _count(_MINIMUM.get(f.name, 1)), "float": _finite}.get(name, str)
            group.add_argument(flag, dest=f.name, type=kind, default=None, metavar=f.name.upper())


def _given_options(args, cls, kind: str, hint: str | None = None) -> dict:
    """The config options given on the command line, each a field of ``cls`` (the config of the
    model ``kind``); another model's option is an error that says whose it is (``hint``: what
    to do instead, by default choosing the other model with --model)."""
    given = {
        f.name: getattr(args, f.name) for f in _config_fields() if getattr(args, f.name) is not None
    }
    foreign = sorted(
        name for name in given if name not in {f.name for f in dataclasses.fields(cls)}
    )
    if foreign:
        flags = ", ".join("--" + name.replace("_", "-") for name in foreign)
        other = "gpt" if kind == "translator" else "translator"
        raise CommandError(
            f"{flags}: not an option of the {kind}'s {cls.__name__} (it is the {other}'s: "
            f"{hint or f'--model {other}'})"
        )
    return given


def _config(args) -> TranslatorConfig | GPTConfig | None:
    kind = args.model or "translator"
    cls, presets = _MODELS[kind]
    overrides = _given_options(args, cls, kind)
    if args.resume and args.preset is None and not overrides:
        return None  # the checkpoint's own
    if args.preset is not None and args.preset not in presets:
        raise CommandError(
            f"--preset {args.preset} is not a preset of the {kind}; its presets: {sorted(presets)}"
        )
    base = presets[args.preset or "tiny"]
    try:
        return dataclasses.replace(base, **overrides)
    except ValueError as e:  # TranslatorConfig's own checks (d_model and num_heads...)
        raise CommandError(str(e)) from None


def _gendered_vocabs(args, config, train_pairs) -> dict:
    """A word model trained with ``--relations`` reads a name's gender: its vocabulary leaves the
    real names out and has ``<unk:f>`` and ``<unk:m>`` (``build_vocabs(..., gendered=True)``). A
    GPT on BPE reads every name's letters already: nothing to add."""
    from .gpt.tokens import joint_vocab
    from .training import build_vocabs

    if args.model == "gpt":
        if config.bpe_vocab_size:
            return {}
        return {"vocab": joint_vocab(train_pairs, gendered=True)}
    src, tgt = build_vocabs(train_pairs, config.share_embeddings, gendered=True)
    return {"src_vocab": src, "tgt_vocab": tgt}


def _init_model(args) -> dict:
    """``train``'s keyword arguments for ``--init FILE``: the file's model (its config with the
    training options given on the command line, not its shape) and its tokens."""
    from .checkpoints import load_checkpoint
    from .config import shape_fields
    from .kinds import kind_of

    if args.resume:
        raise CommandError(
            "--init starts a new run from a model's weights; --resume goes on with OUT's own "
            "checkpoint.pt: give one of them"
        )
    if args.preset is not None:
        raise CommandError(
            f"--init {args.init}: the model's shape comes from the file; leave out --preset "
            f"{args.preset} (training options such as --epochs and --lr still apply)"
        )
    what = "GPT" if args.model == "gpt" else "translator"
    model, src_vocab, tgt_vocab = load_checkpoint(args.init, device="cpu", what=what)
    kind = kind_of(model).name
    if (args.model or "translator") != kind:
        raise CommandError(
            f"--init {args.init} holds a {kind} model, not a {args.model or 'translator'}: "
            f"give --model {kind}"
        )
    given = _given_options(
        args, type(model.config), kind, hint=f"--init {args.init} holds a {kind} model"
    )
    # the file's model and tokens stay: its shape, and how its tokenizer was made (dropout only
    # changes training)
    fixed = (set(shape_fields(model.config)) - {"dropout"}) | {"bpe_vocab_size"}
    shaped = sorted(set(given) & fixed)
    if shaped:
        flags = ", ".join("--" + name.replace("_", "-") for name in shaped)
        raise CommandError(
            f"{flags}: --init {args.init} keeps the file's model and tokens, which these options "
            "would change; leave them out"
        )
    try:
        model.config = dataclasses.replace(model.config, **given)
    except ValueError as e:
        raise CommandError(str(e)) from None
    if kind == "translator":
        return {"model": model, "src_vocab": src_vocab, "tgt_vocab": tgt_vocab}
    return {"model": model, "vocab": src_vocab}  # a GPT: one table of tokens for both sides


def _resume_command(args) -> str:
    """The command that goes on with an interrupted run: its folder, and the data it trained on
    (the checkpoint holds the model and the schedule, not which pairs they were)."""
    words = ["python -m tutorlib train", f"--out {shlex.quote(str(args.out))}", "--resume"]
    if args.model == "gpt":
        words.append("--model gpt")
    if args.data is not None:
        words.append(f"--data {shlex.quote(str(args.data))}")
    if args.names is not None:
        words.append(f"--names {args.names}")
    if args.draw:
        words.append(f"--draw {args.draw}")
    if args.relations:
        words.append("--relations")
    if args.train_pairs is not None:
        words.append(f"--train-pairs {args.train_pairs}")
    if args.device is not None:
        words.append(f"--device {shlex.quote(args.device)}")
    if args.checkpoint_every != 500:
        words.append(f"--checkpoint-every {args.checkpoint_every}")
    if args.no_eval:
        words.append("--no-eval")
    return " ".join(words)


def cmd_train(args) -> int:
    from .checkpoints import MODEL_NAME, save_model
    from .evaluation import evaluate
    from .gpt.training import train_gpt
    from .training import train

    if args.model == "gpt":
        train = train_gpt  # the GPT's vocabulary, tokens and fit filter; then the same loop
    _check_data(args.data)
    _check_out(Path(args.out))
    if args.draw and (args.names != "real" or args.data is not None):
        raise CommandError(
            f"--draw {args.draw} draws the phrasebook's real names and numbers again: give "
            "--names real with it, and no --data"
        )
    if args.relations and args.data is not None:
        raise CommandError(
            "--relations adds the phrasebook's sentences with a relation before a name (\"my "
            'friend ana"): it takes no --data'
        )
    start_from = _init_model(args) if args.init is not None else {}
    config = start_from["model"].config if start_from else _config(args)
    train_pairs, valid_pairs = _pairs(args, "train"), _pairs(args, "valid")
    if args.train_pairs is not None and args.train_pairs < len(train_pairs):
        # evenly spread over the split: the phrasebook's first pairs are all fixed expressions
        # ("hello")
        step = len(train_pairs) / args.train_pairs
        train_pairs = [train_pairs[int(i * step)] for i in range(args.train_pairs)]
    if args.relations and not start_from and not args.resume:
        start_from = _gendered_vocabs(args, config, train_pairs)
    start = time.perf_counter()
    try:
        result = train(
            config,
            train_pairs,
            valid_pairs,
            args.out,
            resume=args.resume,
            max_steps=args.max_steps,
            device=args.device,
            progress=not args.no_progress,
            checkpoint_every=args.checkpoint_every,
            **start_from,
        )
    except KeyboardInterrupt as e:
        print(
            f"\n{e}; resume with: {_resume_command(args)}",
            file=sys.stderr,
        )
        return 130
    seconds = time.perf_counter() - start
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    out = Path(args.out)
    (out / "history.json").write_text(json.dumps(result.history) + "\n")
    print(f"trained in {seconds:.0f} s; checkpoint {result.checkpoint}")
    if not result.completed:
        print(f"stopped at --max-steps {args.max_steps}; continue with: {_resume_command(args)}")
        return 0
    test = _pairs(args, "test")
    if test and not args.no_eval:
        scores = evaluate(result.model, test)
        print(
            f"test split, greedy: BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}, "
            f"exact match {scores['exact_match']:.1f}% of {scores['sentences']} sentences"
        )
        scores = {
            k: v for k, v in scores.items() if k not in ("hypotheses", "pairs")
        }  # the numbers, not the text
        argv = " ".join(["python -m tutorlib", *sys.argv[1:]])
        save_model(
            result.model,
            out / MODEL_NAME,
            command=argv,
            train_seconds=round(seconds, 1),
            test_greedy=scores,
            data="phrasebook" if args.data is None else str(args.data),
            names=args.names or "made-up",
            **({"draw": args.draw} if args.draw else {}),
            **({"relations": True} if args.relations else {}),
            **({"init": str(args.init)} if args.init is not None else {}),
        )
    print(f"model: {out / MODEL_NAME}")
    return 0


def _load(args):
    """The model ``--checkpoint`` holds (its kind checked against ``--model``), else the shipped one
    of ``--model``."""
    from .checkpoints import load_checkpoint, load_pretrained
    from .gpt.checkpoints import load_pretrained as load_pretrained_gpt
    from .kinds import kind_of

    if args.checkpoint is None:  # the shipped model of --model
        if args.model == "gpt":
            model = load_pretrained_gpt(device=args.device)  # the GPT on BPE tokens (chapter 14)
            return model, model.vocab, model.vocab
        return load_pretrained(device=args.device)
    what = "GPT" if args.model == "gpt" else "translator"
    loaded = load_checkpoint(args.checkpoint, device=args.device, what=what)
    kind = kind_of(loaded[0]).name  # the file's own kind, read once by load_checkpoint
    if args.model is not None and kind != args.model:
        raise CommandError(
            f"--checkpoint {args.checkpoint} holds a {kind} model, not a {args.model}: "
            f"leave out --model {args.model} (the file says what it holds) or give another "
            "checkpoint"
        )
    return loaded


def _trained_on(args, model) -> str:
    """The phrasebook names ``model`` was trained on (its file's ``meta``): "real" or
    "made-up"."""
    from .checkpoints import read_checkpoint
    from .config import PRETRAINED_GPT_PATH, PRETRAINED_PATH
    from .kinds import kind_of

    path = args.checkpoint
    if path is None:
        path = PRETRAINED_GPT_PATH if kind_of(model).decoder_only else PRETRAINED_PATH
    return read_checkpoint(path).get("meta", {}).get("names", "made-up")


def cmd_evaluate(args) -> int:
    from .evaluation import evaluate

    _check_data(args.data)
    model, _, _ = _load(args)
    if args.names is None and args.data is None:
        args.names = _trained_on(args, model)  # the names the model learned: real or made-up
    pairs = _pairs(args, args.split)
    if args.limit is not None:
        pairs = pairs[: args.limit]
    start = time.perf_counter()
    scores = evaluate(model, pairs, beam_size=args.beam, length_penalty=args.length_penalty)
    seconds = time.perf_counter() - start
    decoding = (
        "greedy" if args.beam == 1 else f"beam {args.beam}, length penalty {args.length_penalty}"
    )
    skipped = (
        f", {scores['skipped']} longer than max_len={model.config.max_len} skipped"
        if scores["skipped"]
        else ""
    )
    print(
        f"{args.split} split ({scores['sentences']} sentences{skipped}, {decoding}, {seconds:.1f} "
        "s): "
        f"BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}, exact match "
        f"{scores['exact_match']:.1f}%"
    )
    shown = 0
    for (english, reference), hypothesis in zip(scores["pairs"], scores["hypotheses"]):
        if shown >= args.show:
            break
        if hypothesis.split() != reference.lower().split():
            print(f"  {english}\n    model:     {hypothesis}\n    reference: {reference}")
            shown += 1
    return 0


def _gpt_results(model, sentences: list[str], args) -> list:
    """What ``translate_sentences`` gives the translator, for a GPT: one result per sentence (text
    or error, and its notice: a typo read as a word, a name or number the translation lost)."""
    from types import SimpleNamespace

    from .gpt.decoding import translate

    options = dict(
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        seed=args.seed,
        max_len=args.max_len,
    )
    results = []
    for sentence in sentences:
        said = []  # the notices, as translate_sentences keeps them for the translator
        try:
            text = translate(
                [sentence], model, on_notice=lambda i, m, said=said: said.append(m), **options
            )
            text, error = text[0], None
        except ValueError as e:
            text, error = "", str(e).replace("sentences[0]", "the sentence")
        results.append(SimpleNamespace(text=text, error=error, notice="; ".join(said) or None))
    return results


def cmd_translate(args) -> int:
    from .decoding import translate_sentences
    from .kinds import check_beam_size, kind_of

    model, _, _ = _load(args)
    kind = kind_of(model)
    gpt = kind.decoder_only
    sampling = [
        flag
        for flag, value in (
            ("--temperature", args.temperature),
            ("--top-k", args.top_k),
            ("--top-p", args.top_p),
        )
        if value is not None
    ]
    if sampling and not gpt:
        raise CommandError(
            f"{', '.join(sampling)}: sampling is an option of the GPT (--model gpt); the "
            "translator searches "
            "(--beam)"
        )
    if gpt and args.temperature is None and (args.top_k is not None or args.top_p is not None):
        raise CommandError(
            "--top-k and --top-p shape sampling: give --temperature too (1 leaves it as it is)"
        )
    try:
        check_beam_size(kind, args.beam, "--beam")
    except ValueError as e:
        raise CommandError(str(e)) from None
    failed = False

    def line_out(where: str, line: str) -> None:
        """Translate the sentences of one line and print them on one line; problems go to stderr,
        one each."""
        nonlocal failed
        if gpt:
            results = _gpt_results(model, split_sentences(line), args)
        else:
            results = translate_sentences(
                split_sentences(line),
                model,
                args.beam,
                length_penalty=args.length_penalty,
                max_len=args.max_len,
            )
        for k, r in enumerate(results, start=1):
            place = f"{where}, sentence {k}" if len(results) > 1 else where
            if r.error:
                failed = True
                print(f"{place}: not translated: {r.error}", file=sys.stderr, flush=True)
            elif r.notice:
                print(f"{place}: {r.notice}", file=sys.stderr, flush=True)
        print(" ".join(r.text for r in results if r.text), flush=True)

    if args.sentences:
        for number, sentence in enumerate(args.sentences, start=1):
            line_out(f"argument {number}", sentence)
    else:
        for number, line in enumerate(
            sys.stdin, start=1
        ):  # one line at a time: each answered as it arrives
            line_out(f"line {number}", line.rstrip("\r\n"))
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tutorlib",
        description="The English -> Portuguese translator of chapters 9 and 10.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="train a translator (also under torchrun --nproc_per_node=N)")
    p.add_argument(
        "--preset",
        choices=sorted({name for _, presets in _MODELS.values() for name in presets}),
        help="a named TranslatorConfig, or GPTConfig with --model gpt (default: tiny)",
    )
    p.add_argument(
        "--out",
        default="runs/translator",
        help="folder for checkpoint.pt, translator.pt, history.json",
    )
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument(
        "--max-steps", type=_count(1), help="stop (with a checkpoint) after this many steps in all"
    )
    p.add_argument(
        "--checkpoint-every",
        type=_count(1),
        default=500,
        help="steps between checkpoints (and every epoch)",
    )
    p.add_argument(
        "--train-pairs",
        type=_count(1),
        help="use only N training pairs, taken evenly across the split",
    )
    p.add_argument(
        "--no-eval", action="store_true", help="skip the test-split evaluation at the end"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar (logs only)")
    p.add_argument(
        "--init",
        metavar="FILE",
        help="start from this model's weights and tokens (a translator.pt): another stage of "
        "training, with a fresh optimizer and schedule; --epochs, --lr... set it, and the "
        "options left out keep the file's values",
    )
    p.add_argument(
        "--draw",
        type=_count(0),
        default=0,
        help="with --names real: train on another draw of the names and numbers (0: the splits' "
        "own; 1, 2...: others, a third of the numbers of 2+ digits round or with a run of one "
        "digit)",
    )
    p.add_argument(
        "--relations",
        action="store_true",
        help="add to the training pairs the phrasebook's sentences with a relation before a "
        'name ("my friend ana is tired" -> "minha amiga ana está cansada"), with the same '
        "--names and --draw (with made-up names, those with real names too); a word model's "
        "vocabulary then reads a first name's gender (<unk:f>, <unk:m>) and leaves out real "
        "names and numbers",
    )
    _add_config_options(p)

    p = sub.add_parser("evaluate", help="BLEU, chrF and exact match on a split")
    p.add_argument("--checkpoint", help=CHECKPOINT_HELP)
    p.add_argument("--split", default="test", choices=["train", "valid", "test"])
    p.add_argument("--beam", type=_count(1), default=1, help="beam size (1: greedy)")
    p.add_argument("--length-penalty", type=_finite, default=0.6, help="GNMT alpha for beam search")
    p.add_argument("--limit", type=_count(1), help="only the first N pairs")
    p.add_argument("--show", type=_count(0), default=5, help="print up to N wrong translations")

    p = sub.add_parser(
        "translate", help="translate sentences (arguments, or one per line on stdin)"
    )
    p.add_argument("sentences", nargs="*")
    p.add_argument("--checkpoint", help=CHECKPOINT_HELP)
    p.add_argument("--beam", type=_count(1), default=1, help="beam size (1: greedy)")
    p.add_argument("--length-penalty", type=_finite, default=0.6)
    p.add_argument(
        "--max-len",
        type=_count(1),
        help="at most N words per translated sentence (default: 2 S + 5 for S source words)",
    )
    p.add_argument(
        "--temperature", type=_finite, help="GPT only: sample at this temperature (default: greedy)"
    )
    p.add_argument(
        "--top-k", type=_count(1), help="GPT only, with --temperature: keep the k most probable"
    )
    p.add_argument(
        "--top-p", type=_finite, help="GPT only, with --temperature: keep the top-p nucleus"
    )
    p.add_argument("--seed", type=_count(0), default=0, help="GPT only: the sampling seed")

    for p in sub.choices.values():
        p.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
        p.add_argument(
            "--model",
            choices=sorted(_MODELS),
            help="translator (encoder-decoder, chapter 9) or gpt (decoder-only, chapter 13); "
            "default: "
            "the checkpoint's own kind, else the translator",
        )
        if p.prog.endswith(("train", "evaluate")):
            p.add_argument(
                "--data",
                type=Path,
                help="a tab-separated Tatoeba/ManyThings file, not the phrasebook",
            )
            p.add_argument(
                "--names",
                choices=NAMES,
                help="the phrasebook's names and numbers: made-up (the default for training) "
                "or real (names of 34 languages, split by name; numbers of 1 to 6 digits, "
                "chapter 14's GPT); evaluate's default: the names the model was trained on",
            )
    args = parser.parse_args(argv)
    try:
        return {"train": cmd_train, "evaluate": cmd_evaluate, "translate": cmd_translate}[
            args.command
        ](args)
    except (CommandError, OSError, ValueError) as e:
        if isinstance(e, BrokenPipeError):
            return _broken_pipe()
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted (Ctrl-C)", file=sys.stderr)
        return 130


def _broken_pipe() -> int:
    """The reader went away (``... | head``): stop quietly, as Unix tools do, and silence Python's
    own report."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141  # 128 + SIGPIPE, the status of a Unix tool ended by a closed pipe


if __name__ == "__main__":
    sys.exit(main())
