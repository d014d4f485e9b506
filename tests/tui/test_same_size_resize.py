"""A resize to the size a screen is laid out at lays nothing out again.

Why: Textual hands a screen a Resize three times as it first shows (the app's first size,
the terminal's report of the same size, and the screen's own, from its first layout), and
each laid the whole screen out and rendered every widget again: on a served learner's
first screen that was work ten learners connecting at once each waited behind
(bench/ssh.py --first-screens). A page turn also laid its page out twice."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.waits import settle
from tutor.tui.app import TutorApp


@pytest.mark.parametrize("start", [{}, {"start_lesson": "embedding", "start_page": 3}])
async def test_a_resize_to_the_same_size_lays_nothing_out(
    make_app: Callable[..., TutorApp], layouts: list[object], start: dict[str, object]
) -> None:
    app = make_app(**start)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        layouts.clear()
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert app.screen not in layouts
        await pilot.resize_terminal(100, 30)  # a new size is laid out
        await settle(pilot)
        assert app.screen in layouts
        assert app.screen.size == (100, 30)
