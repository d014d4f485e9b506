"""The learner reads the teacher's marks on the summary page the next time they open it:
each claim and misconception the teacher marked, in words, and the comment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tui.conftest import LEARNER, LESSON
from tests.waits import settle
from tutor.progress.marks import TeacherMarks
from tutor.progress.opening import open_store
from tutor.tui.app import TutorApp
from tutor.tui.widgets.teacher_marks import TeacherMarksView

SUMMARY_PAGE = 15


def mark(data_dir: Path) -> None:
    teacher = open_store("teacher", data_dir)
    teacher.save_teacher_marks(
        LEARNER,
        LESSON,
        "summary",
        TeacherMarks(
            claims={"id-is-row": True, "learned-numbers": False},
            misconceptions={"bigger-id-matters": "fixed"},
            comment="「门牌号」这个比喻很好。\x1b[2J",
        ),
    )
    teacher.save_teacher_marks(
        LEARNER,
        LESSON,
        "explain-embedding",
        TeacherMarks(misconceptions={"close-ids-close-meaning": "held"}),
    )
    teacher.close()


async def test_the_summary_page_shows_the_teacher_s_marks_in_chinese_and_english(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    mark(data_dir)
    app = make_app(start_lesson=LESSON, start_page=SUMMARY_PAGE)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        text = app.screen.query_one(TeacherMarksView).plain_text()
        page = app.screen.plain_text()
    assert text.splitlines()[0] == "老师批改"
    assert "你的总结" in text
    assert "✓ 做到了：" in text and "✗ 还没做到：" in text
    assert "✓ 已经纠正：ID 大的 token 更重要" in text
    assert "老师的话：「门牌号」这个比喻很好。␛[2J" in text
    assert "第 5 题" in text and "⚠ 还有这个误解：ID 相近的 token 意思相近" in text
    assert "老师批改" in page
    app = make_app(start_lesson=LESSON, start_page=SUMMARY_PAGE, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        text = app.screen.query_one(TeacherMarksView).plain_text()
    assert text.splitlines()[0] == "Teacher's marks"
    assert "✓ Fixed: A token with a bigger ID matters more" in text
    assert "Question 5" in text and "Your summary" in text


async def test_no_marks_no_teacher_section(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=SUMMARY_PAGE)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query(TeacherMarksView)
