"""A page turn builds what the first screen shows, and the rest right after that frame.

The heights counted for the first screen are lower bounds: whatever was left for later
must lie wholly below the first screen once everything is built, at every supported size.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.tui.conftest import LESSON, page_with, settle, shipped_lesson
from tutor.tui.app import TutorApp
from tutor.tui.first_screen import least_markdown_lines
from tutor.tui.screens.page import PageScreen

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
