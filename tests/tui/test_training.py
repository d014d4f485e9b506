"""The training-run scrubber on page 8: keys move through the recorded checkpoints and the
heatmap, neighbours, losses and contrast shown are the recorded run's own numbers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.tui.conftest import LESSON, page_with, settle
from tutor.core import trajectory
from tutor.core.model import open_model
from tutor.core.paths import default_model_dir
from tutor.core.similarity import similarity
from tutor.tui.app import TutorApp
from tutor.tui.widgets.training import StepPlot, TrainingRun


async def _focused_run(pilot) -> TrainingRun:
    await settle(pilot)
    run = pilot.app.screen.query_one(TrainingRun)
    run.focus()
    await settle(pilot)
    return run


async def test_keys_move_through_the_recorded_checkpoints(
    make_app: Callable[..., TutorApp],
) -> None:
    recorded = trajectory.load(default_model_dir())
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        assert widget.view.step == 0
        await pilot.press("left")  # already at the first checkpoint: stays
        assert widget.index == 0
        await pilot.press("right", "right")
        await settle(pilot)
        assert widget.view.step == recorded.steps[2]
        assert widget.view.val_loss == recorded.meta.val_loss[2]
        await pilot.press("end")
        await settle(pilot)
        assert widget.view.step == recorded.steps[-1]
        await pilot.press("right")
        assert widget.index == len(recorded.steps) - 1
        await pilot.press("home")
        await settle(pilot)
        assert widget.view.step == 0
        assert pilot.app.screen.query_one(StepPlot).index == 0


async def test_the_ends_show_the_shipped_tables_and_the_contrast_grows(
    make_app: Callable[..., TutorApp],
) -> None:
    model = open_model()
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(120, 40)) as pilot:
        widget = await _focused_run(pilot)
        tokens = list(widget.config.tokens)
        _, before = similarity(model, tokens, "before")
        assert np.allclose(widget.view.matrix, before)
        first = widget.view.contrast
        await pilot.press("end")
        await settle(pilot)
        _, after = similarity(model, tokens, "after")
        assert np.allclose(widget.view.matrix, after)
        assert widget.view.contrast > first + 0.2
        text = widget.plain_text()
        assert f"{widget.view.contrast:+.3f}" in text
        assert f"{first:+.3f}" in text  # the chance level stays beside it
        count = len(trajectory.load(default_model_dir()).tokens)
        assert f"记录下的 {count} 个 token" in text


async def test_a_model_without_a_recorded_run_says_so(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    model_dir = tmp_path / "model"
    shutil.copytree(default_model_dir(), model_dir)
    (model_dir / trajectory.META_FILE).unlink()
    app = make_app(model_dir=model_dir, start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        await pilot.press("right", "end", "home")
        await settle(pilot)
        assert widget.run is None
        assert "没有记录训练过程" in widget.plain_text()
