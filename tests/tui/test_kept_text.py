"""What the learner typed into a page's fields is still there when they come back to it,
even after the page's screen was taken down (the app keeps only the last KEPT_PAGES)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from tests.tui.conftest import LESSON, page_with
from tests.waits import settle
from tutor.core.model import open_model
from tutor.core.similarity import analogy
from tutor.core.tokenize import get_scheme
from tutor.tui import app as app_module
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.analogy import AnalogyDemo
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.lookup import LookupDemo
from tutor.tui.widgets.neighbours import NeighboursPanel
from tutor.tui.widgets.path import RepresentationPath
from tutor.tui.widgets.rows import RowsDemo
from tutor.tui.widgets.token_strip import Answer, TokenStrip

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def type_into(pilot, field: Input, text: str) -> None:
    field.focus()
    await settle(pilot)
    field.value = ""
    await pilot.press(*text, "escape")  # esc leaves the field: n and p turn pages again
    await settle(pilot)


async def away_and_back(pilot, app: TutorApp, steps: int = 2) -> PageScreen:
    """n `steps` times, then p as many: returns the page left, taken down meanwhile."""
    left = app.screen
    assert isinstance(left, PageScreen)
    for _ in range(steps):
        await pilot.press("n")
        await settle(pilot)
    assert not app.is_screen_installed(left)  # taken down: coming back builds it again
    for _ in range(steps):
        await pilot.press("p")
        await settle(pilot)
    assert isinstance(app.screen, PageScreen)
    assert app.screen.page.number == left.page.number
    assert app.screen is not left
    return left


async def test_typed_tokens_text_survives_the_page_being_taken_down(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[int, str | None]] = []  # (strip, the text of each answer it showed)
    answer = TokenStrip._answer

    def recording(self: TokenStrip, given: Answer) -> None:
        shown.append((id(self), given.result and given.result.text))
        answer(self, given)

    monkeypatch.setattr(TokenStrip, "_answer", recording)
    typed = "我爱北京天安门"
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        await type_into(pilot, strip.query_one("#text", Input), typed)
        assert strip.result.text == typed

        await away_and_back(pilot, app)
        again = app.screen.query_one(TokenStrip)
        assert again is not strip
        assert again.query_one("#text", Input).value == typed
        assert again.result.text == typed
        assert again.result.tokens == get_scheme(again.scheme).encode(typed)
        # the example's answer was never shown on the page built again
        assert [text for strip_id, text in shown if strip_id == id(again)] == [typed]


async def test_typed_analogy_and_neighbour_fields_survive(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("analogy"))
    async with app.run_test() as pilot:
        await settle(pilot)
        demo = app.screen.query(AnalogyDemo).first()
        config = demo.config
        await type_into(pilot, demo.query_one("#a", Input), "女人")
        await type_into(pilot, app.screen.query_one(NeighboursPanel).query_one("#other"), "狗")

        await away_and_back(pilot, app)
        again = app.screen.query(AnalogyDemo).first()
        assert [again.query_one(f"#{name}", Input).value for name in "abc"] == [
            "女人",
            config.b,
            config.c,
        ]
        assert again.terms == ("女人", config.b, config.c)
        expected = analogy(open_model(), "女人", config.b, config.c, "after", config.k)
        assert again.found == expected
        other = app.screen.query_one(NeighboursPanel).query_one("#other", Input)
        assert other.value == "狗"
        second = app.screen.query(AnalogyDemo).last()  # untouched: its example stands
        assert second.terms == (second.config.a, second.config.b, second.config.c)


@pytest.mark.parametrize("limit", ["TYPED_PAGES", "TYPED_CHARS"])
async def test_typed_text_is_kept_for_a_bounded_number_of_pages(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    """Past TYPED_PAGES pages, or TYPED_CHARS characters in all, the page typed into
    longest ago shows its example again; a value is kept only up to the longest text a
    field takes."""
    monkeypatch.setattr(app_module, "LONGEST_TYPED", 5)
    monkeypatch.setattr(app_module, limit, {"TYPED_PAGES": 1, "TYPED_CHARS": 5}[limit])
    tokens, neighbours = page_with("tokens"), page_with("neighbours")
    app = make_app(start_lesson=LESSON, start_page=tokens)
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        await type_into(pilot, strip.query_one("#text", Input), "我爱北京天安门")
        await away_and_back(pilot, app)
        assert app.screen.query_one(TokenStrip).text == "我爱北京天"

        app.open_page(LESSON, neighbours)
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        await type_into(pilot, panel.query_one("#other", Input), "狗")
        await away_and_back(pilot, app)  # the neighbours page's text pushed out the tokens'
        assert app.screen.query_one(NeighboursPanel).query_one("#other", Input).value == "狗"
        app.open_page(LESSON, tokens)
        await settle(pilot)
        assert app.screen.query_one(TokenStrip).text == strip.config.text


async def choose(pilot, bar: ChoiceBar, value: str) -> None:
    """Right arrow on the bar until `value` is chosen, as a learner does."""
    bar.focus()
    while bar.value != value:
        await pilot.press("right")
    bar.screen.query_one("#body").focus()  # n and p turn pages again
    await settle(pilot)


async def test_a_chosen_scheme_survives_with_the_typed_text(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        other = strip.config.schemes[-1]
        await choose(pilot, strip.query_one("#scheme", ChoiceBar), other)
        assert strip.result.scheme == other

        await away_and_back(pilot, app)
        again = app.screen.query_one(TokenStrip)
        assert again is not strip
        assert again.scheme == other and again.result.scheme == other


async def test_the_neighbours_asked_for_are_shown_again(
    make_app: Callable[..., TutorApp],
) -> None:
    """A token picked on the bar, then one typed and entered: the page built again shows
    the neighbours of the typed one, with the bar where it was."""
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        picked = panel.config.tokens[1]
        await choose(pilot, panel.query_one("#choice", ChoiceBar), picked)
        assert panel.token == picked
        field = panel.query_one("#other", Input)
        field.focus()
        await pilot.press(*"狗", "enter", "escape")
        await settle(pilot)
        assert panel.token == "狗"

        await away_and_back(pilot, app)
        again = app.screen.query_one(NeighboursPanel)
        assert again is not panel
        assert again.query_one("#choice", ChoiceBar).value == picked
        assert again.token == "狗"
        assert again.answers == panel.answers


async def test_sentences_added_to_the_rows_table_are_there_again(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test() as pilot:
        await settle(pilot)
        rows = app.screen.query_one(RowsDemo)
        field = rows.query_one("#own", Input)
        field.focus()
        await pilot.press(*"我喜欢香蕉", "enter", "escape")
        await settle(pilot)
        assert rows.sentences[-1] == "我喜欢香蕉"

        await away_and_back(pilot, app)
        again = app.screen.query_one(RowsDemo)
        assert again is not rows
        assert again.sentences == rows.sentences and again.rows == rows.rows


async def test_the_stage_and_scale_chosen_are_there_again(
    make_app: Callable[..., TutorApp],
) -> None:
    """The analogy's training stage, the representation path's stage and the lookup's
    scale, each moved off its first option."""
    chosen = [
        (AnalogyDemo, "#stage", "before"),
        (RepresentationPath, "#stages", None),  # its second stage
        (LookupDemo, "#scale", "real"),
    ]
    for kind, bar_id, value in chosen:
        name = {AnalogyDemo: "analogy", RepresentationPath: "path", LookupDemo: "lookup"}[kind]
        app = make_app(start_lesson=LESSON, start_page=page_with(name))
        async with app.run_test() as pilot:
            await settle(pilot)
            widget = app.screen.query(kind).first()
            bar = widget.query_one(bar_id, ChoiceBar)
            value = value or bar.values[1]
            await choose(pilot, bar, value)

            await away_and_back(pilot, app)
            again = app.screen.query(kind).first()
            assert again is not widget
            assert again.query_one(bar_id, ChoiceBar).value == value, name
            if kind is AnalogyDemo:
                assert again.stage == "before"
            elif kind is RepresentationPath:
                assert again.position == 1
            else:
                assert again.real_scale


async def test_the_heatmaps_stage_view_and_cursor_are_there_again(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test() as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        first_stage = heatmap.stage
        heatmap.focus()
        await pilot.press("s", "v", "down", "down", "right")
        await settle(pilot)
        view = (heatmap.stage, heatmap.numbers, heatmap.cursor)
        assert view == ({"before": "after", "after": "before"}[first_stage], True, (2, 2))
        app.screen.query_one("#body").focus()

        await away_and_back(pilot, app)
        again = app.screen.query_one(Heatmap)
        assert again is not heatmap
        assert (again.stage, again.numbers, again.cursor) == view
        assert (again.matrix == heatmap.matrix).all()
