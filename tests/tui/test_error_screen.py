"""Broken content shows the problems exactly as `tutor check` lists them, and a progress
file that cannot be opened says so; never a traceback."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.conftest import app_for
from tests.waits import settle
from tutor.content import load_lessons
from tutor.content.problems import Problem, is_control
from tutor.progress.opening import open_in_background
from tutor.progress.store import ProgressStore, StoreError
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.widgets.problem import ProblemReport
from tutor.words.i18n import Speaker
from tutor.words.problems import say_problem

BROKEN = Path(__file__).parent / "fixtures" / "broken"
HOSTILE = Path(__file__).parents[1] / "content" / "fixtures" / "hostile"


def said(problem: Problem) -> str:
    """`path:line:col: message` as the Chinese interface and `tutor check` say it."""
    return f"{problem.path}:{problem.line}:{problem.col}: {say_problem(Speaker('zh'), problem)}"


async def test_error_screen_lists_check_lines(make_app: Callable[..., TutorApp]) -> None:
    problems = load_lessons(BROKEN).errors
    messages = [problem.message for problem in problems]
    assert len(messages) == 3
    assert messages[0] == "unknown field 'colour'"
    assert messages[1] == "unknown fact key 'no.such.fact'"
    assert messages[2].startswith("pipeline widget: 'current' must be one of")
    app = make_app(content_root=BROKEN)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        for problem in problems:
            assert said(problem) in shown
        assert "未知字段 'colour'" in shown and "unknown field" not in shown
        assert "Traceback" not in shown
        assert "课程内容有 3 处错误" in str(app.screen.query_one("#page-header").render())
        await pilot.press("n", "enter", "question_mark")  # nothing to open; help still works
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)

    check = subprocess.run(
        [sys.executable, "-m", "tutor", "check", str(BROKEN)], capture_output=True, text=True
    )
    assert check.returncode == 1
    for problem in problems:
        assert said(problem) in check.stdout


async def test_a_progress_file_that_cannot_open_says_so_instead_of_crashing(
    tmp_path: Path,
) -> None:
    """Opened by the app itself or handed to it already opening (as `tutor` does): either
    way the learner reads why, in Chinese, and where to look."""
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("")
    for opening in (None, open_in_background("tester", not_a_folder)):
        app = app_for(not_a_folder, opening_store=opening)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ErrorScreen)
            assert "无法打开学习进度" in str(app.screen.query_one("#page-header").render())
            why, where = app.screen.plain_text().splitlines()[:2]
            assert why == "原因：进度文件夹的位置上是一个文件，不是文件夹。"
            assert where == f"位置：{not_a_folder}"
            await pilot.press("q")
        assert app.return_code == 0


@pytest.mark.parametrize(
    ("lang", "why"),
    [
        ("zh", "原因：进度文件已损坏，或者不是导师的进度文件。"),
        (
            "en",
            "Why: the progress file is damaged, or is not a tutor progress file.",
        ),
    ],
)
async def test_a_progress_file_that_is_not_a_database_is_called_damaged(
    tmp_path: Path, lang: str, why: str
) -> None:
    """SQLite's "file is not a database" is its words, not the learner's: nothing of it."""
    (tmp_path / "progress.sqlite3").write_bytes(b"junk " * 1000)
    app = app_for(tmp_path, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        assert shown.splitlines()[0] == why
        assert "not a database" not in shown
        if lang == "zh":
            assert not re.search(
                r"[A-Za-z]{3,}", shown.replace(str(tmp_path / "progress.sqlite3"), "")
            ), shown


async def test_an_error_nobody_can_name_is_quoted_as_the_system_s_words(tmp_path: Path) -> None:
    opening: Future[ProgressStore] = Future()
    opening.set_exception(StoreError("x: something new", "other", location="x"))
    app = app_for(tmp_path, opening_store=opening)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert app.screen.plain_text().splitlines()[0] == (
            "原因：出了导师认不出的存储错误（系统的原话：x: something new）。"
        )


async def test_a_served_learner_is_not_told_to_fix_the_server_s_folders(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("")
    app = app_for(not_a_folder, remote=True)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        hint = str(app.screen.query_one(".hint", Static).render())
        assert "管理服务器的人" in hint and "TUTOR_DATA_DIR" not in hint
        assert str(tmp_path) not in app.screen.plain_text()  # the server's paths are its own


async def test_hostile_content_stops_at_the_error_screen_and_shows_nothing_raw(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    """The hostile fixtures of `tutor check` (alias bombs, control characters, an unquoted
    fact reference) and a page linked to a file outside: the app shows the same problems,
    with no control character and nothing of the linked file."""
    secret = tmp_path / "secret.txt"
    secret.write_text("---\nkind: fix\ntitle: SECRET\n---\n")
    lesson = tmp_path / "content" / "hostile"
    lesson.mkdir(parents=True)
    (lesson / "lesson.md").write_text(
        "---\nid: hostile\ntitle: t\nquestion: q\ntopic: x\nobjectives: [o]\noutcome: o\n---\n"
    )
    for page in HOSTILE.glob("*.md"):
        shutil.copy(page, lesson / page.name)
    (lesson / "99-leak.md").symlink_to(secret)
    errors = load_lessons(lesson.parent).errors
    # two bombs, three controls, the fact (quotes, key), the unclosed reference, the link
    assert len(errors) == 9

    app = make_app(content_root=lesson.parent)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        assert [said(problem) in shown for problem in errors] == [True] * len(errors)
        reports = app.screen.query(ProblemReport)
        drawn = "".join(
            strip.text for report in reports for strip in report.render_lines(report.region)
        )
        assert "SECRET" not in shown + drawn
        assert [char for char in shown + drawn if is_control(char) and char != "\n"] == []
