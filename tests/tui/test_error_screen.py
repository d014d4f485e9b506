"""Broken content shows the problems exactly as `tutor check` lists them, and a progress
file that cannot be opened says so; never a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Static

from tests.tui.conftest import app_for, settle
from tutor.content import load_lessons
from tutor.progress.store import open_in_background
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen

BROKEN = Path(__file__).parent / "fixtures" / "broken"


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
            assert str(problem) in shown
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
        assert str(problem) in check.stdout


async def test_a_progress_file_that_cannot_open_says_so_instead_of_crashing(
    tmp_path: Path,
) -> None:
    """Opened by the app itself or handed to it already opening (as `tutor` does): either
    way the learner reads why, and where to look."""
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("")
    for opening in (None, open_in_background("tester", not_a_folder)):
        app = app_for(not_a_folder, opening_store=opening)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ErrorScreen)
            assert "无法打开学习进度" in str(app.screen.query_one("#page-header").render())
            shown = app.screen.plain_text()
            assert shown.startswith("无法打开进度数据库：") and str(not_a_folder) in shown
            await pilot.press("q")
        assert app.return_code == 0


async def test_a_served_learner_is_not_told_to_fix_the_server_s_folders(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("")
    app = app_for(not_a_folder, remote=True)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        hint = str(app.screen.query_one(".hint", Static).render())
        assert "管理服务器的人" in hint and "TUTOR_DATA_DIR" not in hint
