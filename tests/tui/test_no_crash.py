"""Anywhere a learner can go, no key crashes the tutor: widgets that finish their work
after their page was replaced must not touch it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from itertools import chain

import pytest
from textual import events
from textual.app import App
from textual.containers import Vertical
from textual.drivers.headless_driver import HeadlessDriver
from textual.widget import Widget

from tests.tui.conftest import LESSON, shipped_lesson
from tests.waits import settle
from tutor.tui import app as app_module
from tutor.tui.app import TutorApp, screen_class
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.keybar import KeyBar

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

PAGES = [page.number for page in shipped_lesson().pages]


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


@pytest.fixture
def pages_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the shown page is kept, so each turn takes the last page down (as every turn
    did before pages were kept): the races of a page being removed are exercised."""
    monkeypatch.setattr(app_module, "KEPT_PAGES", 1)


async def test_a_fact_strip_handler_that_runs_after_its_page_left(
    make_app: Callable[..., TutorApp], pages_not_kept: None
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


async def test_a_tiny_terminal_asks_to_be_enlarged_and_recovers(
    make_app: Callable[..., TutorApp],
) -> None:
    for size in [(1, 1), (5, 3)]:
        app = make_app(start_lesson=LESSON, start_page=2)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            key_line = app.screen.query_one(KeyBar)
            assert "窗口太小：请放大到至少 40×12" in str(key_line.render())
            assert not app.screen.query_one("#body").display
            await pilot.press("n", "question_mark", "escape")  # keys still work, and draw
            await settle(pilot)
            await pilot.resize_terminal(80, 24)
            await settle(pilot)
            assert isinstance(app.screen, PageScreen) and app.screen.page.number == 3
            assert app.screen.query_one("#body").display
            assert "下一页" in str(app.screen.query_one(KeyBar).render())


async def test_a_window_shrunk_below_the_minimum_and_grown_again(
    make_app: Callable[..., TutorApp],
) -> None:
    """The lesson list under the page is laid out too: at 5 columns its options had none
    to wrap in (`range() arg 3 must not be zero`)."""
    app = make_app(start_lesson=LESSON, start_page=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(5, 3)
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert app.is_running and app._exception is None
        assert isinstance(app.screen, PageScreen) and app.screen.page.number == 2


LEAVING_KEYS = ["n", "p", "h", "question_mark", "ctrl+p", "escape"]


@pytest.mark.parametrize("number", PAGES, ids=lambda n: f"page{n:02d}")
async def test_every_focus_stop_of_every_page_then_every_leaving_key(
    make_app: Callable[..., TutorApp], number: int, pages_not_kept: None
) -> None:
    """Tab through every focus stop of the page, then a key that leaves or covers it, all
    typed ahead as a quick learner does (so handlers land after the page is gone): for
    each such key, nothing raises and the app runs on."""
    app = make_app(start_lesson=LESSON, start_page=number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        stops = len(app.screen.focus_chain)
        assert app.screen.focus_chain[0].id == "body"  # the prose scrolls by keys too
        for key in LEAVING_KEYS:
            app.open_page(LESSON, number)
            await pilot.pause()
            type_ahead(app, *["tab"] * (stops - 1), key)
            await settle(pilot)
            assert app.is_running and app._exception is None, key


MOUNT_WINDOW = 3  # loop turns tried between a widget's mount and its removal (0 crashed)


def fresh_widgets(page_number: int) -> list[Widget]:
    """The page's own widgets, new, as its screen composes them (not yet mounted)."""
    lesson = shipped_lesson()
    page = next(page for page in lesson.pages if page.number == page_number)
    screen = screen_class(page.kind)(lesson, page)
    return list(
        chain(screen.compose_before_body(), screen.compose_body(), screen.compose_after_body())
    )


@pytest.mark.parametrize("number", PAGES, ids=lambda n: f"page{n:02d}")
async def test_a_widget_taken_down_before_its_mount_handler_runs(
    make_app: Callable[..., TutorApp], number: int
) -> None:
    """Two saves in a row in the preview open the page twice: the first build is taken down
    while its widgets' mount handlers are still queued, and those found their own parts
    already removed (`No nodes match '#count' on TokenStrip`), and the page's typed text
    was read from parts not mounted yet. Every widget of every page, read and removed 0,
    1, 2 loop turns after it was mounted: nothing raises."""
    app = make_app(start_lesson=LESSON, start_page=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#body")
        for nth in range(len(fresh_widgets(number))):
            for turns in range(MOUNT_WINDOW):
                widget = fresh_widgets(number)[nth]
                box = Vertical()
                await body.mount(box)
                box.mount(widget)
                for _ in range(turns):
                    await asyncio.sleep(0)
                app.screen.typed.now(100)  # what a page taken down keeps, read meanwhile
                await box.remove()
                assert app._exception is None, (type(widget).__name__, turns)
        await settle(pilot)
        assert app.is_running and app._exception is None
