"""Under NO_COLOR every state is told by a glyph or a word, not by a grey level."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Checkbox, RadioButton

from tests.tui.conftest import LESSON, page_with
from tests.tui.test_quiz_summary import question_of, quiz_page
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.widgets.heatmap import Heatmap


async def test_a_picked_option_is_drawn_with_another_glyph_than_the_others(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """▐●▌ and ▐X▌ were drawn for picked and unpicked options alike, told apart by colour."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        for kind, kind_of_button in (("single", RadioButton), ("multiple", Checkbox)):
            buttons = list(question_of(app, kind).query(kind_of_button))
            buttons[1].value = True
            await settle(pilot)
            drawn = [str(button.render()).replace(str(button.label), "") for button in buttons]
            assert drawn[1] != drawn[0] and len(set(drawn)) == 2, drawn


async def test_the_plain_text_view_says_which_options_are_picked(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        single, multiple = question_of(app, "single"), question_of(app, "multiple")
        single.query(RadioButton)[2].value = True
        for n in (0, 4):
            multiple.query(Checkbox)[n].value = True
        await settle(pilot)
        options = [line for line in single.plain_text().splitlines() if line.startswith("  ")]
        assert [line.split(")")[1].split()[0] for line in options] == [
            "○",
            "○",
            "●",
            "○",
        ]
        options = [line for line in multiple.plain_text().splitlines() if line.startswith("  ")]
        assert [line.split(")")[1].split()[0] for line in options] == ["☑", "☐", "☐", "☐", "☑"]


@pytest.mark.parametrize(("no_colour", "numbers"), [(True, True), (False, False)])
async def test_the_heatmap_starts_with_numbers_under_no_color(
    make_app: Callable[..., TutorApp],
    monkeypatch: pytest.MonkeyPatch,
    no_colour: bool,
    numbers: bool,
) -> None:
    if no_colour:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(Heatmap).numbers is numbers
