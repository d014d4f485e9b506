"""Notices a learner can read: one per message, never over the page header or the keys."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets._toast import Toast

from tests.tui.conftest import LESSON, shipped_lesson
from tests.waits import settle
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.tui.app import TutorApp
from tutor.tui.widgets.keybar import KeyBar


def shown_toasts(app: TutorApp) -> list[Toast]:
    return list(app.screen.query(Toast))


async def test_pressing_past_the_last_page_shows_the_notice_once(
    make_app: Callable[..., TutorApp],
) -> None:
    """30 presses of n from page 1 once left 15 copies of "已经是最后一页" over the page
    (on the course's last lesson: on any other, n on the last page opens the next one)."""
    last = load_lessons(content_dir()).lessons[-1]
    pages = [page.number for page in last.pages]
    app = make_app(start_lesson=last.id, start_page=pages[0])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        for _ in range(len(pages) + 14):
            await pilot.press("n")
            await pilot.pause()
        await settle(pilot)
        assert app.screen.page.number == pages[-1]
        toasts = shown_toasts(app)
        assert [str(toast._notification.message) for toast in toasts] == [
            "已经是最后一页。按 h 回到课程列表。"
        ]


async def test_notices_never_cover_the_header_or_the_key_line(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=shipped_lesson().pages[-1].number)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        for n in range(12):  # as many different notices as a learner can raise in a row
            app.notify(f"第 {n} 条提示：" + "一句很长的话，" * 12)
        await settle(pilot)
        header = app.screen.query_one("#page-header")
        keys = app.screen.query_one(KeyBar)
        toasts = shown_toasts(app)
        assert 1 <= len(toasts) <= 3
        for widget, row in ((header, 0), (keys, 23)):  # what the learner sees there
            assert {app.screen.get_widget_at(x, row)[0] for x in range(80)} == {widget}
        assert "第 11 条提示" in str(toasts[-1]._notification.message)  # the newest is shown
