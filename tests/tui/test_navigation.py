"""Moving through the lesson by keyboard: home, every page in order, jumps, resume."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import OptionList

from tests.tui.conftest import LESSON, shipped_lesson
from tests.waits import settle, until
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.tui.app import TutorApp, screen_class
from tutor.tui.screens.help import HelpScreen
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.page import PageScreen
from tutor.tui.screens.reading import ReadingScreen
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.lesson_list import LessonList

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def test_home_lists_the_lesson_as_not_started(make_app: Callable[..., TutorApp]) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        text = app.screen.plain_text()
        lesson = shipped_lesson()
        assert f"{lesson.card.title} ({LESSON}): 未开始" in text
        assert "还没有学习记录" in text
        shipped = load_lessons(content_dir()).lessons
        assert len(app.screen.query_one("#lessons", LessonList).options) == len(shipped)


@pytest.mark.parametrize("position", range(len(load_lessons(content_dir()).lessons)))
async def test_whole_lesson_forward_and_back_by_keys(
    make_app: Callable[..., TutorApp], position: int
) -> None:
    """Each lesson of the course opens from the list; n walks every page in order with the
    screen class of its kind; p walks back."""
    lesson = load_lessons(content_dir()).lessons[position]
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press(*["down"] * position, "enter")
        for index, page in enumerate(lesson.pages):
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, screen_class(page.kind)), page.number
            assert (screen.lesson.id, screen.page.number) == (lesson.id, page.number)
            header = f"第 {index + 1} / {len(lesson.pages)} 页"
            assert header in str(screen.query_one("#page-header").render())
            if page is not lesson.pages[-1]:
                await pilot.press("n")
        await pilot.press("n")  # the last page opens the next lesson, or stays
        await settle(pilot)
        following = lesson.card.next_lesson
        if following is None:
            assert app.screen.page.number == lesson.pages[-1].number
        else:
            assert app.screen.lesson.id == following
            await pilot.press("h")
            await settle(pilot)
            await pilot.press("home", *["down"] * position, "enter")
            await settle(pilot)
            assert app.screen.page.number == lesson.pages[-1].number
        for _ in lesson.pages[1:]:
            await pilot.press("p")
        await settle(pilot)
        assert app.screen.page.number == lesson.pages[0].number
        await pilot.press("right", "right", "left")
        await settle(pilot)
        assert app.screen.page.number == lesson.pages[1].number
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        visited = app.ctx.store.visited_pages(lesson.id)
        assert visited == {page.number for page in lesson.pages}
        assert f"{lesson.card.title} ({lesson.id}): 已完成" in app.screen.plain_text()


async def test_open_a_page_directly_and_resume_after_restart(
    make_app: Callable[..., TutorApp],
) -> None:
    lesson = shipped_lesson()
    target = lesson.pages[4].number
    app = make_app(start_lesson=LESSON, start_page=target)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert app.screen.page.number == target
        await pilot.press("n")
        await settle(pilot)

    restarted = make_app()
    async with restarted.run_test() as pilot:
        await settle(pilot)
        home = restarted.screen
        assert isinstance(home, HomeScreen)
        assert f"第 {lesson.pages[5].number} 页" in home.plain_text()
        assert "学习中 2/" in home.plain_text()
        await pilot.press("r")
        await settle(pilot)
        assert restarted.screen.page.number == lesson.pages[5].number
        await pilot.press("h", "enter")  # entering the lesson also goes back to that page
        await settle(pilot)
        assert restarted.screen.page.number == lesson.pages[5].number


async def test_a_missing_page_is_a_message_not_a_crash(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=999)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        messages = [n.message for n in app._notifications]
        assert any("没有第 999 页" in message for message in messages)


async def test_command_palette_jumps_to_any_page(make_app: Callable[..., TutorApp]) -> None:
    lesson = shipped_lesson()
    last = lesson.pages[-1]
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*f"{last.number}. {last.title}")

        def found() -> bool:  # the palette searches in a task of its own
            hits = app.screen.query(OptionList)
            return bool(hits) and hits.first().option_count > 0

        await until(pilot, found)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PageScreen)
        assert app.screen.page.number == last.number


async def test_help_and_plain_text_open_and_close(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=shipped_lesson().pages[0].number)
    async with app.run_test() as pilot:
        await settle(pilot)
        page_screen = app.screen
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        help_text = str(app.screen.query_one("#help-text").render())
        assert "下一页" in help_text and "退出" in help_text and "本课目标" in help_text
        await pilot.press("escape")
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReadingScreen)
        assert shipped_lesson().card.question in app.screen.text
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is page_screen


async def test_english_interface(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(lang="en")
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "not started" in app.screen.plain_text()
        await pilot.press("enter")
        await settle(pilot)
        assert "Page 1 of" in str(app.screen.query_one("#page-header").render())


async def test_theme_toggles(make_app: Callable[..., TutorApp]) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        before = app.theme
        await pilot.press("t")
        assert app.theme != before
        await pilot.press("t")
        assert app.theme == before


async def test_guest_mode_says_so_and_saves_nothing(
    make_app: Callable[..., TutorApp], data_dir
) -> None:
    app = make_app(guest=True)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "访客模式" in app.screen.plain_text()
        await pilot.press("enter")
        await settle(pilot)
    assert not data_dir.exists()


async def test_served_learner_is_not_shown_the_servers_file_path(tmp_path):
    from tutor.core.paths import content_dir
    from tutor.tui.app import TutorApp

    app = TutorApp(
        content_dir(), learner="SHA256:abc", data_dir=tmp_path, remote=True, animate=False
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = "\n".join(app.screen.where_lines)
        assert "SHA256:abc" in lines
        assert str(tmp_path) not in lines


async def test_the_key_line_is_redrawn_only_when_its_keys_change(
    make_app: Callable[..., TutorApp],
) -> None:
    """Focus moving between widgets with the same keys costs no frame; new keys show."""
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        key_line = app.screen.query_one(KeyBar)
        drawn: list[str] = []
        original = key_line.update
        key_line.update = lambda content: (drawn.append(str(content)), original(content))  # type: ignore[method-assign]
        app.screen.set_focus(None)  # the lesson list's own keys are named either way
        await settle(pilot)
        app.screen.query_one("#lessons").focus()
        await settle(pilot)
        assert drawn == []
        await pilot.press("enter")  # a lesson page: next/previous page keys appear
        await settle(pilot)
        key_line = app.screen.query_one(KeyBar)
        assert "下一页" in str(key_line.render())


async def test_a_hostile_learner_name_is_shown_visibly_not_acted_on(tmp_path):
    """`--learner` (or a ForceCommand's TUTOR_LEARNER) is any text: the home screen shows
    its escape, bidi and zero-width characters as stand-ins, as `tutor report` does."""
    from tutor.core.paths import content_dir

    for remote in (False, True):
        name = "ada\x1b[2J\x9b31m\u202eevil\u200b"
        app = TutorApp(content_dir(), learner=name, data_dir=tmp_path, remote=remote, animate=False)
        async with app.run_test(size=(120, 24)) as pilot:
            await pilot.pause()
            lines = "\n".join(app.screen.where_lines)
            assert "ada␛[2J⟨U+009B⟩31m⟨U+202E⟩evil⟨U+200B⟩" in lines
            assert not {"\x1b", "\x9b", "\u202e", "\u200b"} & set(lines)
