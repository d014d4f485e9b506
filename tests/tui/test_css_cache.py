"""The tutor's stylesheets are parsed once per process and theme, not once per app.

Why: a served session is a fork of a template that has already drawn a first screen; each
new app parsed every widget's CSS again (about a tenth of a session's start-up CPU).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import textual.css.parse
import textual.css.stylesheet
from textual.app import App
from textual.design import ColorSystem

from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.widgets.lesson_list import LessonList


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    parse = textual.css.parse.parse

    def counting(scope, css, read_from, *args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(str(read_from))
        return parse(scope, css, read_from, *args, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counting)
    return parsed


def count_colour_systems(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time a theme's colours are worked out into Textual's CSS variables."""
    generated: list[str] = []
    generate = ColorSystem.generate

    def counting(self: ColorSystem) -> dict[str, str]:
        generated.append(str(self.primary))
        return generate(self)

    monkeypatch.setattr(ColorSystem, "generate", counting)
    return generated


async def background(app: TutorApp) -> str:
    return str(app.screen.query_one(LessonList).styles.background)


async def first_screen_background(app: TutorApp, theme: str = "textual-dark") -> str:
    """Run the app to its first screen in `theme`; the lesson list's background there."""
    async with app.run_test() as pilot:
        app.theme = theme
        await settle(pilot)
        return await background(app)


async def test_a_second_app_parses_no_css(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    first_background = await first_screen_background(make_app())
    parsed = count_parses(monkeypatch)
    assert await first_screen_background(make_app()) == first_background
    assert parsed == []


async def test_a_second_app_works_out_no_theme_colours(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A theme's ~150 CSS variables, derived from its few colours, are worked out once per
    process and theme (in a served session's template, before the fork), and are what
    Textual itself works out."""
    first_background = await first_screen_background(make_app())
    generated = count_colour_systems(monkeypatch)
    second = make_app()
    assert await first_screen_background(second) == first_background
    assert generated == []
    kept = dict(second.theme_variables)
    assert second.get_css_variables() == kept == App.get_css_variables(second)


async def test_each_theme_keeps_its_own_rules(make_app: Callable[..., TutorApp]) -> None:
    """Rules are parsed with the theme's colours in them: a cache per theme, or an app in
    the light theme would draw the dark one's."""
    dark_background = await first_screen_background(make_app())
    light = make_app()
    async with light.run_test() as pilot:
        light.theme = "textual-light"
        await settle(pilot)
        light_background = await background(light)
        light.theme = "textual-dark"
        await settle(pilot)
        assert await background(light) == dark_background
    assert light_background != dark_background
    assert await first_screen_background(make_app(), "textual-light") == light_background


async def test_a_second_app_parses_no_style_text(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    await first_screen_background(make_app())
    parsed: list[str] = []
    parse_style = textual.css.stylesheet.parse_style  # textual.markup's, as it calls it

    def counting(style, variables=None):  # type: ignore[no-untyped-def]
        parsed.append(style)
        return parse_style(style, variables)

    monkeypatch.setattr(textual.css.stylesheet, "parse_style", counting)
    await first_screen_background(make_app())
    assert parsed == []
