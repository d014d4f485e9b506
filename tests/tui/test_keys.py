"""Keys do what a learner expects: esc leaves a text field, quick page turns land where
they should without drawing every page on the way, Tab starts at what a learner uses,
and a burst of arrows scrolls as many lines as pressed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from tests.tui.conftest import LESSON, page_with, shipped_lesson
from tests.tui.test_no_crash import type_ahead
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.keybar import KeyBar, typing_into
from tutor.tui.widgets.token_strip import TokenStrip

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def test_esc_in_a_text_field_leaves_the_field_not_the_page(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        page = app.screen
        field = page.query_one(TokenStrip).query_one("#text", Input)
        field.focus()
        await settle(pilot)
        keys = str(page.query_one(KeyBar).render())
        assert "离开输入框" in keys and "下一页" not in keys  # n and arrows type here
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is page
        assert app.focused is page.query_one("#body")
        assert "下一页" in str(page.query_one(KeyBar).render())
        await pilot.press("escape")  # from the page itself, esc still goes home
        await settle(pilot)
        assert not isinstance(app.screen, PageScreen)


async def test_quick_page_turns_land_on_the_last_page_without_drawing_each(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 presses of n typed ahead from page 1: the lesson's last page, and only a few
    pages built on the way (each build was a whole page of widgets)."""
    lesson = shipped_lesson()
    built: list[int] = []
    compose = PageScreen.compose

    def counting(screen: PageScreen):
        built.append(screen.page.number)
        return compose(screen)

    monkeypatch.setattr(PageScreen, "compose", counting)
    app = make_app(start_lesson=LESSON, start_page=lesson.pages[0].number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        built.clear()
        type_ahead(app, *["n"] * 30)
        await settle(pilot)
        assert isinstance(app.screen, PageScreen)
        assert app.screen.page.number == lesson.pages[-1].number
        assert len(built) <= 3, built


async def test_tab_starts_at_the_token_field_and_keeps_the_example(
    make_app: Callable[..., TutorApp],
) -> None:
    """Page 2: the first Tab reaches the field a learner types in (not the pipeline
    picture), and reaching it does not select the example sentence for replacement."""
    app = make_app(start_lesson=LESSON, start_page=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        await settle(pilot)
        field = app.screen.query_one(TokenStrip).query_one("#text", Input)
        assert app.focused is field
        example = field.value
        await pilot.press("x")
        await settle(pilot)
        assert field.value == example + "x"


@pytest.mark.parametrize("number", [page.number for page in shipped_lesson().pages])
async def test_every_focus_stop_is_visible(make_app: Callable[..., TutorApp], number: int) -> None:
    app = make_app(start_lesson=LESSON, start_page=number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for widget in app.screen.focus_chain:
            assert widget.display and widget.visible and widget.size.area > 0, widget


async def test_a_burst_of_arrows_scrolls_as_many_lines(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#body")
        assert app.focused is body and body.max_scroll_y > 10
        type_ahead(app, *["down"] * 7)
        await settle(pilot)
        assert body.scroll_y == 7
        type_ahead(app, *["up"] * 3)
        await settle(pilot)
        assert body.scroll_y == 4


async def test_a_page_turned_back_to_is_the_same_page_and_follows_the_theme(
    make_app: Callable[..., TutorApp],
) -> None:
    """Pages just seen are kept (turning back shows them at once, with what was typed);
    a kept page still takes a theme switched while it was away."""
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        page = app.screen
        header = page.query_one("#page-header")
        before = header.styles.background
        field = page.query_one(TokenStrip).query_one("#text", Input)
        field.value = "猫和狗"
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("t", "p")
        await settle(pilot)
        assert app.screen is page and field.value == "猫和狗"
        assert header.styles.background != before
        visits = app.ctx.store.visited_pages(LESSON)
        assert page_with("tokens") in visits


@pytest.mark.parametrize("gap", [0.0, 0.005, 0.02])
async def test_every_page_turn_typed_while_a_page_is_built_counts(
    make_app: Callable[..., TutorApp], gap: float
) -> None:
    """n typed one by one as a learner types (a few ms apart, each arriving while the page
    before is still being built): each press is one page on, none is lost to the page being
    replaced."""
    lesson = shipped_lesson()
    app = make_app(start_lesson=LESSON, start_page=lesson.pages[0].number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(10):
            type_ahead(app, "n")
            await pilot.pause(gap)  # the learner's pace, not a wait for the app
        await settle(pilot)
        assert app.screen.page.number == lesson.pages[10].number


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_key_line_is_one_line_at_80_columns_on_every_page(
    make_app: Callable[..., TutorApp], lang: str
) -> None:
    """Whatever has the focus (one widget of each kind on each page), the keys fit one
    line: less important keys give way, help (?) lists them all."""
    app = make_app(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for page in shipped_lesson().pages:
            app.open_page(LESSON, page.number)
            await settle(pilot)
            screen = app.screen
            kinds = {type(widget): widget for widget in reversed(screen.focus_chain)}
            for widget in [screen.query_one("#body"), *kinds.values()]:
                widget.focus()
                await settle(pilot)
                key_line = screen.query_one(KeyBar)
                shown = str(key_line.render())
                assert key_line.size.height == 1, (page.number, type(widget).__name__, shown)
                if not typing_into(widget):  # in a field ? types; else help is always there
                    assert ("帮助" if lang == "zh" else "Help") in shown


async def test_keys_typed_right_after_tab_land_in_the_field_tab_reached(
    make_app: Callable[..., TutorApp],
) -> None:
    """Tab and the text after it in one read (a quick typist; SSH delivers keys in
    batches): Textual forwarded the text to the widget Tab was leaving, before the Tab
    binding moved the focus, and it was lost. Also from one field to the next."""
    from tutor.tui.widgets.rows import RowsDemo

    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        type_ahead(app, "tab", "a", "b", "c")
        await settle(pilot)
        field = app.screen.query(RowsDemo).first().query_one("#own", Input)
        assert app.focused is field and field.value == "abc"

    app = make_app(start_lesson=LESSON, start_page=page_with("analogy"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen.query_one("#a", Input)
        first.focus()
        await settle(pilot)
        first.value = ""
        type_ahead(app, "x", "tab", "y")
        await settle(pilot)
        assert first.value == "x"
        assert app.screen.query_one("#b", Input).value.endswith("y")


@pytest.mark.parametrize("number", [page.number for page in shipped_lesson().pages])
async def test_tab_reaches_the_pages_widgets_before_the_fact_chips(
    make_app: Callable[..., TutorApp], number: int
) -> None:
    """The chips sit by the prose they back, above the widget (pages 3, 6, 7, 8): Tab
    still reaches what the learner uses first, then the sources, each in reading order."""
    from tutor.tui.widgets.facts import FactStrip

    app = make_app(start_lesson=LESSON, start_page=number)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        chain = app.screen.focus_chain[1:]  # after the prose
        chips = [stop for stop in chain if isinstance(stop, FactStrip)]
        assert chain[len(chain) - len(chips) :] == chips
        in_reading_order = sorted(chips, key=lambda chip: chip.virtual_region.y)
        assert chips == in_reading_order


async def test_help_lists_home_and_end_once(make_app: Callable[..., TutorApp]) -> None:
    """The help names a shown key and not again the hidden sibling it stands for: the
    training run's and the merge stepper's Home/End, never "Home/End/end"."""
    from tutor.tui.screens.help import HelpScreen, key_lines
    from tutor.tui.widgets.merge_stepper import MergeStepper
    from tutor.tui.widgets.training import TrainingRun

    for lesson, number, kind, ends in (
        (LESSON, page_with("training"), TrainingRun, "key.ends"),
        ("token", page_with("merges", lesson_id="token"), MergeStepper, "key.merge_ends"),
    ):
        app = make_app(start_lesson=lesson, start_page=number)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.screen.query_one(kind).focus()
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            lines = dict((text, keys) for keys, text in key_lines(app.screen.underneath))
            assert lines[app.ctx.t(ends)] == "Home/End"
            assert "Home/End/end" not in str(app.screen.query_one("#help-text").render())
