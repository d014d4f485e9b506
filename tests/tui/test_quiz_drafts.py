"""An answer typed (or ticked) on the quiz and not submitted survives the tutor: it is saved
as a draft within a second of the last key, found again in a new process, and replaced by
the attempt when the learner submits it. Drafts are never attempts."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, TextArea

from tests.tui.conftest import LEARNER, LESSON, tutor_on_pty
from tests.tui.test_quiz_summary import question_of, quiz_page
from tests.waits import block_until, settle, until
from tutor.progress.sqlite import DB_FILENAME
from tutor.progress.store import MAX_TEXT_CHARS
from tutor.tui.app import TutorApp

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

TEXT = "ID 只是行号 表里那一行才是向量"
NUMBER = "1.41"


def on_quiz(make_app: Callable[..., TutorApp], **options: object) -> TutorApp:
    """A tutor opening on the quiz page."""
    return make_app(start_lesson=LESSON, start_page=quiz_page()[0], **options)


@asynccontextmanager
async def typed_on_quiz(make_app: Callable[..., TutorApp], **options: object):  # type: ignore[no-untyped-def]
    """A tutor on the quiz page, where the numeric and the text question have been typed
    into and one box of the multiple-choice one ticked, nothing submitted: (app, pilot)."""
    app = on_quiz(make_app, **options)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_drafts(pilot, app)
        yield app, pilot


async def type_drafts(pilot, app: TutorApp) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    question_of(app, "numeric").query_one("#answer", Input).focus()
    await pilot.press(*NUMBER)
    question_of(app, "text").query_one("#answer", TextArea).focus()
    await pilot.press(*TEXT)
    question_of(app, "multiple").query(Checkbox)[1].value = True


def drafts_on_disk(data_dir: Path) -> dict[str, str]:
    """The drafts as the file holds them, read past the app (JSON text by question)."""
    if not (data_dir / DB_FILENAME).exists():
        return {}
    db = sqlite3.connect(data_dir / DB_FILENAME)
    try:
        rows = db.execute(
            "SELECT question, answer FROM quiz_drafts WHERE learner = ? AND lesson = ?",
            (LEARNER, LESSON),
        ).fetchall()
    except sqlite3.OperationalError:  # the tutor has not made its tables yet
        return {}
    finally:
        db.close()
    return dict(rows)


WANTED = {"onehot-distance": f'"{NUMBER}"', "explain-embedding": f'"{TEXT}"', "table-facts": "[1]"}


async def assert_restored(make_app: Callable[..., TutorApp]) -> None:
    """A new app on the same data dir shows each draft in its field, and no attempt."""
    app = on_quiz(make_app)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        number_field = question_of(app, "numeric").query_one("#answer", Input)
        assert number_field.value == NUMBER
        text_area = question_of(app, "text").query_one("#answer", TextArea)
        # the store keeps as much of a draft as each field holds
        assert number_field.max_length == text_area.max_length == MAX_TEXT_CHARS == 2000
        assert text_area.text == TEXT
        assert text_area.border_subtitle == f"{len(TEXT)} / {MAX_TEXT_CHARS}"
        ticks = [box.value for box in question_of(app, "multiple").query(Checkbox)]
        assert ticks == [n == 1 for n in range(len(ticks))]
        for question in app.screen.query("QuizQuestion"):
            assert question.attempts == 0
            assert question.feedback == []  # nothing was graded: no verdict shown
            assert app.ctx.store.attempts(LESSON, question.question.id) == []


async def test_typed_answers_are_saved_while_typing_and_found_by_a_new_app(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    async with typed_on_quiz(make_app) as (app, pilot):
        # saved while the app runs, without leaving the page
        await until(pilot, lambda: drafts_on_disk(data_dir) == WANTED)
        assert app.screen.is_current
    await assert_restored(make_app)


async def test_quitting_with_q_keeps_what_was_typed_a_moment_ago(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    async with typed_on_quiz(make_app) as (app, pilot):
        await pilot.press("escape", "q")  # most likely before the save's timer fires
        await until(pilot, lambda: not app.is_running)
    assert drafts_on_disk(data_dir) == WANTED
    await assert_restored(make_app)


async def test_submitting_replaces_the_draft_with_one_attempt(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    async with typed_on_quiz(make_app) as (app, pilot):
        await until(pilot, lambda: drafts_on_disk(data_dir) == WANTED)
        numeric = question_of(app, "numeric")
        numeric.query_one("#answer", Input).focus()
        await pilot.press("enter")
        text = question_of(app, "text")
        text.query_one("#answer", TextArea).focus()
        await pilot.press("end", "对")  # typed, then submitted before its save is due
        text.query_one("#submit").focus()
        await pilot.press("enter")
        await settle(pilot)
        await until(pilot, lambda: app.screen._draft_timer is None)
        store = app.ctx.store
        assert [a.answer for a in store.attempts(LESSON, "onehot-distance")] == [NUMBER]
        assert [a.answer for a in store.attempts(LESSON, "explain-embedding")] == [TEXT + "对"]
        assert (numeric.attempts, text.attempts) == (1, 1)
        assert store.drafts(LESSON) == {"table-facts": [1]}  # the unsubmitted one stays
        # typing on after a submission is a draft again, and the attempt stays one
        numeric.query_one("#answer", Input).focus()
        await pilot.press("end", "backspace", "3")
        await until(pilot, lambda: store.drafts(LESSON).get("onehot-distance") == "1.43")
        assert len(store.attempts(LESSON, "onehot-distance")) == 1

    reopened = on_quiz(make_app)
    async with reopened.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        numeric = question_of(reopened, "numeric")
        assert numeric.query_one("#answer", Input).value == "1.43"  # the draft, not the attempt
        assert numeric.attempts == 1 and numeric.correct is True  # the attempt's verdict
        assert question_of(reopened, "text").query_one("#answer", TextArea).text == TEXT + "对"
        assert reopened.ctx.store.drafts(LESSON) == {"onehot-distance": "1.43", "table-facts": [1]}


async def test_a_guest_types_and_submits_and_nothing_is_written(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    async with typed_on_quiz(make_app, guest=True) as (app, pilot):
        await until(
            pilot,
            lambda: (
                app.ctx.store.drafts(LESSON)
                == {"onehot-distance": NUMBER, "explain-embedding": TEXT, "table-facts": [1]}
            ),
        )
        await pilot.press("escape", "q")
    assert not (data_dir / DB_FILENAME).exists()


@pytest.mark.pty
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGHUP], ids=["kill-9", "hangup"])
async def test_a_tutor_killed_on_the_quiz_keeps_the_drafts(
    make_app: Callable[..., TutorApp], data_dir: Path, how: signal.Signals
) -> None:
    """Drafts saved (typed in one tutor, on disk within a second), then the real tutor on a
    terminal opens the quiz on them and is killed (SIGKILL, or SIGHUP as a dropped SSH
    connection or `tmux kill-session`): a new tutor still finds every draft."""
    async with typed_on_quiz(make_app) as (_app, pilot):
        await until(pilot, lambda: drafts_on_disk(data_dir) == WANTED)
    args = ("--lang", "en", "--learner", LEARNER, "lesson", LESSON, "--page", str(quiz_page()[0]))
    before = _visits(data_dir)
    leader, child = tutor_on_pty(data_dir, 80, 24, *args)
    threading.Thread(target=_drain, args=(leader,), daemon=True).start()
    try:
        block_until(lambda: _visits(data_dir) > before, "the page visit saved", process=child)
        os.kill(child.pid, how)
        # a hangup ends it as q does, with the status a shell gives a signal
        assert child.wait(timeout=60) == (-how if how == signal.SIGKILL else 128 + how)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
        os.close(leader)
    assert drafts_on_disk(data_dir) == WANTED
    await assert_restored(make_app)


def _drain(leader: int) -> None:
    """Read what the tutor draws, so that it never waits on a full terminal."""
    while True:
        try:
            if not os.read(leader, 65536):
                return
        except OSError:
            return


def _visits(data_dir: Path) -> int:
    """How often the quiz page was opened: each tutor saves a visit once the page shows."""
    db = sqlite3.connect(data_dir / DB_FILENAME)
    try:
        row = db.execute(
            "SELECT visits FROM page_visits WHERE learner = ? AND page = ?",
            (LEARNER, quiz_page()[0]),
        ).fetchone()
    finally:
        db.close()
    return row[0] if row else 0
