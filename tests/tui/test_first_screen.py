"""A page turn builds what the first screen shows, and the rest right after that frame.

The heights counted for the first screen are lower bounds: whatever was left for later
must lie wholly below the first screen once everything is built, at every supported size.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.content.test_hostile import CPU_SECONDS_BOUND, limit_child
from tests.tui.conftest import LESSON, page_with, shipped_lesson
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.first_screen import least_markdown_lines
from tutor.tui.screens.page import PageScreen

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_what_is_built_later_lies_below_the_first_screen(
    make_app: Callable[..., TutorApp], size: tuple[int, int]
) -> None:
    app = make_app()
    later_pages = set()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for page in shipped_lesson().pages:
            app.open_page(LESSON, page.number)
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PageScreen)
            body = screen.query_one("#body")
            for widget in screen.built_after_first_frame:
                assert widget.is_mounted, (page.number, widget)
                top = widget.virtual_region.y
                assert top >= body.scrollable_content_region.height, (page.number, widget, top)
            if screen.built_after_first_frame:
                later_pages.add(page.number)
    assert page_with("training") in later_pages  # the heaviest page leaves its lower part


def test_markdown_lines_are_counted_low() -> None:
    """Paragraphs by their visible width, links and emphasis by their text, tables by row."""
    source = "**粗体**和[链接](https://example.org/a/b)\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert least_markdown_lines(source, 80) == 1 + 2
    assert least_markdown_lines("字" * 100, 40) == 5  # 200 cells over 40
    assert least_markdown_lines("", 80) == 0


CHILD = """
import json, sys, time
from tutor.tui.first_screen import least_markdown_lines
source = sys.stdin.read()
started = time.process_time()
lines = least_markdown_lines(source, 80)
print(json.dumps({"lines": lines, "cpu": time.process_time() - started}))
"""


def test_markdown_lines_are_counted_at_once_on_hostile_lines() -> None:
    """Counted on every page turn, so on text `tutor check` lets through: a table row of
    blanks before its text, a run of '[' and of '[a](' (patterns that backtracked over
    them would keep the page from opening for minutes). Counted in a child with a CPU
    limit; the bound is loose, the count takes milliseconds."""
    table = "| a | b |\n|---|---|\n" + " " * 20_000 + "x\n"
    source = f"{table}\n{'[' * 50_000}\n\n{'[a](' * 20_000}\n"
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=source,
        capture_output=True,
        text=True,
        preexec_fn=limit_child,
        timeout=600,  # a hang guard, not a measurement
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["lines"] == 2 + 50_000 // 80 + 80_000 // 80  # rows, then cells over 80
    assert report["cpu"] < CPU_SECONDS_BOUND


async def test_the_first_screen_asks_the_lessons_question_once(
    make_app: Callable[..., TutorApp],
) -> None:
    """The lesson card states the question; the first page's text does not repeat it."""
    question = shipped_lesson().card.question
    app = make_app(start_lesson=LESSON, start_page=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert shown.count(question) == 1
