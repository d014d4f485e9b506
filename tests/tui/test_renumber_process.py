"""Page 10's renumbering runs in a child process: the learner's process never holds the
model's forward pass (its weights' pages, the renumbered tables and tokenizer, ~27 MB)."""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest

from tests.tui.conftest import LESSON, page_with
from tests.waits import settle
from tutor.core.forward import Forward
from tutor.tui.app import TutorApp
from tutor.tui.widgets.renumber import RenumberDemo

pytestmark = pytest.mark.slow  # a child process computes the figures


async def test_the_figures_show_without_a_forward_pass_in_the_app_s_process(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("renumber"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(RenumberDemo)
        assert demo.base is not None and demo.shown is not None and demo.loss is not None
        gc.unfreeze()  # the app freezes what it has loaded; look at every object
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, Forward)]
        assert alive == []
