"""Pictures of every screen: each page of the shipped lesson at 80x24 and 120x40, home,
help, the error screen, the heatmap under NO_COLOR and the Token lesson's merge stepper.

Animations and cursor blink are off and workers are awaited before the picture, so three
runs give identical SVGs. Update deliberately (`pytest tests/tui --snapshot-update`), look
at the pictures, never in CI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import LESSON, app_for, page_with, shipped_lesson
from tests.tui.test_error_screen import BROKEN
from tests.waits import settle
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.lookup import LookupDemo
from tutor.tui.widgets.merge_stepper import MergeStepper
from tutor.tui.widgets.training import TrainingRun

SIZES = [(80, 24), (120, 40)]
PAGES = [page.number for page in shipped_lesson().pages]
# pages whose widgets speak (path, lookup, rows, a wide table, neighbours), also in English
ENGLISH_PAGES = [5, 7, 9, 11, 13]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def plain_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "TEXTUAL_THEME", "TUTOR_GUEST"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fixed_data_dir(plain_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The home screen prints where progress lives: a path relative to the test's own
    folder reads the same on every machine, whatever its TMPDIR, and no two runs share it."""
    monkeypatch.chdir(tmp_path)
    return Path("progress")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("number", PAGES, ids=lambda n: f"page{n:02d}")
def test_page(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, number: int, size: tuple[int, int]
) -> None:
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=number)
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("number", ENGLISH_PAGES, ids=lambda n: f"page{n:02d}")
def test_page_in_english(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, number: int, size: tuple[int, int]
) -> None:
    """The pages whose widgets draw words of their own, with the interface in English."""
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=number, lang="en")
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_lookup_at_real_scale(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int], lang: str
) -> None:
    """Page 7's lookup switched to Qwen3.8's real scale, its third token (苹果) picked."""
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with("lookup"), lang=lang)

    async def real_scale(pilot: Pilot) -> None:
        await settle(pilot)
        demo = pilot.app.screen.query_one(LookupDemo)
        demo.query_one("#token").focus()
        demo.scroll_visible(animate=False, top=True)
        await settle(pilot)
        await pilot.press("s", "right", "right")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=real_scale)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int]
) -> None:
    assert snap_compare(app_for(fixed_data_dir), terminal_size=size, run_before=settle)


def test_help(snap_compare: Callable[..., bool], fixed_data_dir: Path) -> None:
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=PAGES[0])
    assert snap_compare(app, press=["question_mark"], terminal_size=(80, 24), run_before=settle)


def test_error_screen(
    snap_compare: Callable[..., bool],
    plain_env: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)  # problems print relative paths, the same on every machine
    app = app_for(tmp_path / "progress", content_root=BROKEN.relative_to(REPO))
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_heatmap_without_colour(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with("heatmap"))

    async def focus_heatmap(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.screen.query_one(Heatmap).focus()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=focus_heatmap)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_training_scrubber(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int]
) -> None:
    """Page 8's recorded run, scrubbed to its 12th checkpoint."""
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with("training"))

    async def scrub(pilot: Pilot) -> None:
        await settle(pilot)
        widget = pilot.app.screen.query_one(TrainingRun)
        widget.focus()
        widget.scroll_visible(animate=False, top=True)
        await settle(pilot)
        await pilot.press(*["right"] * 11)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=scrub)


@pytest.mark.parametrize("lang", ["zh", pytest.param("en", marks=pytest.mark.slow)])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_training_map(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int], lang: str
) -> None:
    """Page 8's map of the recorded run at its last step, scrolled into view (beside the
    heatmap at 120x40, below it at 80x24)."""
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with("training"), lang=lang)

    async def to_the_map(pilot: Pilot) -> None:
        await settle(pilot)
        widget = pilot.app.screen.query_one(TrainingRun)
        widget.focus()
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        widget.query_one("#map-side").scroll_visible(animate=False, top=True)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=to_the_map)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_summary_page_with_teacher_marks(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int], lang: str
) -> None:
    """The summary page after `tutor review`: the teacher's marks, scrolled into view."""
    from tests.tui.test_teacher_marks import SUMMARY_PAGE, mark
    from tutor.tui.widgets.teacher_marks import TeacherMarksView

    mark(fixed_data_dir)
    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=SUMMARY_PAGE, lang=lang)

    async def show_marks(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.screen.query_one(TeacherMarksView).scroll_visible(animate=False, top=True)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=show_marks)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review(
    snap_compare: Callable[..., bool],
    plain_env: None,
    tmp_path: Path,
    size: tuple[int, int],
    lang: str,
) -> None:
    """`tutor review` on a learner's summary, two marks set and the first claim focused."""
    from tests.progress.test_review import review_app
    from tutor.progress.marks import TeacherMarks
    from tutor.progress.opening import open_store

    ada = open_store("ada", tmp_path)
    ada.submit_summary(
        "embedding",
        {
            "understanding": "ID 只是行号；one-hot 乘表就是查表。",
            "mental-models": "门牌号：ID 是第几排。",
            "remaining-questions": "位置信息是怎么加进去的？",
            "misconceptions-fixed": "ID 大的 token 更重要",
        },
    )
    marks = TeacherMarks(claims={"id-is-row": True}, misconceptions={"bigger-id-matters": "fixed"})
    ada.save_teacher_marks("ada", "embedding", "summary", marks)
    open_store("bob", tmp_path).record_attempt("embedding", "explain-embedding", "行号。", False)
    assert snap_compare(review_app({"data_dir": tmp_path}, lang), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_merge_stepper(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int]
) -> None:
    """The Token lesson's running sentence after seven merges: 小明 has just been made."""
    app = app_for(
        fixed_data_dir, start_lesson="token", start_page=page_with("merges", lesson_id="token")
    )

    async def step(pilot: Pilot) -> None:
        await settle(pilot)
        widget = pilot.app.screen.query_one(MergeStepper)
        widget.focus()
        widget.scroll_visible(animate=False, top=True)
        await settle(pilot)
        await pilot.press(*["right"] * 7)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=step)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("widget", ["inputs", "width"])
def test_recorded_experiment(
    snap_compare: Callable[..., bool],
    fixed_data_dir: Path,
    size: tuple[int, int],
    lang: str,
    widget: str,
) -> None:
    """Pages 4 and 12's recorded experiments, scrolled into view."""
    from tutor.tui.screens.page import widget_class

    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with(widget), lang=lang)

    async def show(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.screen.query_one(widget_class(widget)).scroll_visible(animate=False, top=True)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=show)


@pytest.mark.slow  # each question asks a child Python that opens the model
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_renumbering(
    snap_compare: Callable[..., bool], fixed_data_dir: Path, size: tuple[int, int], lang: str
) -> None:
    """Page 10's experiment scrolled into view, after one Enter: permutation 2."""
    from tutor.tui.widgets.renumber import RenumberDemo

    app = app_for(fixed_data_dir, start_lesson=LESSON, start_page=page_with("renumber"), lang=lang)

    async def draw(pilot: Pilot) -> None:
        await settle(pilot)
        widget = pilot.app.screen.query_one(RenumberDemo)
        widget.focus()
        widget.scroll_visible(animate=False, top=True)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=draw)
