"""Page 4's live experiment: the three input schemes trained for a few steps in a child
process, their curves drawn over the recorded ones as each loss arrives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import LESSON, page_with
from tests.tui.live_runs import tiny_corpus, until
from tests.waits import settle
from tutor.core import live
from tutor.core.experiment_record import SCHEMES
from tutor.core.live_inputs import EVAL_EVERY, STEPS
from tutor.tui.app import TutorApp
from tutor.tui.widgets.inputs_experiment import InputsExperiment, LossCurves

pytestmark = pytest.mark.slow  # trains three small models in a child process


async def _focused(pilot) -> InputsExperiment:
    await settle(pilot)
    widget = pilot.app.screen.query_one(InputsExperiment)
    widget.focus()
    await settle(pilot)
    return widget


async def test_the_live_curves_arrive_and_are_drawn(
    make_app: Callable[..., TutorApp], tmp_path: Path, monkeypatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv(live.CORPUS_ENV, str(tiny_corpus(tmp_path)))
    torch_before = "torch" in sys.modules
    app = make_app(start_lesson=LESSON, start_page=page_with("inputs"))
    async with app.run_test(size=(120, 40)) as pilot:
        widget = await _focused(pilot)
        await pilot.press("enter")
        assert widget.live is not None
        await until(pilot, lambda: widget.live is None)
        await settle(pilot)
        curves = widget.query_one(LossCurves).live
        steps = list(range(0, STEPS + 1, EVAL_EVERY))
        assert sorted(curves) == sorted(SCHEMES)
        assert all(curve[0] == steps for curve in curves.values())
        for _, losses in curves.values():
            assert losses[-1] < losses[0]  # every scheme learned something
        # one-hot x W and the lookup are the same computation: the same curve, live too
        assert curves["onehot"][1] == pytest.approx(curves["table"][1], abs=1e-3)
        shown = str(widget.query_one("#live").render())
        for scheme in SCHEMES:
            assert f"{curves[scheme][1][-1]:.2f}" in shown
        drawn = "".join(
            str(line)
            for line in widget.query_one(LossCurves).render_lines(
                widget.query_one(LossCurves).region.reset_offset
            )
        )
        assert "X" in drawn and "*" in drawn  # the live markers are on the plot
    if not torch_before:
        assert "torch" not in sys.modules  # the runs trained in their own process


async def test_escape_cancels_the_live_run(
    make_app: Callable[..., TutorApp], tmp_path: Path, monkeypatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv(live.CORPUS_ENV, str(tiny_corpus(tmp_path)))
    app = make_app(start_lesson=LESSON, start_page=page_with("inputs"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused(pilot)
        await pilot.press("enter")
        run = widget.live
        assert run is not None
        await until(pilot, lambda: bool(widget.query_one(LossCurves).live))
        await pilot.press("escape")
        await settle(pilot)
        assert widget.live is None and not run.running
        assert "已取消" in str(widget.query_one("#live").render())


async def _refusal(make_app: Callable[..., TutorApp]) -> str:
    """What the key says where no run may start (and that none started)."""
    app = make_app(start_lesson=LESSON, start_page=page_with("inputs"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert widget.live is None
        said = str(widget.query_one("#live").render())
    assert "\n" not in said.strip()  # one sentence
    return said


async def test_served_sessions_without_live_training_are_told_in_one_sentence(
    make_app: Callable[..., TutorApp], monkeypatch
) -> None:
    monkeypatch.setenv(live.REMOTE_ENV, "1")
    monkeypatch.delenv(live.ENABLED_ENV, raising=False)
    said = await _refusal(make_app)
    assert "--live-training" in said and "管理员" in said
    assert said.count("。") <= 1


async def test_without_torch_the_key_says_how_to_install_it(
    make_app: Callable[..., TutorApp], monkeypatch
) -> None:
    monkeypatch.delenv(live.REMOTE_ENV, raising=False)
    monkeypatch.setattr(live.importlib.util, "find_spec", lambda name: None)
    said = await _refusal(make_app)
    assert "pip install 'embedding-tutor[train]'" in said


PROBE = """
import asyncio, json, sys
from pathlib import Path
from tests.tui.conftest import LESSON, app_for, page_with
from tests.waits import settle
from tutor.tui.widgets.inputs_experiment import InputsExperiment, LossCurves

async def main():
    app = app_for(Path(sys.argv[1]), start_lesson=LESSON, start_page=page_with("inputs"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        widget = app.screen.query_one(InputsExperiment)
        widget.focus()
        await settle(pilot)
        await pilot.press("enter")
        for _ in range(6000):
            if widget.live is None:
                break
            await pilot.pause(0.1)
        points = sum(len(s) for s, _ in widget.query_one(LossCurves).live.values())
    print(json.dumps({"points": points, "torch": "torch" in sys.modules}))

asyncio.run(main())
"""


def test_the_app_process_never_imports_torch(tmp_path: Path) -> None:
    """In a fresh interpreter (this one may hold torch from other tests): a whole live run
    drawn, and torch never loaded in the app's process."""
    pytest.importorskip("torch")
    env = {**os.environ, live.CORPUS_ENV: str(tiny_corpus(tmp_path))}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"points": len(SCHEMES) * (STEPS // EVAL_EVERY + 1), "torch": False}
