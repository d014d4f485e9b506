"""The content error screen fits any width without hiding a character, and `tutor` says
with its exit status that it could not show the lessons."""

from __future__ import annotations

import os
import re
import select
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.tui.conftest import tutor_on_pty
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.widgets.problem import ProblemReport

LONG_VALUE = "一段很长的标题" * 12 + " and the end of the line is here"


def broken_lesson(root: Path) -> Path:
    """A lesson whose only page has a 200-column line with the mistake at its end."""
    lesson = root / "wide"
    lesson.mkdir(parents=True)
    (lesson / "lesson.md").write_text(
        "---\nid: wide\ntitle: t\nquestion: q\ntopic: x\nobjectives: [o]\noutcome: o\n---\n"
    )
    (lesson / "01-goals.md").write_text(
        f"---\nkind: objectives\ntitle: t\n---\n{LONG_VALUE} {{{{fact:no.such.key}}}}\n"
    )
    return root


async def test_long_lines_wrap_with_the_caret_under_its_spot(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    app = make_app(content_root=broken_lesson(tmp_path / "content"))
    async with app.run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        report = app.screen.query_one(ProblemReport)
        width = report.content_size.width
        shown = [strip.text.rstrip() for strip in report.render_lines(report.region.reset_offset)]
        assert shown and all(cell_len(line) <= width for line in shown)
        body = app.screen.query_one("#body")
        assert body.max_scroll_x == 0  # nothing to scroll to sideways
        # every character of the source line is on screen, in order
        pieces = [line.split(" | ", 1)[1] for line in shown if " | " in line]
        source = [piece for piece in pieces if not re.fullmatch(r"\s*\^*\s*(错误)?", piece)]
        assert "".join(source).replace(" ", "") == (
            f"{LONG_VALUE} {{{{fact:no.such.key}}}}".replace(" ", "")
        )
        # the caret is under the first brace of the reference, in terminal cells
        marker = next(line for line in shown if "^" in line)
        above = shown[shown.index(marker) - 1]
        assert cell_len(marker[: marker.index("^")]) == cell_len(above[: above.index("{{")])


@pytest.mark.pty
@pytest.mark.parametrize("command", ["--content", "preview"])
def test_tutor_exits_non_zero_after_showing_broken_content(tmp_path: Path, command: str) -> None:
    """The real `tutor` (and `tutor preview`) on a pseudo-terminal: the error screen
    shows, q quits, status 1."""
    root = broken_lesson(tmp_path / "content")
    leader, child = tutor_on_pty(tmp_path / "data", 80, 24, command, str(root))
    seen = b""
    try:
        while b"no.such.key" not in seen:  # the error screen is up
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, f"no error screen; saw {seen[-500:]!r}"
            seen += os.read(leader, 65536)
        os.write(leader, b"q")
        assert child.wait(timeout=60) == 1
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
        os.close(leader)
