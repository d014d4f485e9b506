"""Every page at 80x24, the smallest terminal the tutor supports: what a learner needs on
a page fits, or scrolls into view when reached."""

from __future__ import annotations

from collections.abc import Callable

from tests.tui.conftest import LESSON, page_with, settle
from tests.tui.test_no_crash import type_ahead
from tutor.tui.app import TutorApp
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.keybar import KeyBar


def on_screen(widget, line: int = 0) -> bool:
    """Line `line` of `widget` lies inside its scrolling parent's view."""
    body = widget.parent
    y = widget.virtual_region.y + line
    return body.scroll_y <= y < body.scroll_y + body.size.height


async def test_the_heatmap_at_80x24(make_app: Callable[..., TutorApp]) -> None:
    """The cursor's row and the pair readout stay in view wherever the cursor goes; the
    key line is one line; numbers mode writes negative cosines as numbers."""
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        heatmap.focus()
        await settle(pilot)
        assert app.screen.query_one(KeyBar).size.height == 1
        for _ in range(2):
            type_ahead(app, *["down"] * 9)
            await settle(pilot)
            row, column = heatmap.cursor
            lines = [strip.text for strip in heatmap.render_lines(heatmap.size.region)]
            shown = "\n".join(lines)
            assert heatmap.cell_text(row, column) in shown  # the readout
            assert f"{row + 1:>2} {heatmap.pieces[row]}" in shown  # the cursor's row
            assert on_screen(heatmap, 0) and on_screen(heatmap, heatmap.size.height - 1)
        await pilot.press("v")
        await settle(pilot)
        matrix = heatmap.matrix
        row, column = divmod(int(matrix.argmin()), len(heatmap.pieces))
        assert matrix[row, column] < -0.05
        lines = [strip.text for strip in heatmap.render_lines(heatmap.size.region)]
        assert f"{round(matrix[row, column] * 100):3d}" in "\n".join(lines)
