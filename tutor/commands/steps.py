"""`tutor similarity --step N` and `tutor neighbours --step N`: the recorded training run.

The run records a few hundred tokens' rows at about 30 steps (tutor/core/trajectory.py),
so any of those steps can be asked about; neighbours are searched among the recorded
tokens only, and the output says so.
"""

from __future__ import annotations

import argparse

from tutor.cjk import table
from tutor.commands.output import neighbour_table, print_json, shown, speaker_for
from tutor.core.model import open_model
from tutor.core.trajectory import Trajectory, load


def _run(args: argparse.Namespace) -> tuple[Trajectory, int]:
    run = load(open_model(args.model).path)
    return run, run.step_index(args.step)


def similarity(args: argparse.Namespace) -> int:
    run, index = _run(args)
    pieces, matrix = run.similarity(args.tokens, index)
    if args.json:
        print_json({"step": args.step, "tokens": pieces, "matrix": matrix.tolist()})
        return 0
    print(
        speaker_for(args).t(
            "inspect.step_similarity",
            step=args.step,
            total=run.steps[-1],
            loss=f"{run.meta.val_loss[index]:.3f}",
        )
    )
    rows = [[p, *(f"{v:.3f}" for v in row)] for p, row in zip(pieces, matrix, strict=True)]
    print(table(["", *pieces], rows))
    return 0


def neighbours(args: argparse.Namespace) -> int:
    run, index = _run(args)
    found = run.nearest(args.token, index, k=args.k)
    where = f"among the {len(run.tokens)} tokens recorded during training, not the whole table"
    if args.json:
        print_json(
            {
                "token": args.token,
                "step": args.step,
                "searched": where,
                "neighbours": [
                    {"token": n.piece, "id": n.id, "score": n.score, "rank": n.rank} for n in found
                ],
            }
        )
        return 0
    speaker = speaker_for(args)
    print(
        speaker.t(
            "inspect.step_neighbours",
            token=shown(args.token),
            step=args.step,
            count=len(run.tokens),
        )
    )
    print(neighbour_table(speaker, found))
    return 0
