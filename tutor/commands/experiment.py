"""`tutor experiment NAME [--json]`: each experiment's numbers, so that every figure its
page shows can be checked. One entry of RECORDED per experiment the assets build
recorded; `renumber` runs on the model (tutor.commands.experiment_renumber)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tutor.cjk import table
from tutor.commands.output import print_json, speaker_for

if TYPE_CHECKING:
    from tutor.core.experiment_record import Experiments
    from tutor.core.names import RecordedExperiment
    from tutor.words.i18n import Speaker


def inputs_data(record: Experiments) -> dict[str, object]:
    """The issue's `inputs` shape, with the run's settings and the cost ratios beside it."""
    return {
        "runs": [run.model_dump() for run in record.inputs.runs],
        "chance": record.chance,
        "unigram": record.unigram,
        "max_abs_diff_onehot_table": record.inputs.max_abs_diff_onehot_table,
        "bytes_ratio_onehot_table": record.inputs.bytes_ratio,
        "vocab_size": record.vocab_size,
        "d": record.d,
        "steps": record.steps,
        "batch": record.batch,
        "context": record.context,
        "eval_positions": record.eval_positions,
    }


def width_data(record: Experiments) -> dict[str, object]:
    return {
        "runs": [run.model_dump() for run in record.width.runs],
        "tokens": record.words,
        "kinds": record.kinds,
        "coords": record.width.coords,
        "steps": record.width_steps,
    }


def _print_inputs(speaker: Speaker, record: Experiments) -> None:
    rows = [
        [
            speaker.t(f"experiment.scheme.{run.scheme}"),
            f"{run.val_loss[0]:.3f}",
            f"{run.val_loss[-1]:.3f}",
            f"{run.bytes_per_step:,}",
            f"{run.multiply_adds_per_step:,}",
        ]
        for run in record.inputs.runs
    ]
    header = [speaker.t(f"experiment.col.{name}") for name in ("scheme", "start", "end")]
    header += [speaker.t("experiment.col.bytes"), speaker.t("experiment.col.madds")]
    print(speaker.t("experiment.inputs.head", steps=record.steps, d=record.d))
    print(table(header, rows))
    print(
        speaker.t(
            "experiment.inputs.tail",
            chance=f"{record.chance:.3f}",
            unigram=f"{record.unigram:.3f}",
            diff=f"{record.inputs.max_abs_diff_onehot_table:.4f}",
            ratio=f"{record.inputs.bytes_ratio:,}",
        )
    )


def _print_width(speaker: Speaker, record: Experiments) -> None:
    rows = [
        [str(run.d), f"{run.val_loss:.3f}", f"{run.contrast:+.3f}", f"{run.contrast_before:+.3f}"]
        for run in record.width.runs
    ]
    header = [speaker.t(f"experiment.col.{name}") for name in ("d", "end", "contrast", "before")]
    print(speaker.t("experiment.width.head", steps=record.width_steps))
    print(table(header, rows))
    print(speaker.t("experiment.width.tail", chance=f"{record.chance:.3f}"))


def _recorded() -> Experiments:
    from tutor.core.experiment_record import load_experiments
    from tutor.core.paths import assets_dir

    return load_experiments(assets_dir() / "models")


@dataclass(frozen=True)
class Experiment:
    """One subcommand: where its figures come from, its JSON, and how it prints for a
    reader. A new recorded experiment is one more entry of RECORDED."""

    load: Callable[[], Any]
    data: Callable[[Any], dict[str, object]]
    show: Callable[[Speaker, Any], None]


RECORDED: dict[RecordedExperiment, Experiment] = {
    "inputs": Experiment(_recorded, inputs_data, _print_inputs),
    "width": Experiment(_recorded, width_data, _print_width),
}


def run(args: argparse.Namespace) -> int:
    """A recorded experiment's figures; `renumber` computes its own on the model."""
    from tutor.commands.inspect import EXIT_USAGE, error_line

    if args.experiment == "renumber":
        from tutor.commands import experiment_renumber

        return experiment_renumber.run(args)
    experiment = RECORDED[args.experiment]
    try:
        source = experiment.load()
    except ValueError as exc:  # ExperimentError, or a model's error for one that reads it
        print(error_line(exc, args.lang or "zh"), file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_json(experiment.data(source))
    else:
        experiment.show(speaker_for(args), source)
    return 0
