"""A plot is freed with the page that showed it: the training page's run (every
checkpoint's matrix, neighbours and map) is not carried through the rest of the course.

Why: textual-plotext subscribes each plot to the app's theme signal with a callback that
holds the plot, and the signal keeps its subscribers until the next theme change, so
every plot ever shown stayed alive with what it drew (docs/performance.md, the walk
through all three lessons)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

from tests.waits import settle, until
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.training import RunView, StepPlot
from tutor.tuning import FREEZE_AFTER_S


async def test_a_plot_is_freed_with_the_page_that_showed_it(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson="embedding", start_page=7)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.pause(FREEZE_AFTER_S + 0.2)  # what the first screen made lives on, frozen
        await pilot.press("n")  # the training page
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.page.number == 8
        plots = list(app.screen.query(StepPlot))
        assert len(plots) == 1
        plot = weakref.ref(plots[0])
        shown = plots[0].run
        assert isinstance(shown, RunView)
        matrix = weakref.ref(shown.views[0].matrix)  # one checkpoint's similarities
        del shown
        del plots
        for _ in range(3):  # beyond the pages the app keeps (the one shown, the one before)
            await pilot.press("n")
            await settle(pilot)
        assert app.screen.page.number == 11

        def freed() -> bool:  # the page is taken down a few frames after the turn
            gc.collect()
            return plot() is None

        await until(pilot, freed, "the training page's plot freed", every=0.1)
        assert matrix() is None
        assert not [n for n in app.theme_changed_signal._subscriptions if isinstance(n, StepPlot)]
