"""What a lesson loads for its demonstrations is let go when the learner leaves the lesson:
the Token lesson's tokenizers and the byte-BPE merge table are not carried through the
rest of the course (docs/performance.md, the walk through all three lessons)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

from tests.waits import settle
from tutor.core import merges, tokenize
from tutor.core.names import PROJECT
from tutor.core.paths import tokenizers_dir
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen


async def test_leaving_the_token_lesson_lets_its_tokenizers_and_merge_table_go(
    make_app: Callable[..., TutorApp],
) -> None:
    tokenize.release_schemes()  # as a fresh process: nothing an earlier test loaded
    merges.release_rules()
    app = make_app(start_lesson="token", start_page=3)  # char first, then the merge stepper
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert (app.screen.lesson.id, app.screen.page.number) == ("token", 4)
        assert {"char", "byte-bpe-zh"} <= tokenize.held_schemes()
        assert merges.rules_held() == 1
        char = weakref.ref(tokenize.get_scheme("char"))
        # the very tokenizer the char scheme uses (files of the same bytes share one)
        char_tokenizer = weakref.ref(tokenize.shared_tokenizer(tokenizers_dir() / "char.json"))
        app.open_lesson("embedding", 1)
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.lesson.id == "embedding"
        assert tokenize.held_schemes() <= {PROJECT}
        assert merges.rules_held() == 0
        gc.collect()
        assert char() is None and char_tokenizer() is None  # nothing else keeps them


async def test_turning_pages_inside_a_lesson_keeps_what_it_loaded(
    make_app: Callable[..., TutorApp],
) -> None:
    tokenize.release_schemes()
    merges.release_rules()
    app = make_app(start_lesson="token", start_page=3)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert app.screen.page.number == 3
        assert {"char", "byte-bpe-zh"} <= tokenize.held_schemes()
        assert merges.rules_held() == 1
