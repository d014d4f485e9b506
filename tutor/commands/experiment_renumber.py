"""`tutor experiment renumber`: page 10's experiment on the shipped model, in numbers.

One seeded permutation of the IDs, applied consistently (tokenizer, input table, output
layer) and to the tokenizer alone; the validation loss on the sample the page uses, chance
(ln V) beside it, and the sentence's top-5 next tokens each way.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from tutor.commands.output import print_json, speaker_for

if TYPE_CHECKING:
    from tutor.core.renumber import Prediction

EXIT_USAGE = 2


def _top(predictions: list[Prediction]) -> str:
    return "  ".join(f"{p.piece!r}#{p.id} {p.probability:.3f}" for p in predictions)


def run(args: argparse.Namespace) -> int:
    from tutor.core.renumber import SAMPLE_POSITIONS, Experiment

    say = speaker_for(args).t
    try:
        experiment = Experiment.open(args.model)
    except (ValueError, OSError) as exc:
        print(say("renumber.cannot", model=args.model, error=exc), file=sys.stderr)
        return EXIT_USAGE
    shown = experiment.sentence(args.seed, args.sentence)
    original = experiment.baseline_top(args.sentence)
    val_loss = experiment.val_loss()
    consistent_loss = experiment.consistent_loss(args.seed)
    garbled_loss = experiment.tokenizer_only_loss(args.seed)
    if args.json:
        print_json(
            {
                "seed": args.seed,
                "sentence": args.sentence,
                "positions": SAMPLE_POSITIONS,
                "chance": round(experiment.chance, 4),
                "val_loss": round(val_loss, 4),
                "consistent_val_loss": round(consistent_loss, 4),
                "consistent_max_abs_diff": shown.consistent_max_abs_diff,
                "tokenizer_only_val_loss": round(garbled_loss, 4),
                "top5": {
                    "original": [asdict(p) for p in original],
                    "consistent": [asdict(p) for p in shown.consistent_top],
                    "tokenizer_only": [asdict(p) for p in shown.tokenizer_only_top],
                },
            }
        )
        return 0
    lines = [
        say("renumber.cli.title", seed=args.seed, positions=f"{SAMPLE_POSITIONS:,}"),
        say("renumber.loss", loss=f"{val_loss:.3f}", chance=f"{experiment.chance:.3f}"),
        "",
        say("renumber.consistent"),
        say("renumber.cli.loss", loss=f"{consistent_loss:.3f}"),
        say("renumber.diff", diff=f"{shown.consistent_max_abs_diff:.1e}"),
        say("renumber.cli.top", sentence=args.sentence, which=say("renumber.before")),
        "  " + _top(original),
        say("renumber.cli.top", sentence=args.sentence, which=say("renumber.after")),
        "  " + _top(shown.consistent_top),
        "",
        say("renumber.tokenizer_only"),
        say("renumber.cli.loss", loss=f"{garbled_loss:.3f}"),
        say("renumber.cli.top", sentence=args.sentence, which=say("renumber.after")),
        "  " + _top(shown.tokenizer_only_top),
    ]
    print("\n".join(lines))
    return 0
