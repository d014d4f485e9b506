"""A widget that ran a thread worker is freed with its page, however the threads were used.

Why: Textual's thread worker sets `active_worker` in the context of the pool thread it runs
on, and a pool thread keeps its context between jobs; the worker holds the widget that
started it (and its work), so each pool thread kept the last widget it worked for, with its
page, until it next ran something. Under load, workers spread over more threads and the
training page's plot outlived the page (tests/tui/test_plots_let_go.py failed in CI)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

from textual.screen import Screen
from textual.widget import Widget

from tests.waits import settle, until
from tutor.tui.app import TutorApp


class _Working(Widget):
    """Does one piece of work on a pool thread, as the pages' widgets do."""

    def on_mount(self) -> None:
        self.run_worker(self._work, thread=True, group="let-go")

    def _work(self) -> int:
        return sum(range(1000))


async def test_a_widget_that_ran_a_thread_worker_is_freed_when_removed(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        working = _Working()
        await app.push_screen(Screen())
        await app.screen.mount(working)
        await settle(pilot)
        assert not [w for w in app.workers if w.group == "let-go"]  # finished and let go
        widget = weakref.ref(working)
        del working
        await app.pop_screen()  # as a page is taken down after a turn
        await settle(pilot)

        def freed() -> bool:
            gc.collect()
            return widget() is None

        await until(pilot, freed, "the widget that ran a thread worker freed", every=0.1)
