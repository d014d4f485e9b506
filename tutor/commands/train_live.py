"""The child process of a learner's live training run (see tutor/core/live.py).

Started by the app as `python -m tutor.commands.train_live`; the only place where a live
run imports torch. It writes one JSON line per event to stdout and dies with the app.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel

from tutor.commands.train import check_out_dir, read_corpus
from tutor.core.live import (
    CORPUS_ENV,
    STEPS,
    WIDTHS,
    Failed,
    Finished,
    Reached,
    Started,
    past_the_session_ceiling,
)
from tutor.core.trajectory import Checkpoint


def emit(message: BaseModel) -> None:
    """One message to the app: a JSON line, flushed at once."""
    sys.stdout.write(message.model_dump_json() + "\n")
    sys.stdout.flush()


def reported(name: str, work: Callable[[], int]) -> int:
    """The child's work; a model or corpus that cannot be used ends it in one Failed line."""
    try:
        return work()
    except (OSError, ValueError) as exc:
        emit(Failed.of(exc))
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 1


def _die_with_parent(parent: int) -> None:
    """Default signal handling, and SIGKILL when the app goes (Linux), so no run outlives it.

    `parent` is the app's pid as the app gave it: an app that is itself the first process of
    its container has pid 1, so "my parent is 1" cannot mean "my parent is gone"."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        with contextlib.suppress(OSError):
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the app went before the line above could take effect
        sys.exit(1)


def become_child(parent: int) -> None:
    """A live run's child process: it dies with the app, may use more memory than a served
    session's app, and yields the core to the learner's keys."""
    _die_with_parent(parent)
    past_the_session_ceiling()
    with contextlib.suppress(OSError):
        os.nice(5)  # the learner's keys come first


def main(argv: Sequence[str]) -> int:
    """The child: train, stream checkpoints, write the model directory."""
    parser = argparse.ArgumentParser(prog="python -m tutor.commands.train_live")
    parser.add_argument("--d", type=int, choices=WIDTHS, required=True)
    parser.add_argument("--steps", type=int, choices=STEPS, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args(argv)
    become_child(args.parent)

    def work() -> int:
        _check_model(args.model)
        return _train(args)

    return reported("train_live", work)


def _check_model(model_dir: Path) -> None:
    """The model directory opens (tokenizer, table), before torch is imported; else the
    ModelError that says why (the tokenizer library would raise a bare Exception)."""
    from tutor.core.model import open_model

    open_model(model_dir)


def live_corpus() -> tuple[str, str]:
    """The training and validation text of a live run: the project corpus, or the file
    named by TUTOR_TRAIN_CORPUS."""
    from tutor.core.paths import corpus_dir

    own = os.environ.get(CORPUS_ENV)
    if own:
        return read_corpus(Path(own))
    return (
        (corpus_dir() / "zh" / "train.txt").read_text(encoding="utf-8"),
        (corpus_dir() / "zh" / "valid.txt").read_text(encoding="utf-8"),
    )


def _train(args: argparse.Namespace) -> int:
    import torch
    from tokenizers import Tokenizer

    from tutor.core import trajectory
    from tutor.core.train import TrainConfig, loss_warning, save_model_dir, train

    torch.set_num_threads(1)  # one core for the run, one for the learner's screen
    train_text, valid_text = live_corpus()
    check_out_dir(args.out)
    tokenizer = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    shipped = trajectory.load(args.model) if trajectory.has_trajectory(args.model) else None
    recording = trajectory.start_recording(tokenizer, train_text, shipped.tokens if shipped else [])
    cfg = TrainConfig(
        hidden_size=args.d, steps=args.steps, eval_every=max(1, min(100, args.steps // 5))
    )
    emit(
        Started(
            tokens=recording.tokens,
            ids=recording.ids,
            categories=recording.categories,
            total_steps=cfg.steps,
            vocab_size=tokenizer.get_vocab_size(),
        )
    )

    def stream(checkpoint: Checkpoint) -> None:
        recording.add(checkpoint)
        emit(Reached.of(checkpoint))

    kwargs = recording.train_kwargs(cfg.steps)
    kwargs["on_checkpoint"] = stream
    model, before, log = train(tokenizer, train_text, valid_text, cfg, **kwargs)
    name = json.loads((args.model / "config.json").read_text("utf-8")).get("tokenizer", "")
    save_model_dir(
        args.out, tokenizer, model, before, log, cfg, name or "project", recording.trajectory()
    )
    warning = loss_warning(log.val_loss[-1], tokenizer.get_vocab_size(), cfg.steps, args.d)
    emit(Finished(model_dir=str(args.out), warning=warning or ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
