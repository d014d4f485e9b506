"""A page the tutor stops keeping is freed as soon as the new page is on screen, and the
full collections that free such pages never run in the middle of building one.

Why: a page's widgets hold each other in cycles, so only a full collection frees a page
left behind. Left to Python's own schedule, that collection (20-160 ms) fell in the middle
of a page turn every few pages and was the slowest turn of a walk (bench/keys.py).
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen
from tutor.tuning import FREEZE_AFTER_S, PYTHON_GC_THRESHOLD

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def turn_pages(pilot: Pilot[None], count: int) -> None:
    """n `count` times, each page settled, then a few more rounds of the app's loop: the
    collection that frees the pages left runs after the turn is drawn."""
    for _ in range(count):
        await pilot.press("n")
        await settle(pilot)
    for _ in range(20):
        await pilot.pause()


async def test_pages_left_behind_are_freed_after_the_turn(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app()
    full_on_pythons_schedule = []
    apps_own = []
    collect_pages_left = app._collect_pages_left

    def collecting() -> None:
        apps_own.append(True)
        collect_pages_left()
        apps_own.pop()

    app._collect_pages_left = collecting  # type: ignore[method-assign]

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2 and not apps_own:
            full_on_pythons_schedule.append(info)

    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.pause(FREEZE_AFTER_S + 0.2)  # startup objects frozen, the app's GC set
        await pilot.press("enter")
        await settle(pilot)
        pages: list[weakref.ref[PageScreen]] = []
        gc.callbacks.append(note)
        try:
            for _ in range(6):
                screen = app.screen
                assert isinstance(screen, PageScreen)
                pages.append(weakref.ref(screen))
                del screen
                await pilot.press("n")
                await settle(pilot)
            for _ in range(20):  # the collection runs after the frame: a few more turns
                await pilot.pause()
        finally:
            gc.callbacks.remove(note)
        # pages 1-6 were left for page 7: page 6 is kept (n then p is instant); 1-5 are
        # gone, 5 with this turn's own collection (not the next turn's: a callback the
        # page queued as it left still held it when the collection ran)
        freed = [page() is None for page in pages]
        assert freed == [True] * 5 + [False]
        # every full collection was the app's own, after a turn: none fell inside one
        assert full_on_pythons_schedule == []
    assert gc.get_threshold() == PYTHON_GC_THRESHOLD  # the app's schedule ended with it


async def test_pages_opened_within_the_first_second_are_freed_once_left(
    make_app: Callable[..., TutorApp],
) -> None:
    """The app freezes what it made before its first page (tutor.tuning): a learner who
    opened pages within a second of the start (or started on a page) had them frozen
    too, and taken down they were never freed."""
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        first_two = [weakref.ref(screen) for screen in app._kept]
        assert len(first_two) == 2
        await pilot.pause(FREEZE_AFTER_S + 0.2)  # the freeze's second, two pages open
        assert gc.get_freeze_count() > 0
        await turn_pages(pilot, 3)  # pages 3-5: 1 and 2 are taken down
        assert [page() is None for page in first_two] == [True, True]


async def test_a_learner_who_starts_on_a_page_waits_for_no_collection_and_has_it_freed(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tutor lesson ID`: what the app made is frozen before the page is built, without the
    collection (20 ms of the start, for about a thousand objects of garbage)."""
    collected: list[object] = []
    collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *args: collected.append(args) or collect(*args))
    app = make_app(start_lesson="embedding", start_page=2)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert collected == []
        assert gc.get_freeze_count() > 0
        first = weakref.ref(app.screen)
        await turn_pages(pilot, 3)
        assert first() is None
