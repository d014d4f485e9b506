"""The quiz by keyboard, as its help says: arrows move between options, space ticks, Enter
submits; the submit button looks focused only when it is; a resumed answer is continued
where it ends."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Button, Checkbox, RadioButton, RadioSet, TextArea

from tests.tui.conftest import LESSON
from tests.tui.test_quiz_summary import question_of, quiz_page
from tests.waits import settle
from tutor.tui.app import TutorApp


async def test_enter_submits_a_single_choice_with_the_option_the_arrows_reached(
    make_app: Callable[..., TutorApp],
) -> None:
    """Enter on a single choice once only selected the option; 提交 needed a Tab."""
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        single = question_of(app, "single")
        right = next(n for n, c in enumerate(single.question.choices) if c.correct)
        single.query_one(RadioSet).focus()
        await settle(pilot)
        await pilot.press(*["down"] * right, "enter")
        await settle(pilot)
        assert single.query(RadioButton)[right].value
        assert single.correct is True
        assert app.ctx.store.last_attempt(LESSON, single.question.id).answer == right


async def test_multiple_choice_moves_by_arrows_ticks_by_space_and_submits_by_enter(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        multiple = question_of(app, "multiple")
        wanted = [n for n, c in enumerate(multiple.question.choices) if c.correct]
        boxes = list(multiple.query(Checkbox))
        boxes[0].focus()
        await settle(pilot)
        at = 0
        for n in wanted:
            await pilot.press(*["down"] * (n - at), "space")
            at = n
        await pilot.press("up")
        await settle(pilot)
        assert app.focused is boxes[wanted[-1] - 1]
        await pilot.press("enter")
        await settle(pilot)
        assert [box.value for box in boxes] == [n in wanted for n in range(len(boxes))]
        assert multiple.correct is True
        assert app.ctx.store.last_attempt(LESSON, multiple.question.id).answer == wanted


async def test_the_submit_button_looks_focused_only_when_it_is(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        single = question_of(app, "single")
        button = single.query_one("#submit", Button)
        single.query_one(RadioSet).focus()
        await settle(pilot)
        resting = button.styles.background
        button.focus()
        await settle(pilot)
        focused = button.styles.background
        assert resting != focused
        assert abs(resting.brightness - focused.brightness) > 0.15  # at a glance, not a tint


async def test_a_resumed_written_answer_puts_the_cursor_at_its_end(
    make_app: Callable[..., TutorApp],
) -> None:
    saved = "ID 只是行号。\n查表取出一行。"
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = question_of(app, "text")
        app.ctx.store.save_draft(LESSON, question.question.id, saved)
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        area = question_of(app, "text").query_one("#answer", TextArea)
        assert area.text == saved
        area.focus()
        await pilot.press(*"对")
        await settle(pilot)
        assert area.text == saved + "对"
