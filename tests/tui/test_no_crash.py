"""Anywhere a learner can go, no key crashes the tutor: widgets that finish their work
after their page was replaced must not touch it."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver

from tests.tui.conftest import LESSON, settle
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen


def type_ahead(app: App, *keys: str) -> None:
    """Keys as a terminal delivers a quick typist's: all queued before the first is handled
    (Pilot's `press` waits for the app to go idle after each key)."""
    for key in keys:
        character = key if len(key) == 1 else {"tab": "\t", "enter": "\r"}.get(key)
        app.post_message(events.Key(key, character))


class DrawingDriver(HeadlessDriver):
    """Headless input, but every frame is rendered as for a terminal (and dropped): the
    order of refreshes and the callbacks that wait for them is the terminal's."""

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        pass


async def test_leaving_a_page_while_a_fact_strip_has_focus(
    make_app: Callable[..., TutorApp],
) -> None:
    """Page 2, Tab x4 puts the focus on a fact strip; n replaced the page under it."""
    app = make_app(start_lesson=LESSON, start_page=2)
    app.driver_class = DrawingDriver
    async with app.run_test(size=(80, 24), headless=False) as pilot:
        await pilot.pause()
        type_ahead(app, "tab", "tab", "tab", "tab", "n")
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.page.number == 3
    assert app.return_code in (0, None)


async def test_a_fact_strip_handler_that_runs_after_its_page_left(
    make_app: Callable[..., TutorApp],
) -> None:
    """With type-ahead (page 2, Tab×4 n in one read) the strip's focus handler can run
    after `n` replaced its page; its redraw then waits for the new page's refresh, when
    its own parts are gone. Here that redraw runs late on purpose."""
    from tutor.tui.widgets.facts import FactStrip

    app = make_app(start_lesson=LESSON, start_page=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(FactStrip)
        strip.focus()
        await pilot.press("n")
        await settle(pilot)
        assert not strip.is_attached
        strip.redraw()  # what its focus or blur handler schedules
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.page.number == 3
