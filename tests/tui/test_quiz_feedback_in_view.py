"""The verdict and explanations a learner's answer brings are scrolled into view.

Why: the feedback appears under the submit button, and at 80x24 a single choice's
explanations ended five lines under the window (at 120x40 a multiple choice's two), and a
submitted summary's findings all of them: a learner who did not think to scroll missed
why their answer was wrong."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, RadioButton, TextArea

from tests.tui.conftest import LESSON
from tests.tui.test_quiz_summary import question_of, quiz_page, submit, summary_page
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.widgets.rubric_feedback import RubricFeedback
from tutor.tui.widgets.summary import SummaryEditor

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


def answer(question: Widget, kind: str) -> None:
    if kind == "single":
        question.query(RadioButton).first().value = True
    elif kind == "multiple":
        question.query(Checkbox).first().value = True
    elif kind == "numeric":
        question.query_one("#answer", Input).value = "3"
    else:
        question.query_one("#answer", TextArea).text = "ID 越大的词越重要。"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("kind", ["single", "multiple", "numeric", "text", "single by keys"])
@pytest.mark.parametrize("animate", [False, True], ids=["still", "animated"])
async def test_the_feedback_of_an_answer_is_in_view(
    make_app: Callable[..., TutorApp], size: tuple[int, int], kind: str, animate: bool
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0], animate=animate)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        question = question_of(app, kind.removesuffix(" by keys"))
        if kind == "single by keys":  # Tab to the options, Down to the second, Enter
            await pilot.press("tab", "down", "enter")
            await settle(pilot)
            await pilot.pause(0.5)  # an animated scroll has ended
        else:
            answer(question, kind)
            await submit(pilot, question)
        assert_in_view(app, [question.query_one("#feedback"), *question.query(RubricFeedback)])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_findings_on_a_submitted_summary_are_in_view(
    make_app: Callable[..., TutorApp], size: tuple[int, int]
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        first = editor.summary.sections[0]
        editor.query_one(
            f"#section-{first.id}", TextArea
        ).text = "ID 只是行号。one-hot 乘表就是查表。"
        await settle(pilot)
        editor.query_one("#submit-summary", Button).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert_in_view(app, [editor.query_one("#grade"), editor.query_one(RubricFeedback)])


def assert_in_view(app: TutorApp, parts: list[Widget]) -> None:
    """The first part's top is in the page's view, and the rest as far as the window holds
    them (all of it, or the first part's top at the view's top)."""
    shown = [part.region for part in parts if part.region.height]
    top, bottom = shown[0].y, max(region.bottom for region in shown)
    view = app.screen.query_one("#body").content_region
    assert view.y <= top < view.bottom
    assert bottom <= view.bottom or top == view.y
