"""experiments.json, the recorded experiments (written by tutor/core/experiments.py at
build time), read without torch: the pages, `tutor experiment` and the facts use it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tutor.core.refusal import Coded, Name

FILE = "experiments.json"  # under assets/models/
Scheme = Literal["id-number", "onehot", "table"]
SCHEMES: tuple[Scheme, ...] = ("id-number", "onehot", "table")
WIDTHS = (1, 2, 4, 8, 16, 32, 64)  # the input rows' widths the width experiment trains


class ExperimentError(Coded, ValueError):
    """experiments.json missing or unreadable; the message names the file and the fix."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InputRun(_Frozen):
    scheme: Scheme
    steps: list[int]
    val_loss: list[float]
    bytes_per_step: int
    multiply_adds_per_step: int


class Inputs(_Frozen):
    runs: list[InputRun]
    max_abs_diff_onehot_table: float

    def run(self, scheme: Scheme) -> InputRun:
        return next(r for r in self.runs if r.scheme == scheme)

    @property
    def bytes_ratio(self) -> float:
        """How many times the lookup's first-layer bytes per step the one-hot's are."""
        return round(self.run("onehot").bytes_per_step / self.run("table").bytes_per_step, 1)


class WidthRun(_Frozen):
    d: int
    val_loss: float
    contrast: float
    contrast_before: float


class Width(_Frozen):
    runs: list[WidthRun]
    coords: dict[str, list[list[float]]]  # "d1" / "d2": the category words' rows, in order


class Experiments(_Frozen):
    vocab_size: int
    steps: int
    width_steps: int
    batch: int
    context: int
    d: int
    eval_positions: int
    chance: float
    unigram: float
    inputs: Inputs
    categories: dict[str, list[str]]
    width: Width

    @property
    def words(self) -> list[str]:
        return [w for words in self.categories.values() for w in words]

    @property
    def kinds(self) -> list[str]:
        """Each word's category, in `words` order."""
        return [kind for kind, words in self.categories.items() for _ in words]


def load_experiments(models_dir: Path) -> Experiments:
    path = models_dir / FILE
    try:
        return Experiments.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ExperimentError(
            f"{path}: cannot read ({exc.strerror}): run `tutor assets build`",
            "no_experiments",
            path=Name(str(path)),
        ) from exc
    except ValidationError as exc:
        raise ExperimentError(
            f"{path}: not a recorded experiment: run `tutor assets build`",
            "bad_experiments",
            path=Name(str(path)),
        ) from exc
