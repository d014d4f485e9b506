"""Pictures of every page of the Token and numbers lessons, at 80x24 and 120x40, with the
interface in Chinese and in English (the lessons' prose is Chinese either way).

As tests/tui/test_snapshots.py: animations off, workers awaited; update deliberately
(`--snapshot-update` on these tests), look at the pictures, never in CI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import app_for
from tests.tui.test_snapshots import SIZES
from tests.waits import settle
from tutor.content import load_lessons
from tutor.core.paths import content_dir

COURSE = load_lessons(content_dir())
PAGES = [
    (lesson, page.number)
    for lesson in ("token", "numbers")
    for page in COURSE.lesson(lesson).pages  # type: ignore[union-attr]
]


@pytest.fixture
def fixed_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("NO_COLOR", "TEXTUAL_THEME", "TUTOR_GUEST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return Path("progress")


# every page in Chinese in the fast tier; the English twins in the full suite
@pytest.mark.parametrize("lang", ["zh", pytest.param("en", marks=pytest.mark.slow)])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("where", PAGES, ids=lambda w: f"{w[0]}{w[1]:02d}")
def test_course_page(
    snap_compare: Callable[..., bool],
    fixed_data_dir: Path,
    where: tuple[str, int],
    size: tuple[int, int],
    lang: str,
) -> None:
    lesson, number = where
    app = app_for(fixed_data_dir, start_lesson=lesson, start_page=number, lang=lang)
    assert snap_compare(app, terminal_size=size, run_before=settle)
