"""The child process of page 4's live experiment (tutor/core/live_inputs.py).

Started by the app as `python -m tutor.commands.inputs_live`; imports torch. Trains the
recorded experiment's model three ways (tutor/core/experiments.py), a few steps each, and
writes each validation loss as one JSON line the moment it is measured; dies with the app.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace

from tutor.commands.train_live import become_child, emit, live_corpus, reported
from tutor.core.live_inputs import EVAL_EVERY, Done, Point


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tutor.commands.inputs_live")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args(argv)
    become_child(args.parent)
    return reported("inputs_live", lambda: _train(args.steps))


def _train(steps: int) -> int:
    import torch
    from tokenizers import Tokenizer

    from tutor.core import experiments
    from tutor.core.experiment_record import SCHEMES
    from tutor.core.paths import default_model_dir
    from tutor.core.train import encode_lines

    train_text, valid_text = live_corpus()
    tokenizer = Tokenizer.from_file(str(default_model_dir() / "tokenizer.json"))
    streams = tuple(
        torch.from_numpy(encode_lines(tokenizer, text)) for text in (train_text, valid_text)
    )
    cfg = replace(experiments.RUN, steps=steps, eval_every=EVAL_EVERY)
    measure = experiments._val_loss
    for scheme in SCHEMES:
        counted = iter([0, *range(EVAL_EVERY, steps, EVAL_EVERY), steps])

        def streamed(model, stream, context, scheme=scheme, counted=counted) -> float:
            """The recorded run's own evaluation, each result sent as it is measured."""
            loss = measure(model, stream, context)
            emit(Point(scheme=scheme, step=next(counted), val_loss=round(loss, 4)))
            return loss

        experiments._val_loss = streamed
        try:
            model = experiments._model(tokenizer.get_vocab_size(), cfg, scheme)
            experiments.train_run(model, streams, cfg)  # type: ignore[arg-type]
        finally:
            experiments._val_loss = measure
    emit(Done())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
