"""One language at a time, and what a learner typed is quoted, not echoed whole."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.command import CommandInput, CommandList
from textual.widgets import Input

from tests.tui.conftest import LESSON, page_with
from tests.waits import settle, until
from tutor.tui.app import TutorApp
from tutor.tui.screens.help import key_lines
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.neighbours import NeighboursPanel
from tutor.tui.widgets.token_strip import TokenStrip


async def test_a_long_paste_is_quoted_short_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    pasted = "小明把苹果给了小王。" * 500  # 5,000 characters, many tokens
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        field = panel.query_one("#other", Input)
        field.focus()
        field.post_message(events.Paste(pasted))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        error = panel.answers[0].error
        assert "不是一个 token" in error and "5,000 个字符" in error
        assert "not one token" not in error and "splits" not in error
        assert len(error) < 200 and pasted[:60] not in error


async def test_core_refusals_are_translated(make_app: Callable[..., TutorApp]) -> None:
    for lang, words in (("zh", "空字符串不是 token"), ("en", "An empty string is not a token")):
        app = make_app(lang=lang, start_lesson=LESSON, start_page=page_with("neighbours"))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            panel = app.screen.query_one(NeighboursPanel)
            panel.ask_about("")
            await settle(pilot)
            assert words in panel.answers[0].error


async def test_the_token_strip_refuses_too_long_text_in_chinese(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        strip.query_one("#text", Input).value = "猫" * 100_001
        await settle(pilot)
        assert strip.result is None
        assert "100,001" in strip.error and "字符" in strip.error and "limit" not in strip.error


async def test_the_palette_asks_and_offers_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        field = app.screen.query_one(CommandInput)
        assert field.placeholder == "搜索页面、课程或命令…"
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert titles == ["主题", "按键", "退出"]  # no English, no file-writing screenshot


async def test_help_names_the_arrows_once(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one(Heatmap).focus()
        await settle(pilot)
        lines = dict((description, keys) for keys, description in key_lines(app.screen))
        assert lines["移动"] == "↑↓←→"
        assert lines["课程"] == "h/esc"


async def test_the_palette_says_it_found_nothing_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    for lang, query, words in (("zh", "keys", "没有找到"), ("en", "zzzz", "Nothing found")):
        app = make_app(lang=lang, start_lesson=LESSON, start_page=1)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+p")
            await settle(pilot)
            await pilot.press(*query)
            found = app.screen.query_one(CommandList)
            await until(pilot, lambda found=found: found.option_count == 1)
            prompt = found.get_option_at_index(0).prompt
            said = getattr(prompt, "renderable", prompt).plain
            assert said == words


async def test_ctrl_c_names_the_quit_key_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    for lang, title, words in (
        ("zh", "要退出导师吗？", "按 q 退出"),
        ("en", "Quit the tutor?", "Press q to quit"),
    ):
        app = make_app(lang=lang, start_lesson=LESSON, start_page=1)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+c")
            await until(pilot, lambda app=app: bool(app._notifications))
            (note,) = list(app._notifications)
            assert (note.title, note.message) == (title, words)
