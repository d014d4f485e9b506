"""`tutor train`: train a tiny model on the project corpus or on any UTF-8 text file."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

MIN_LINES = 20
MIN_CHARS = 2_000
# What a model directory written by `tutor train` holds; only these may be overwritten.
MODEL_FILES = frozenset(
    {
        "tokenizer.json",
        "model.safetensors",
        "embeddings_before.safetensors",
        "config.json",
        "train_log.json",
        "trajectory.json",
        "trajectory.safetensors",
    }
)


class CorpusError(ValueError):
    """A corpus file that cannot be trained on; the message is one line for the learner."""


def read_corpus(path: Path) -> tuple[str, str]:
    """Split a text file into training and validation text (every 20th line validates)."""
    if not path.is_file():
        raise CorpusError(f"corpus file not found: {path}")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from exc
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise CorpusError(f"{path} is empty")
    if len(lines) < MIN_LINES or sum(map(len, lines)) < MIN_CHARS:
        raise CorpusError(
            f"{path} is too small to train on: {len(lines)} lines, "
            f"{sum(map(len, lines)):,} characters (need {MIN_LINES} lines and "
            f"{MIN_CHARS:,} characters)"
        )
    valid = [line for i, line in enumerate(lines) if i % 20 == 19]
    train = [line for i, line in enumerate(lines) if i % 20 != 19]
    return "\n".join(train) + "\n", "\n".join(valid) + "\n"


def check_out_dir(out: Path) -> None:
    """Refuse an --out that training would fail to write or would clobber, before training.

    A new path, an empty directory or an earlier model directory (its files are replaced)
    is fine; a file, a directory holding anything else, or one we cannot write is not.
    """
    if out.is_file():
        raise CorpusError(f"--out {out} is a file; choose a directory")
    if out.is_dir():
        others = sorted(p.name for p in out.iterdir() if p.name not in MODEL_FILES)
        if others:
            shown = ", ".join(others[:3]) + (" …" if len(others) > 3 else "")
            raise CorpusError(
                f"--out {out} holds other files ({shown}); choose a new or empty directory"
            )
    parent = out if out.is_dir() else next((p for p in out.parents if p.exists()), Path("."))
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise CorpusError(f"--out {out}: cannot write in {parent}")


def run(args: argparse.Namespace) -> int:
    try:
        from tutor.core.train import (
            TrainConfig,
            loss_warning,
            print_progress,
            save_model_dir,
            train,
        )
    except ImportError:
        print(
            "tutor: error: training needs torch; install the train extra: "
            "pip install 'embedding-tutor[train]'",
            file=sys.stderr,
        )
        return 2
    from tokenizers import Tokenizer

    from tutor.core import corpus as corpus_mod
    from tutor.core.paths import corpus_dir, tokenizers_dir
    from tutor.core.vocab import TokenizerSpec, build_byte_bpe

    if args.d < 1 or args.steps < 1:
        print("tutor: error: --d and --steps must be positive", file=sys.stderr)
        return 2
    try:
        check_out_dir(args.out)
        if args.corpus:
            train_text, valid_text = read_corpus(args.corpus)
            own = corpus_mod.Corpus(train_text, valid_text, "", "")
            tokenizer = build_byte_bpe(own, TokenizerSpec("byte-bpe-own", 4000, 1.0, 0.0))
            name = f"byte-bpe ({args.corpus.name})"
        else:
            train_text = (corpus_dir() / "zh" / "train.txt").read_text(encoding="utf-8")
            valid_text = (corpus_dir() / "zh" / "valid.txt").read_text(encoding="utf-8")
            tokenizer = Tokenizer.from_file(str(tokenizers_dir() / "byte-bpe-zh.json"))
            name = "byte-bpe-zh"
    except CorpusError as exc:
        print(f"tutor: error: {exc}", file=sys.stderr)
        return 2
    cfg = replace(
        TrainConfig(),
        hidden_size=args.d,
        steps=args.steps,
        seed=args.seed,
        eval_every=max(1, min(100, args.steps // 5)),
    )
    print(
        f"training d={cfg.hidden_size}, {cfg.steps} steps, V={tokenizer.get_vocab_size():,} "
        f"on {args.corpus or 'the project corpus'}",
        file=sys.stderr,
    )
    try:
        model, before, log = train(
            tokenizer, train_text, valid_text, cfg, progress=print_progress(cfg.steps)
        )
    except ValueError as exc:
        print(f"tutor: error: {exc}", file=sys.stderr)
        return 2
    save_model_dir(args.out, tokenizer, model, before, log, cfg, name)
    print(
        f"validation loss {log.val_loss[-1]:.3f}, {log.tokens_per_s:,.0f} tokens/s, "
        f"{log.wall_time_s:.1f} s; model written to {args.out}\n"
        f"open it with: tutor --model {args.out}",
        file=sys.stderr,
    )
    warning = loss_warning(log.val_loss[-1], tokenizer.get_vocab_size(), cfg.steps, cfg.hidden_size)
    if warning:
        print(warning, file=sys.stderr)
    return 0
