"""The merge stepper on the Token lesson's page, by keyboard alone: ←/→ apply and undo one
merge, Home/End go to the bytes and to the tokenizer's own result; the learner's own text
starts a new walk; text over the limit is refused in a sentence."""

from __future__ import annotations

import re
from collections.abc import Callable

from textual.widgets import Input

from tests.tui.conftest import page_with
from tests.waits import settle, until
from tutor.core.merges import MAX_WALK_CHARS, merge_walk
from tutor.core.tokenize import get_scheme
from tutor.tui.app import TutorApp
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.merge_stepper import MergeStepper
from tutor.tui.widgets.token_strip import visible_piece

LESSON = "token"
SENTENCE = "小明把苹果给了小王"


def shown_ids(stepper: MergeStepper) -> list[int]:
    """The IDs in the stepper's reading of itself: `piece(id)` after the first line."""
    return [int(id) for id in re.findall(r"\((\d+)\)", stepper.plain_text().splitlines()[1])]


async def test_arrows_step_through_the_merges_and_end_on_the_tokenizers_ids(
    make_app: Callable[..., TutorApp],
) -> None:
    walk = merge_walk(SENTENCE)
    final = [token.id for token in get_scheme("byte-bpe-zh").encode(SENTENCE)]
    app = make_app(start_lesson=LESSON, start_page=page_with("merges", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        stepper = app.screen.query_one(MergeStepper)
        assert shown_ids(stepper) == walk.ids(0)
        assert "第 0 步" in stepper.plain_text()
        stepper.focus()
        await settle(pilot)
        keys = " ".join(f"{key} {said}" for key, said in app.screen.query_one(KeyBar)._shown or [])
        assert "←→ 合并一步" in keys
        await pilot.press("right")
        await settle(pilot)
        first = walk.merges[0]
        assert f"第 1/{len(walk.merges)} 步" in stepper.plain_text()
        assert f"新 ID {first.merged} = i + 257" in stepper.plain_text()
        assert shown_ids(stepper) == walk.ids(1)
        await pilot.press("end")
        await settle(pilot)
        assert shown_ids(stepper) == final
        await pilot.press("left")
        await settle(pilot)
        assert shown_ids(stepper) == walk.ids(len(walk.merges) - 1)
        await pilot.press("home")
        await settle(pilot)
        assert shown_ids(stepper) == walk.ids(0)
        assert app.screen.page.number == page_with(
            "merges", lesson_id=LESSON
        )  # the arrows never turned the page


async def test_the_learners_own_text_starts_a_new_walk_and_too_long_is_said(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("merges", lesson_id=LESSON))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        stepper = app.screen.query_one(MergeStepper)
        field = stepper.query_one("#text", Input)
        field.focus()
        field.value = ""
        await pilot.press(*"猫和狗")
        await settle(pilot)
        own = merge_walk("猫和狗")
        assert shown_ids(stepper) == own.ids(0)
        stepper.focus()
        await pilot.press("end")
        await settle(pilot)
        assert shown_ids(stepper) == [t.id for t in get_scheme("byte-bpe-zh").encode("猫和狗")]
        field.value = "猫" * (MAX_WALK_CHARS + 1)
        await until(pilot, lambda: "上限" in stepper.plain_text())
        said = stepper.plain_text()
        assert f"{MAX_WALK_CHARS + 1} 个字符" in said and f"上限是 {MAX_WALK_CHARS} 个" in said


def test_the_spaces_between_a_partial_characters_bytes_are_not_marked_as_text() -> None:
    """<E4 BA> is two bytes of one character, written with a space: not a space token."""
    assert visible_piece("<E4 BA>") == "<E4 BA>"
    assert visible_piece(" <E4 BA>a b\n") == "␣<E4 BA>a␣b↵"
    assert visible_piece(" ") == "␣"
