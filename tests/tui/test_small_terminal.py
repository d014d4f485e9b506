"""Every page at 80x24, the smallest terminal the tutor supports: what a learner needs on
a page fits, or scrolls into view when reached."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Button, Checkbox, TextArea

from tests.tui.conftest import LESSON, page_with, shipped_lesson
from tests.tui.test_no_crash import type_ahead
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.quiz import QuizQuestion
from tutor.tui.widgets.summary import SummaryEditor


def page_with_kind(kind: str, *, summary: bool = False) -> int:
    """The first shipped page of `kind` (with a summary form, if asked)."""
    return next(
        page.number
        for page in shipped_lesson().pages
        if page.kind == kind and (not summary or getattr(page.front, "summary", None))
    )


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


async def test_the_heatmap_reached_by_tab_shows_its_readout(
    make_app: Callable[..., TutorApp],
) -> None:
    """Through the fact strip above it: the strip folds its source away as it loses focus,
    after Textual has scrolled the heatmap to the layout with the source still open."""
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        while app.focused is not heatmap:
            await pilot.press("tab")
            await settle(pilot)
        assert on_screen(heatmap, 1) and on_screen(heatmap, heatmap.size.height - 1)


async def test_page_one_says_its_title_once(make_app: Callable[..., TutorApp]) -> None:
    """The lesson card opens with the question: the page's own title above it repeated it."""
    lesson = shipped_lesson()
    first = lesson.pages[0]
    app = make_app(start_lesson=LESSON, start_page=first.number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        drawn = "\n".join(str(w.render()) for w in app.screen.query("#body Static"))
        assert drawn.count(first.title) == 1


async def test_no_gap_between_a_multiple_choice_and_its_submit_button(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with_kind("quiz"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        multiple = next(q for q in app.screen.query(QuizQuestion) if q.question.type == "multiple")
        answer = multiple.query_one("#answer")
        assert answer.size.height == len(multiple.query(Checkbox))  # one line per choice
        submit = multiple.query_one("#submit", Button)
        assert submit.virtual_region.y - answer.virtual_region.bottom <= 1  # its margin


async def test_the_summary_editors_have_a_frame(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with_kind("quiz", summary=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        for area in editor.query(TextArea):
            assert area.styles.border_top[0] not in ("", "none", "hidden"), area


async def test_the_focus_comes_back_with_the_page_after_a_window_too_small(
    make_app: Callable[..., TutorApp],
) -> None:
    """Page 8's training widget had the focus; after a window too small and back, → turned
    the page instead of stepping a checkpoint."""
    from tutor.tui.widgets.training import TrainingRun

    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        page = app.screen
        widget = page.query_one(TrainingRun)
        widget.focus()
        await settle(pilot)
        await pilot.resize_terminal(30, 10)
        await settle(pilot)
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert app.screen is page and app.focused is widget
        await pilot.press("right")
        await settle(pilot)
        assert app.screen is page
