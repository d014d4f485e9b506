"""Broken content shows the problems exactly as `tutor check` lists them, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.tui.conftest import settle
from tutor.content import load_lessons
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
