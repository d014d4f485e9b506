"""A progress store that refuses to write never costs the learner their answer or the app:
the screen that saves says so in a notification, in the learner's language, and the
widget's status line does not claim a save that did not happen. Widgets never write."""

from __future__ import annotations

import ast
import errno
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button, RadioButton, TextArea

import tutor.tui.widgets
from tests.tui.conftest import LESSON
from tests.tui.test_quiz_summary import (
    question_of,
    quiz_page,
    submit,
    summary_editor,
    summary_page,
)
from tests.waits import settle, until
from tutor.progress.sqlite import SqliteStore
from tutor.progress.store import MAX_ATTEMPTS_PER_QUESTION, StoreLimitError
from tutor.tui.app import TutorApp
from tutor.tui.context import TutorContext
from tutor.tui.messages import SummaryDraftChanged
from tutor.words.refusals import why_not_saved

WRITES = {"record_attempt", "save_summary", "submit_summary", "save_self_check", "visit_page"}


def notifications(app: TutorApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def refuse_writes(app: TutorApp) -> None:
    """The learner's SQLite connection becomes read-only: every write raises, reads work."""
    store = app.ctx.store
    assert isinstance(store, SqliteStore)
    store._db.execute("PRAGMA query_only = ON")


def assert_running(app: TutorApp) -> None:
    assert app.is_running and app.return_code is None and app.crashed is None


def notice(app: TutorApp, part: str) -> str:
    """The one notification that says `part`."""
    assert_running(app)
    (found,) = [n for n in notifications(app) if part in n] or [str(notifications(app))]
    assert part in found
    return found


async def test_an_answer_the_store_cannot_keep_stays_on_screen_and_is_told(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        app.ctx.store.close()  # the database went away: reads and writes both raise
        single = question_of(app, "single")
        right = next(n for n, c in enumerate(single.question.choices) if c.correct)
        single.query(RadioButton)[right].value = True
        await submit(pilot, single)
        said = notice(app, "你的答案没能保存")
        assert "仍在屏幕上" in said
        assert not re.search(r"[A-Za-z]{3,}", said), said  # nothing English in zh
        assert_running(app)
        assert single.query(RadioButton)[right].value  # the answer is still there
        assert single.correct is True and "✓ 答对了" in single.plain_text()
        assert "这次作答没有保存" in single.plain_text()


async def test_an_answer_refused_in_english_says_so_in_english(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0], lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        refuse_writes(app)
        single = question_of(app, "single")
        single.query(RadioButton)[0].value = True
        await submit(pilot, single)
        assert notice(app, "Your answer could not be saved") == (
            "Your answer could not be saved: the progress file is read-only; it is still on screen."
        )
        assert "This answer was not saved" in single.plain_text()
        assert_running(app)


async def test_a_summary_the_store_cannot_keep_is_not_called_saved(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40)) as pilot:
        editor = await summary_editor(pilot, app)
        refuse_writes(app)
        section = editor.summary.sections[0].id
        area = editor.query_one(f"#section-{section}", TextArea)
        area.focus()
        await pilot.press(*"ID只是行号")
        await until(pilot, lambda: "正在保存" not in str(editor.query_one("#status").render()))
        said = notice(app, "你的总结没能保存")
        assert "进度文件是只读的" in said and "仍在屏幕上" in said
        status = str(editor.query_one("#status").render())
        assert "已自动保存" not in status
        assert area.text == "ID只是行号"
        assert app.ctx.store.summary(LESSON) == {}

        editor.query_one("#submit-summary", Button).press()
        await settle(pilot)
        status = str(editor.query_one("#status").render())
        assert "没有保存" in status and "已提交" not in status
        assert editor.has_class("-submitted")  # graded and shown all the same
        assert_running(app)

        app.ctx.store._db.execute("PRAGMA query_only = OFF")  # the disk is back
        await pilot.press("escape", "n")  # the lesson goes on, and the text is saved on leaving
        await settle(pilot)
        assert_running(app)
        assert app.screen.name != f"{LESSON}:{summary_page()}"
        assert app.ctx.store.summary(LESSON) == {section: "ID只是行号"}


def test_widgets_never_touch_the_progress_store() -> None:
    """The screens own the store: no widget reads or writes it, or imports a backend."""
    folder = Path(tutor.tui.widgets.__file__).parent
    found = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in WRITES | {"store"}:
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                ("tutor.progress.sql", "tutor.progress.postgres", "tutor.progress.sqlite")
            ):
                found.append(f"{path.name}:{node.lineno}: imports {node.module}")
    assert found == []


