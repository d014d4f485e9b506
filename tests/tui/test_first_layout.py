"""A screen that first shows is laid out and drawn once, unless a scrollbar came.

Why: Textual laid every screen out and drew it again right after its first frame, for
nothing (its widgets' new sizes, and its notice rack hidden once more, asked for it, and
it redrew the whole screen as it resumed): 3-4 ms of CPU on a served learner's first
screen, against about 23 for the first frame (bench/ssh.py --first-screens;
tutor/tui/screens/sizing.py). What that one layout arranged must be what another layout
would arrange: that is the guard on dropping the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.screen import Screen

from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.screens.home import HomeScreen


def _arranged(screen: Screen[Any]) -> list[tuple[str, object, object]]:
    return [(repr(w), w.region, w.virtual_size) for w in screen.walk_children(with_self=True)]


async def test_the_course_map_is_laid_out_and_drawn_once(
    make_app: Callable[..., TutorApp], layouts: list[object]
) -> None:
    app = make_app()
    frames: list[object] = []
    draw = app._display

    def counted(screen: Screen[Any], renderable: Any) -> None:
        frames.append(screen)
        draw(screen, renderable)

    app._display = counted  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert layouts.count(app.screen) == 1
        assert frames.count(app.screen) == 1


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize(
    "start",
    [
        {},
        {"start_lesson": "token", "start_page": 1},  # a scrollbar comes with the first layout
        {"start_lesson": "token", "start_page": 2},
        {"start_lesson": "embedding", "start_page": 1},
        {"start_lesson": "embedding", "start_page": 8},
    ],
)
async def test_another_layout_would_arrange_the_screen_as_it_is(
    make_app: Callable[..., TutorApp], size: tuple[int, int], start: dict[str, object]
) -> None:
    app = make_app(**start)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        arranged = _arranged(app.screen)
        app.screen.refresh(layout=True)
        await settle(pilot)
        assert _arranged(app.screen) == arranged
