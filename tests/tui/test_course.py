"""The course map: the shipped lessons in the order their cards give, each with its
progress and where the learner stopped; an unfinished prerequisite is a note, never a lock;
a lesson's last page opens the next lesson with one key."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.conftest import LEARNER, tutor_on_pty
from tests.waits import block_until, settle
from tutor.content import LessonSet, load_lessons
from tutor.core.paths import content_dir
from tutor.progress.sql import SqlProgressStore
from tutor.tui.app import TutorApp
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.lesson_card import LessonCardView
from tutor.tui.widgets.lesson_list import LessonList


def course() -> LessonSet:
    lessons = load_lessons(content_dir())
    assert lessons.errors == []
    return lessons


def course_order(lessons: LessonSet) -> list[str]:
    """The shipped lessons from the one no card names as its next, following `next_lesson`."""
    named = {lesson.card.next_lesson for lesson in lessons.lessons}
    first = [lesson for lesson in lessons.lessons if lesson.id not in named]
    assert len(first) == 1
    order, current = [], first[0]
    while current is not None:
        order.append(current.id)
        following = current.card.next_lesson
        current = lessons.lesson(following) if following else None
    return order


def keys_shown(app: TutorApp) -> str:
    return " ".join(f"{key} {said}" for key, said in app.screen.query_one(KeyBar)._shown or [])


async def test_the_lesson_list_is_the_course_in_the_order_the_cards_give(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    order = course_order(lessons)
    assert len(order) >= 2  # the token lesson and the embedding lesson at least
    app = make_app()
    async with app.run_test() as pilot:
        await settle(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        listed = [line for line in home.plain_text().splitlines() if line[:1].isdigit()]
        for number, (line, lesson_id) in enumerate(zip(listed, order, strict=True), 1):
            lesson = lessons.lesson(lesson_id)
            assert lesson is not None
            assert line.startswith(f"{number}. {lesson.card.title} ({lesson_id}): 未开始")
            needs = [lessons.lesson(p.lesson) for p in lesson.card.prerequisites if p.lesson]
            for needed in needs:
                assert needed is not None and f"先学：{needed.card.title}" in line


async def test_a_lesson_whose_prerequisite_is_not_done_opens_with_a_one_line_note(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    second = lessons.lesson(course_order(lessons)[1])
    assert second is not None
    needed = lessons.lesson(next(p.lesson for p in second.card.prerequisites if p.lesson))
    assert needed is not None
    app = make_app()
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PageScreen)
        assert (app.screen.lesson.id, app.screen.page.number) == (second.id, second.pages[0].number)
        notes = [n.message for n in app._notifications]
        assert len(notes) == 1 and "\n" not in notes[0]
        assert needed.card.title in notes[0]


async def test_the_last_page_opens_the_next_lesson_with_one_key(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    first, second = (lessons.lesson(i) for i in course_order(lessons)[:2])
    assert first is not None and second is not None
    app = make_app(start_lesson=first.id, start_page=first.pages[-2].number)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "下一页" in keys_shown(app) and "下一课" not in keys_shown(app)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen.page.number == first.pages[-1].number
        assert "n 下一课" in keys_shown(app) and "下一页" not in keys_shown(app)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, PageScreen)
        assert (app.screen.lesson.id, app.screen.page.number) == (second.id, second.pages[0].number)


async def test_the_course_map_shows_progress_and_where_the_learner_stopped(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    first, second = (lessons.lesson(i) for i in course_order(lessons)[:2])
    assert first is not None and second is not None
    app = make_app(start_lesson=second.id, start_page=second.pages[0].number)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("n", "n")
        await settle(pilot)
        stopped = second.pages[2].number
        await pilot.press("h")
        await settle(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        line = next(line for line in home.plain_text().splitlines() if f"({second.id})" in line)
        total = len(second.pages)
        assert f"学习中 3/{total} · 停在第 {stopped} 页" in line
        await pilot.press("enter")  # the lesson where the learner stopped is the one chosen
        await settle(pilot)
        assert (app.screen.lesson.id, app.screen.page.number) == (second.id, stopped)


async def test_a_finished_prerequisite_is_ticked_and_opens_without_a_note(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    first, second = (lessons.lesson(i) for i in course_order(lessons)[:2])
    assert first is not None and second is not None
    app = make_app(start_lesson=first.id, start_page=first.pages[0].number)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        for _ in first.pages[1:]:
            await pilot.press("n")
            await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        text = app.screen.plain_text()
        assert f"1. {first.card.title} ({first.id}): 已完成" in text
        assert f"先学：{first.card.title} ✓" in text
        app.clear_notifications()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.lesson.id == second.id
        assert list(app._notifications) == []


async def test_the_lesson_card_names_the_next_lesson_of_the_course(
    make_app: Callable[..., TutorApp],
) -> None:
    lessons = course()
    first, second = (lessons.lesson(i) for i in course_order(lessons)[:2])
    assert first is not None and second is not None
    app = make_app(start_lesson=first.id, start_page=first.pages[0].number)
    async with app.run_test() as pilot:
        await settle(pilot)
        card = app.screen.query_one(LessonCardView).plain_text()
        assert f"下一课: 课程「{second.card.title}」" in card


@pytest.mark.pty
def test_the_course_map_s_lines_reach_the_terminal_once_as_the_tutor_starts(
    tmp_path: Path,
) -> None:
    """What a learner's terminal receives as the tutor starts draws where they stand once:
    inside a scrolling body sized for the first time by the first frame, the whole map was
    sent a second time right after it (over SSH, twice the bytes of a first screen)."""
    leader, child = tutor_on_pty(tmp_path, 80, 24, "--learner", LEARNER)
    where = "还没有学习记录".encode()
    received = bytearray()
    try:
        os.set_blocking(leader, False)

        def quiet_after_the_map() -> bool:
            """The map is on screen and nothing more has come for a second."""
            before = len(received)
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                with contextlib.suppress(BlockingIOError):
                    received.extend(os.read(leader, 65536))
                time.sleep(0.02)
            return where in received and len(received) == before

        block_until(quiet_after_the_map, "the course map drawn, then quiet", child)
        assert received.count(where) == 1
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        os.close(leader)


async def test_the_course_map_s_key_line_names_the_list_s_own_keys_once(
    make_app: Callable[..., TutorApp],
) -> None:
    """↑↓ and Enter belong to the lesson list, whose keys Textual describes in English and
    the key line leaves out: the key line names them first, in the learner's language, so
    no second line of keys repeats ? and q below the list."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = keys_shown(app)
        assert shown.startswith("↑↓ 选择 enter 打开 ")
        assert "? 帮助" in shown and "q 退出" in shown
        text = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert text.count("帮助") == 1, text