async def test_a_page_opens_empty_when_the_saved_progress_cannot_be_read(
    make_app: Callable[..., TutorApp],
) -> None:
    number = quiz_page()[0]
    app = make_app(start_lesson=LESSON, start_page=number - 1)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        app.ctx.store.close()
        await pilot.press("n")
        await settle(pilot)
        assert_running(app)
        assert app.screen.name == f"{LESSON}:{number}"
        unread = [n for n in notifications(app) if "读不到你以前保存的进度" in n]
        assert unread == ["读不到你以前保存的进度：与进度存储的连接已经关闭。这一页从空白开始。"]
        assert [n for n in notifications(app) if "没能记下你读到了哪一页" in n] != []
        single = question_of(app, "single")
        assert single.correct is None and single.attempts == 0


async def test_a_save_that_a_newer_change_overtook_does_not_say_saved(
    make_app: Callable[..., TutorApp],
) -> None:
    """The page may save the first keystrokes while the last is still on its way to it."""
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40)) as pilot:
        editor = await summary_editor(pilot, app)
        section = editor.summary.sections[0].id
        older = SummaryDraftChanged(editor, LESSON, section, "ID")
        editor.query_one(f"#section-{section}", TextArea).text = "ID只是行号"
        await until(pilot, lambda: "正在保存" in str(editor.query_one("#status").render()))
        editor.saved(older, True)
        assert "正在保存" in str(editor.query_one("#status").render())
        await until(pilot, lambda: "已自动保存" in str(editor.query_one("#status").render()))
        assert app.ctx.store.summary(LESSON) == {section: "ID只是行号"}


async def test_a_question_at_its_attempt_limit_says_so_in_chinese(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        single = question_of(app, "single")
        for _ in range(MAX_ATTEMPTS_PER_QUESTION):
            app.ctx.store.record_attempt(LESSON, single.question.id, 0, False)
        single.query(RadioButton)[0].value = True
        await submit(pilot, single)
        assert notice(app, "你的答案没能保存") == (
            f"你的答案没能保存：这道题已经保存了 {MAX_ATTEMPTS_PER_QUESTION} 次作答，"
            "是每位学习者能保存的上限。它仍在屏幕上。"
        )
        assert "这次作答没有保存" in single.plain_text()


def test_why_a_save_failed_is_said_without_the_drivers_english() -> None:
    ctx = TutorContext("zh", SqliteStore("guest", guest=True))
    assert why_not_saved(ctx, OSError(errno.ENOSPC, "No space left on device")) == "磁盘已满"
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = 5  # SQLITE_BUSY, as SQLite sets it
    assert why_not_saved(ctx, busy) == "进度文件正被别的程序锁住"
    broken = sqlite3.DatabaseError("file is not a database")
    broken.sqlite_errorcode = 26  # SQLITE_NOTADB
    assert why_not_saved(ctx, broken) == "进度文件已损坏，或者不是导师的进度文件"
    limit = StoreLimitError("this summary has been submitted 20 times", "submissions", limit=20)
    assert why_not_saved(ctx, limit).startswith("这份总结已经提交了 20 次")
    # a cause nobody can name: the system's own words, said to be theirs
    assert why_not_saved(ctx, sqlite3.Error("something new")) == (
        "出了导师认不出的存储错误（系统的原话：something new）"
    )
