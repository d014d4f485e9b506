"""Quiz feedback is immediate and recorded; the summary saves itself and survives a restart."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Button, Checkbox, Input, RadioButton, TextArea

from tests.tui.conftest import LEARNER, LESSON, shipped_lesson
from tests.waits import settle, until
from tutor.content.grade import rubric_for
from tutor.content.models import QuizFront
from tutor.progress.sqlite import DB_FILENAME
from tutor.tui.app import TutorApp
from tutor.tui.widgets.quiz import QuizQuestion
from tutor.tui.widgets.summary import SummaryEditor

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


def quiz_page() -> tuple[int, QuizFront]:
    for page in shipped_lesson().pages:
        if isinstance(page.front, QuizFront) and page.front.questions:
            return page.number, page.front
    raise AssertionError("the shipped lesson has no quiz questions")


def summary_page() -> int:
    for page in shipped_lesson().pages:
        if getattr(page.front, "summary", None) is not None:
            return page.number
    raise AssertionError("the shipped lesson has no summary form")


async def summary_editor(pilot, app: TutorApp) -> SummaryEditor:  # type: ignore[no-untyped-def]
    """The summary form, once the page has settled."""
    await settle(pilot)
    return app.screen.query_one(SummaryEditor)


def question_of(app: TutorApp, kind: str) -> QuizQuestion:
    return next(q for q in app.screen.query(QuizQuestion) if q.question.type == kind)


async def submit(pilot, question: QuizQuestion) -> None:
    """Focus the submit button and press enter, as a keyboard learner does."""
    await settle(pilot)
    question.query_one("#submit", Button).focus()
    await pilot.press("enter")
    await settle(pilot)


async def test_every_question_type_gives_feedback_and_records_attempts(
    make_app: Callable[..., TutorApp],
) -> None:
    number, front = quiz_page()
    app = make_app(start_lesson=LESSON, start_page=number)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        store = app.ctx.store

        single = question_of(app, "single")
        await submit(pilot, single)
        assert "先选一个答案" in single.plain_text()
        assert store.attempts(LESSON, single.question.id) == []
        wrong = next(n for n, c in enumerate(single.question.choices) if not c.correct)
        right = next(n for n, c in enumerate(single.question.choices) if c.correct)
        single.query(RadioButton)[wrong].value = True
        await submit(pilot, single)
        assert single.correct is False
        assert app.ctx.fill_facts(single.question.choices[wrong].explain) in single.plain_text()
        single.query(RadioButton)[right].value = True
        await submit(pilot, single)
        assert single.correct is True
        assert "✓ 答对了" in single.plain_text()
        attempts = store.attempts(LESSON, single.question.id)
        assert [(a.answer, a.correct) for a in attempts] == [(wrong, False), (right, True)]

        multiple = question_of(app, "multiple")
        wanted = [n for n, c in enumerate(multiple.question.choices) if c.correct]
        boxes = list(multiple.query(Checkbox))
        boxes[wanted[0]].value = True
        await submit(pilot, multiple)
        assert multiple.correct is False and "部分正确" in multiple.plain_text()
        for n in wanted:
            boxes[n].value = True
        await submit(pilot, multiple)
        assert multiple.correct is True
        assert store.last_attempt(LESSON, multiple.question.id).answer == wanted

        numeric = question_of(app, "numeric")
        field = numeric.query_one("#answer", Input)
        field.focus()
        await pilot.press(*"abc", "enter")
        await settle(pilot)
        assert "不是一个数" in numeric.plain_text()
        assert store.attempts(LESSON, numeric.question.id) == []
        field.value = ""
        await pilot.press(*f"{numeric.question.answer + 10 * (numeric.question.tolerance + 1)}")
        await pilot.press("enter")
        await settle(pilot)
        assert numeric.correct is False
        field.value = str(numeric.question.answer)
        await pilot.press("enter")
        await settle(pilot)
        assert numeric.correct is True

        text = question_of(app, "text")
        rubric = rubric_for(shipped_lesson(), text.question.id)
        text.query_one("#answer", TextArea).text = "我觉得 ID 只是行号。"
        await submit(pilot, text)
        assert text.correct is False
        reading = text.plain_text()
        assert f"✓ 提到了：{rubric.claims[0].claim_zh}" in reading
        assert "  找到：「我觉得 ID 只是行号」" in reading
        assert f"○ 没找到：{rubric.claims[1].claim_zh} — 写到了就自己勾上" in reading
        assert "否定了" not in reading  # nothing was negated
        full = "ID 只是行号；查表就是取出一行；表是训练出来的；意思相近的词向量也相近。"
        text.query_one("#answer", TextArea).text = full
        await submit(pilot, text)
        assert text.correct is True
        assert [a.correct for a in store.attempts(LESSON, text.question.id)] == [False, True]

    restarted = make_app(start_lesson=LESSON, start_page=number)
    async with restarted.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        single = question_of(restarted, "single")
        assert single.query(RadioButton)[right].value
        assert "✓ 答对了" in single.plain_text() and "已作答 2 次" in single.plain_text()
        multiple = question_of(restarted, "multiple")
        assert [n for n, box in enumerate(multiple.query(Checkbox)) if box.value] == wanted
        assert question_of(restarted, "numeric").query_one("#answer", Input).value == str(
            front.questions[[q.type for q in front.questions].index("numeric")].answer
        )


async def test_summary_autosaves_then_grades_and_shows_the_reference(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        first, second = editor.summary.sections[:2]
        area = editor.query_one(f"#section-{first.id}", TextArea)
        area.focus()
        await pilot.press(*"ID只是行号")
        await until(pilot, lambda: "已自动保存" in str(editor.query_one("#status").render()))
        db = sqlite3.connect(data_dir / DB_FILENAME)
        saved = db.execute(
            "SELECT text FROM summaries WHERE learner = ? AND lesson = ? AND section = ?",
            (LEARNER, LESSON, first.id),
        ).fetchone()
        assert saved == ("ID只是行号",)
        assert "已自动保存" in str(editor.query_one("#status").render())

        reference = editor.query_one("#reference")
        assert not reference.display  # the reference summary waits for the learner's own
        editor.query_one(f"#section-{second.id}", TextArea).text = "one-hot 乘表就是查表"
        await settle(pilot)
        editor.query_one("#submit-summary", Button).press()
        await settle(pilot)
        assert editor.has_class("-submitted") and reference.display
        covered = {claim.id for claim in editor.result.met}
        assert covered == {"id-is-row", "onehot-is-lookup"}
        reading = editor.plain_text()
        assert "参考总结" in reading
        assert f"覆盖了 2 / {len(editor.summary.rubric)}" in reading

    restarted = make_app(start_lesson=LESSON, start_page=summary_page())
    async with restarted.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = restarted.screen.query_one(SummaryEditor)
        assert editor.query_one(f"#section-{first.id}", TextArea).text == "ID只是行号"
        assert editor.has_class("-submitted")


async def test_the_last_keystrokes_are_saved_on_leaving_the_page_and_on_quitting(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40)) as pilot:
        first, second = (await summary_editor(pilot, app)).summary.sections[:2]
        app.screen.query_one(f"#section-{first.id}", TextArea).focus()
        await pilot.press(*"left", "escape", "n")  # before the save's timer fires
        await pilot.pause()
        assert app.ctx.store.summary(LESSON) == {first.id: "left"}
        await pilot.press("p")
        editor = await summary_editor(pilot, app)
        editor.query_one(f"#section-{second.id}", TextArea).focus()
        await pilot.press(*"quit")
        await app.action_quit()
    db = sqlite3.connect(data_dir / DB_FILENAME)
    rows = db.execute("SELECT section, text FROM summaries WHERE learner = ?", (LEARNER,))
    assert dict(rows.fetchall()) == {first.id: "left", second.id: "quit"}


async def test_a_paste_cut_to_the_limit_says_how_much_was_left_out(
    make_app: Callable[..., TutorApp],
) -> None:
    """A paste past 2,000 characters was cut with only the count at 2000/2000 to tell."""
    from textual import events
    from textual.widgets._toast import Toast

    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        editor = await summary_editor(pilot, app)
        area = editor.query(TextArea).first()
        area.focus()
        area.insert("我" * 300)
        await settle(pilot)
        assert list(app.screen.query(Toast)) == []  # typing within the limit: nothing said
        app.post_message(events.Paste("猫" * 2_000))  # as the terminal hands it over
        await settle(pilot)
        assert len(area.text) == 2_000
        said = [str(toast._notification.message) for toast in app.screen.query(Toast)]
        assert said == ["这一栏最多 2,000 字：末尾 300 字没有放进来。"]