def calls_counted(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[str]:
    """A list that gets "read" each time cls.name is called from now on."""
    calls: list[str] = []
    method = getattr(cls, name)

    def counted(self: object) -> object:
        calls.append("read")
        return method(self)

    monkeypatch.setattr(cls, name, counted)
    return calls


async def test_the_course_map_reads_progress_once_as_the_tutor_starts(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built filled, the map is not read again as its screen first resumes (a third of the
    screen's own time in a served start); a return to it still reads fresh progress."""
    reads = calls_counted(monkeypatch, HomeScreen, "_map")
    positions = calls_counted(monkeypatch, SqlProgressStore, "last_position")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert reads == ["read"]
        assert positions == ["read"]  # where the learner stopped, read once for the map
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert reads == ["read", "read"]


async def test_the_lesson_list_moves_with_the_arrow_keys_and_opens_by_enter_or_a_click(
    make_app: Callable[..., TutorApp],
) -> None:
    """The course map's own list (not Textual's OptionList, see tutor.tui.widgets.lesson_list):
    ↑↓, Home and End move the highlight, Enter opens the highlighted lesson and a click the
    lesson clicked."""
    order = course_order(course())
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lessons = app.screen.query_one("#lessons", LessonList)
        assert lessons.has_focus and lessons.highlighted_id == order[0]
        await pilot.press("down", "down", "down")
        assert lessons.highlighted_id == order[-1]
        await pilot.press("home")
        assert lessons.highlighted_id == order[0]
        await pilot.press("end", "up")
        assert lessons.highlighted_id == order[1]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.lesson.id == order[1]
        await pilot.press("h")
        await settle(pilot)
        # the first lesson takes two lines inside the border; its third line is the second's
        await pilot.click("#lessons", offset=(8, 3))
        await settle(pilot)
        assert isinstance(app.screen, PageScreen) and app.screen.lesson.id == order[1]
