"""Page 10's renumbering widget: the experiment the core computes, and Enter draws another
permutation (the next seed), not one picked for its result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import LESSON, page_with
from tests.waits import settle
from tutor.core.renumber import SAMPLE_POSITIONS, Experiment
from tutor.tui.app import TutorApp
from tutor.tui.widgets.renumber import RenumberDemo, rounding_bound

pytestmark = pytest.mark.slow  # seconds of numpy per experiment


@pytest.fixture(scope="module")
def experiment() -> Experiment:
    return Experiment.open()  # the same computation in this process, for comparison


async def test_the_widget_shows_the_experiment_and_enter_draws_a_new_permutation(
    make_app: Callable[..., TutorApp], experiment: Experiment
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("renumber"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(RenumberDemo)
        sentence = demo.config.sentence
        assert demo.seed == 1
        assert demo.base is not None and demo.shown is not None and demo.loss is not None
        assert demo.base.val_loss == pytest.approx(experiment.val_loss())
        assert [p.piece for p in demo.base.top] == [
            p.piece for p in experiment.baseline_top(sentence)
        ]
        first = demo.shown
        assert first == experiment.sentence(1, sentence)
        assert demo.loss.value == pytest.approx(experiment.tokenizer_only_loss(1))
        first_loss = demo.loss.value
        text = demo.plain_text()
        assert f"{first_loss:.3f}" in text and f"{experiment.chance:.3f}" in text

        demo.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert demo.seed == 2
        assert demo.shown == experiment.sentence(2, sentence)
        assert [p.id for p in demo.shown.consistent_top] != [p.id for p in first.consistent_top]
        assert [p.piece for p in demo.shown.consistent_top] == [p.piece for p in demo.base.top]
        assert demo.shown.consistent_max_abs_diff < 1e-6
        assert demo.loss.seed == 2 and demo.loss.value != first_loss
        assert demo.loss.value > experiment.chance
        assert f"{demo.loss.value:.3f}" in demo.plain_text()


async def test_a_press_shows_its_seed_at_once_and_the_loss_s_progress(
    make_app: Callable[..., TutorApp], experiment: Experiment
) -> None:
    """What the frame after the key draws: the new permutation's number, the old one's
    figures gone; the loss's progress is counted for this seed up to its last position."""
    app = make_app(start_lesson=LESSON, start_page=page_with("renumber"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(RenumberDemo)
        old = f"{demo.loss.value:.3f}"
        demo.action_draw()  # what Enter runs, read before any worker could answer
        text = demo.plain_text()
        assert "第 2 个随机置换" in text.splitlines()[0]
        assert old not in text and "计算中" in text
        await settle(pilot)
        assert demo.loss.seed == 2
        assert demo.progress == (SAMPLE_POSITIONS, SAMPLE_POSITIONS)


async def test_under_another_model_the_page_says_the_experiment_stays_on_the_project_model(
    make_app: Callable[..., TutorApp], tmp_path: Path, experiment: Experiment
) -> None:
    """The numpy forward pass is the project model's: under --model the widget still runs
    on it, and the page's note says so instead of claiming every part uses the opened one."""
    from tests.tui.test_beside import write_chinese_model

    real = write_chinese_model(tmp_path / "real-zh")
    app = make_app(start_lesson=LESSON, start_page=page_with("renumber"), model_dir=real)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        note = str(app.screen.query_one(".model-note").render())
        assert "重新编号实验例外" in note
        demo = app.screen.query_one(RenumberDemo)
        assert demo.base is not None and demo.base.val_loss == pytest.approx(experiment.val_loss())


@pytest.mark.parametrize(
    ("diff", "shown"),
    [(0.0, "0"), (2.2e-16, "1e-15"), (4.4e-16, "1e-15"), (1e-15, "1e-15"), (3e-7, "1e-06")],
)
def test_the_page_bounds_the_rounding_by_its_power_of_ten(diff: float, shown: str) -> None:
    """A consistent renumbering changes probabilities only by float64 rounding, whose
    exact size depends on the CPU's arithmetic kernels (2.2e-16 on one machine, 4.4e-16
    on another): the page says the power of ten it stays within, the same on both."""
    assert rounding_bound(diff) == shown
