"""The training run recorded beside a model, opened for the training page: its rows
memory-mapped rather than copied. Apart from model.py, which the recorded run's own
module (trajectory.py) builds on through similarity.py."""

from __future__ import annotations

from pathlib import Path

from tutor.core import trajectory
from tutor.core.table import map_float32
from tutor.core.trajectory import Trajectory


def recorded_run(model_dir: Path) -> Trajectory:
    """The training run recorded with the model in `model_dir`, its rows memory-mapped.

    `tutor.core.trajectory.load` reads them through safetensors, which imports its library
    and holds the file twice while it copies the rows: about 5 MB at the peak of a
    learner's walk through the lesson, for rows that are read once.
    """
    if not trajectory.has_trajectory(model_dir):
        return trajectory.load(model_dir)  # refused there, in its words: no recorded run
    try:
        meta = trajectory.TrajectoryMeta.model_validate_json(
            (model_dir / trajectory.META_FILE).read_bytes()
        )
        rows = map_float32(model_dir / trajectory.ROWS_FILE, "rows")
    except (ValueError, OSError) as exc:  # pydantic's and the table's errors are ValueErrors
        raise trajectory.TrajectoryError(
            f"{model_dir}: the recorded run cannot be read: {exc}",
            "trajectory_unreadable",
            folder=model_dir,
        ) from exc
    return trajectory.Trajectory(meta, rows)
