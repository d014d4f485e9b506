"""The one-training-step demonstration on the numbers lesson's page, by keyboard: Enter
takes a real step in a child process and the page says which rows moved."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import page_with
from tests.waits import settle, until
from tutor.core import live
from tutor.core.live import torch_available
from tutor.core.model import open_model
from tutor.tui.app import TutorApp
from tutor.tui.widgets.one_step import OneStepDemo
from tutor.words import i18n

LESSON = "numbers"
SENTENCE = "小明把苹果给了小王"


async def test_before_enter_the_demo_only_says_what_enter_does(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("one-step", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(OneStepDemo)
        assert demo.plain_text().startswith("按 Enter 用这句话训练模型一步")
        assert not demo.pending  # nothing started: torch is not imported on mount


@pytest.mark.slow  # imports torch in a child process
@pytest.mark.skipif(not torch_available(), reason="needs the train extra (torch)")
async def test_enter_takes_one_step_and_names_exactly_the_rows_read(
    make_app: Callable[..., TutorApp],
) -> None:
    scheme = open_model().scheme
    read = {scheme.single_id("<|endoftext|>"), *(t.id for t in scheme.encode(SENTENCE))}
    app = make_app(start_lesson=LESSON, start_page=page_with("one-step", lesson_id=LESSON))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(OneStepDemo)
        demo.focus()
        await pilot.press("enter")
        await until(pilot, lambda: "loss" in demo.plain_text())
        said = demo.plain_text()
        before, after = map(float, re.search(r"loss：([\d.]+) → ([\d.]+)", said).groups())
        assert after < before
        assert f"输入表：变了 {len(read)} 行，正是这句话读到的 {len(read)} 个不同 token" in said
        assert {int(id) for id in re.findall(r"\((\d+)\)", said)} == read
        others = scheme.vocab_size - len(read)
        assert f"其余 {others:,} 行：变化最大的一个数是 0，一点没动" in said
        assert f"输出层：{scheme.vocab_size:,} / {scheme.vocab_size:,} 行都变了" in said


async def _press_enter(pilot: Pilot) -> OneStepDemo:
    """Enter on the demo, once the page has settled."""
    await settle(pilot)
    demo = pilot.app.screen.query_one(OneStepDemo)
    demo.focus()
    await pilot.press("enter")
    return demo


async def test_where_a_step_cannot_run_enter_says_why_in_one_sentence(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A served session without live training (as without torch) refuses in a sentence."""
    monkeypatch.setenv("TUTOR_REMOTE", "1")
    monkeypatch.delenv("TUTOR_LIVE_TRAINING", raising=False)
    app = make_app(start_lesson=LESSON, start_page=page_with("one-step", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        demo = await _press_enter(pilot)
        await settle(pilot)
        said = demo.plain_text()
    assert said.startswith("这里走不了这一步：这台服务器没有开放自己训练")
    assert "\n" not in said and not demo.pending


def _served(monkeypatch: pytest.MonkeyPatch, slots: Path) -> dict[str, str]:
    """A served session that allows one live-training run at a time."""
    env = {live.REMOTE_ENV: "1", live.ENABLED_ENV: "1", live.SLOTS_ENV: str(slots)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def _slot_free(env: dict[str, str]) -> bool:
    try:
        live.Slot(env).release()
    except live.SlotBusy:
        return False
    return True


@pytest.mark.skipif(not torch_available(), reason="needs the train extra (torch)")
async def test_a_step_waits_for_a_live_training_slot_like_a_run(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The step's child holds a core as a training run does, so a served session counts it
    against `--live-training N` and says the training page's sentence when none is free."""
    env = _served(monkeypatch, tmp_path / "slots")
    taken = live.Slot(env)  # another learner's run
    app = make_app(start_lesson=LESSON, start_page=page_with("one-step", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        demo = await _press_enter(pilot)
        await settle(pilot)
        said = demo.plain_text()
    taken.release()
    busy = i18n.t("train.why.slots_busy", "zh", limit=1)
    assert said == i18n.t("onestep.unavailable", "zh", reason=busy)
    assert demo.step is None and not demo.pending


@pytest.mark.skipif(not torch_available(), reason="needs the train extra (torch)")
@pytest.mark.parametrize("leave", ["page", "app"])
async def test_leaving_ends_a_step_still_going_and_frees_its_slot(
    make_app: Callable[..., TutorApp],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    leave: str,
) -> None:
    """No training outlives its page: turning the page, or quitting, ends the child while
    it still imports torch, and the slot is free for the next learner."""
    env = _served(monkeypatch, tmp_path / "slots")
    app = make_app(start_lesson=LESSON, start_page=page_with("one-step", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        demo = await _press_enter(pilot)
        await until(pilot, lambda: demo.step is not None and demo.step.started)
        step = demo.step
        assert step.running and not _slot_free(env)
        if leave == "page":
            await pilot.press("n")
            await until(pilot, lambda: not step.running)
            assert (
                _slot_free(env)
                and app.screen.page.number == page_with("one-step", lesson_id=LESSON) + 1
            )
    assert not step.running and step.exit_code != 0  # ended by a signal, not finished
    assert _slot_free(env)
