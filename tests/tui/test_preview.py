"""`tutor preview`: a saved file is on screen again at the same page and scroll position;
a broken save shows its problems over the last good page until it is fixed; pages added or
deleted are picked up. Each test edits real files and awaits the app's answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.tui.conftest import LESSON
from tests.waits import settle, until
from tutor.core.paths import content_dir
from tutor.tui.preview import PreviewApp, PreviewProblems
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.problem import ProblemReport

PAGE = 6  # prose and one tokens widget: taller than 24 rows, quick to load


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    return Path(shutil.copytree(content_dir(), tmp_path / "content"))


def page_file(lessons: Path, number: int) -> Path:
    return next((lessons / LESSON).glob(f"{number:02d}-*.md"))


def shown_page(app: PreviewApp) -> tuple[str, int, str]:
    screen = app.screen
    assert isinstance(screen, PageScreen)
    return screen.lesson.id, screen.page.number, screen.page.title


def preview(lessons: Path, data_dir: Path) -> PreviewApp:
    return PreviewApp(
        lessons, lang="zh", data_dir=data_dir, start_lesson=LESSON, start_page=PAGE, animate=False
    )


async def test_a_save_reloads_the_same_page_at_the_same_scroll(
    lessons: Path, data_dir: Path
) -> None:
    app = preview(lessons, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#body")
        assert body.max_scroll_y > 4
        body.scroll_to(y=4, animate=False, immediate=True)
        await settle(pilot)

        path = page_file(lessons, PAGE)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("title: ", "title: 改过的", 1), encoding="utf-8")
        await until(pilot, lambda: app.reloads == 1, "a reload")
        await until(pilot, lambda: shown_page(app)[2].startswith("改过的"), "the new title")
        assert shown_page(app)[:2] == (LESSON, PAGE)
        await until(
            pilot, lambda: [b.scroll_y for b in app.screen.query("#body")] == [4], "the scroll"
        )


async def test_a_broken_save_shows_problems_over_the_last_good_page_until_fixed(
    lessons: Path, data_dir: Path
) -> None:
    app = preview(lessons, data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        good = shown_page(app)
        path = page_file(lessons, PAGE)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("title:", "colour: red\ntitle:", 1), encoding="utf-8")
        await until(pilot, lambda: isinstance(app.screen, PreviewProblems), "the problems")
        await until(pilot, lambda: len(app.screen.query(ProblemReport)) == 1, "composed")
        (report,) = app.screen.query(ProblemReport)
        assert report.text() == (
            f"{path}:3:1: 未知字段 'colour'\n  |\n3 | colour: red\n  | ^^^^^^ 错误"
        )
        under = app.screen_stack[-2]
        assert isinstance(under, PageScreen) and (under.lesson.id, under.page.number) == good[:2]
        assert under.page.title == good[2]  # the last good render, still there

        path.write_text(text.replace("title: ", "title: 修好了", 1), encoding="utf-8")
        await until(pilot, lambda: not isinstance(app.screen, PreviewProblems), "cleared")
        await until(pilot, lambda: shown_page(app)[2].startswith("修好了"), "the fixed page")


async def test_added_and_deleted_pages_are_picked_up(lessons: Path, data_dir: Path) -> None:
    app = preview(lessons, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        numbers = [page.number for page in app.index.lesson(LESSON).pages]
        extra = lessons / LESSON / "99-extra.md"
        extra.write_text("---\nkind: wrapup\ntitle: 新加的一页\n---\n正文\n", encoding="utf-8")
        await until(
            pilot, lambda: [p.number for p in app.index.lesson(LESSON).pages][-1] == 99, "added"
        )
        assert shown_page(app)[:2] == (LESSON, PAGE)

        page_file(lessons, PAGE).unlink()  # the page on screen
        await until(pilot, lambda: shown_page(app)[1] == PAGE - 1, "the page before it")
        assert [p.number for p in app.index.lesson(LESSON).pages] == [
            number for number in numbers if number != PAGE
        ] + [99]

        extra.rename(lessons / LESSON / "98-renamed.md")
        await until(
            pilot,
            lambda: [p.number for p in app.index.lesson(LESSON).pages][-1] == 98,
            "the renamed page",
        )


async def test_a_preview_that_starts_broken_opens_the_page_once_fixed(
    lessons: Path, data_dir: Path
) -> None:
    path = page_file(lessons, PAGE)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title:", "colour: red\ntitle:", 1), encoding="utf-8")
    app = preview(lessons, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        path.write_text(text.replace("title:", "colour: blue\ntitle:", 1), encoding="utf-8")
        await until(pilot, lambda: "colour: blue" in app.screen.plain_text(), "new problems")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        path.write_text(text, encoding="utf-8")
        await until(pilot, lambda: isinstance(app.screen, PageScreen), "the page")
        assert shown_page(app)[:2] == (LESSON, PAGE)
        await settle(pilot)  # the lesson list under the page finishes mounting


async def test_the_lesson_list_counts_a_page_added_while_it_shows(
    lessons: Path, data_dir: Path
) -> None:
    """The list reads lessons through the shared context, which a reload updates too."""
    app = PreviewApp(lessons, lang="zh", data_dir=data_dir, animate=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        total = app.ctx.lesson_state(app.ctx.index.lesson(LESSON)).total
        extra = lessons / LESSON / "99-extra.md"
        extra.write_text("---\nkind: wrapup\ntitle: 新加的一页\n---\n正文\n", encoding="utf-8")
        await until(pilot, lambda: app.reloads >= 1, "a reload")
        assert app.ctx.lesson_state(app.ctx.index.lesson(LESSON)).total == total + 1
        await settle(pilot)
