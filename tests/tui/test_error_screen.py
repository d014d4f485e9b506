"""Broken content shows the problems exactly as `tutor check` lists them, never a traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.tui.conftest import settle
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen


def broken_copy(tmp_path: Path) -> Path:
    """The shipped lesson with an unknown fact key and a bad widget field."""
    root = tmp_path / "content"
    shutil.copytree(content_dir(), root)
    page = sorted((root / "embedding").glob("0*.md"))[1]
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\n{{fact:no.such.fact}}\n\n```tutor pipeline\ncurrent: nowhere\n```\n")
    return root


async def test_error_screen_lists_check_lines(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    root = broken_copy(tmp_path)
    problems = load_lessons(root).errors
    assert len(problems) >= 2
    app = make_app(content_root=root)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        for problem in problems:
            assert str(problem) in shown
        assert "Traceback" not in shown

    check = subprocess.run(
        [sys.executable, "-m", "tutor", "check", str(root)], capture_output=True, text=True
    )
    assert check.returncode == 1
    for problem in problems:
        assert str(problem) in check.stdout + check.stderr
