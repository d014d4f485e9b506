"""The content cache: a start reads the conclusion of the last full load while nothing it
depends on changed, and loads (and rewrites it) as soon as anything did."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.test_error_screen import BROKEN
from tests.waits import settle
from tutor.cachefile import read_cached, write_cached
from tutor.content import load_lessons
from tutor.content.cache import LessonContent, open_content, preload_content
from tutor.content.index import index_of
from tutor.core.paths import content_dir
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.screens.home import HomeScreen
from tutor.words import i18n
from tutor.words.problems import say_problem

# these tests are about the cache and a first start: they begin with an empty cache dir
pytestmark = pytest.mark.cold_cache


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A copy of the shipped lessons that a test may edit."""
    return Path(shutil.copytree(content_dir(), tmp_path / "content"))


def page_file(content: Path) -> Path:
    return sorted((content / "embedding").glob("0*.md"))[1]


def test_a_miss_loads_and_writes_a_hit_reads_the_same_lessons(
    content: Path, cache_dir: Path
) -> None:
    first = LessonContent(content, cache_dir)
    assert not first.from_cache
    assert len(list(cache_dir.glob("lessons-*.json"))) == 1
    loaded = load_lessons(content)
    assert first.index == index_of(loaded.model_dump(mode="json"))

    second = LessonContent(content, cache_dir)
    assert second.from_cache
    assert second.index == first.index
    assert second.lesson_set.lessons == loaded.lessons  # rebuilt models equal a full load
    assert second.lesson_set.problems == loaded.problems


def test_an_edited_or_added_file_is_a_miss(content: Path, cache_dir: Path) -> None:
    LessonContent(content, cache_dir)
    page = page_file(content)
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("title:", "title: 改过的", 1), encoding="utf-8")
    edited = LessonContent(content, cache_dir)
    assert not edited.from_cache
    titles = [p.title for p in edited.index.lesson("embedding").pages]  # type: ignore[union-attr]
    assert any(title.startswith("改过的") for title in titles)
    assert LessonContent(content, cache_dir).from_cache

    extra = content / "embedding" / "99-extra.md"
    extra.write_text("---\nkind: wrapup\ntitle: 多出来的一页\n---\n正文\n", encoding="utf-8")
    added = LessonContent(content, cache_dir)
    assert not added.from_cache
    assert added.index.lesson("embedding").pages[-1].title == "多出来的一页"  # type: ignore[union-attr]


def test_preloaded_content_is_handed_out_while_its_files_are_unchanged(
    content: Path, cache_dir: Path
) -> None:
    """`tutor serve`'s session template reads the lessons once; its forks reuse them."""
    preloaded = preload_content(content, cache_dir)
    assert open_content(content, cache_dir) is preloaded
    other = content.parent / "other"
    shutil.copytree(content, other)
    assert open_content(other, cache_dir) is not preloaded  # another root
    page = page_file(content)
    page.write_text(page.read_text(encoding="utf-8") + "\n改过", encoding="utf-8")
    fresh = open_content(content, cache_dir)
    assert fresh is not preloaded and not fresh.from_cache


def test_a_cache_that_is_not_ours_is_a_miss(content: Path, cache_dir: Path) -> None:
    LessonContent(content, cache_dir)
    cached = next(cache_dir.glob("lessons-*.json"))
    data = json.loads(cached.read_text(encoding="utf-8"))
    data["data"]["lessons"][0]["pages"][0]["number"] = "one"  # a page number as text
    cached.write_text(json.dumps(data), encoding="utf-8")
    assert not LessonContent(content, cache_dir).from_cache
    cached.write_text("{not json", encoding="utf-8")
    assert not LessonContent(content, cache_dir).from_cache
    assert LessonContent(content, cache_dir).from_cache  # rewritten whole


def test_models_that_do_not_validate_are_loaded_from_the_files(
    content: Path, cache_dir: Path
) -> None:
    LessonContent(content, cache_dir)
    cached = next(cache_dir.glob("lessons-*.json"))
    data = json.loads(cached.read_text(encoding="utf-8"))
    data["data"]["lessons"][0]["card"]["objectives"] = []  # min_length=1
    cached.write_text(json.dumps(data), encoding="utf-8")
    stale = LessonContent(content, cache_dir)
    assert stale.from_cache
    assert stale.lesson_set.lessons == load_lessons(content).lessons


def test_cached_data_round_trips_only_under_its_key(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    write_cached(path, ["a", 1], {"b": [1, 2]})
    assert read_cached(path, ["a", 1]) == {"b": [1, 2]}
    assert read_cached(path, ["a", 2]) is None
    assert read_cached(tmp_path / "missing.json", ["a", 1]) is None


def test_interface_strings_are_cached_as_parsed(cache_dir: Path) -> None:
    import tomllib

    source = Path(i18n.__file__).with_name("strings.toml")
    parsed = tomllib.loads(source.read_text(encoding="utf-8"))
    assert i18n.strings.__wrapped__() == parsed  # a miss: parsed, then written
    assert (cache_dir / "strings.json").is_file()
    assert i18n.strings.__wrapped__() == parsed  # a hit


async def test_broken_content_shows_the_error_screen_from_a_warm_cache(
    make_app: Callable[..., TutorApp], cache_dir: Path
) -> None:
    """In Chinese, from the codes and values the cache kept."""
    speaker = i18n.Speaker("zh")
    problems = [
        f"{p.path}:{p.line}:{p.col}: {say_problem(speaker, p)}" for p in load_lessons(BROKEN).errors
    ]
    assert "未知字段 'colour'" in problems[0]
    for warm in (False, True):
        app = make_app(content_root=BROKEN)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert app.content.from_cache is warm
            assert isinstance(app.screen, ErrorScreen)
            shown = app.screen.plain_text()
            assert all(problem in shown for problem in problems)


async def test_content_broken_after_a_warm_start_shows_the_error_screen(
    make_app: Callable[..., TutorApp], content: Path, cache_dir: Path
) -> None:
    async with make_app(content_root=content).run_test() as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, HomeScreen)
    page = page_file(content)
    page.write_text(
        page.read_text(encoding="utf-8").replace("---\n", "---\ncolour: red\n", 1),
        encoding="utf-8",
    )
    os.utime(page)
    app = make_app(content_root=content)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert not app.content.from_cache
        assert isinstance(app.screen, ErrorScreen)
        assert f"{page}:2:1: 未知字段 'colour'" in app.screen.plain_text()


async def test_a_warm_start_opens_pages_rebuilt_from_the_cache(
    make_app: Callable[..., TutorApp],
) -> None:
    from tutor.tui.screens.page import PageScreen

    for warm in (False, True):
        app = make_app()
        async with app.run_test() as pilot:
            await settle(pilot)
            assert app.content.from_cache is warm
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, PageScreen)
            assert app.screen.page == app.lesson(app.lessons[0].id).pages[0]
