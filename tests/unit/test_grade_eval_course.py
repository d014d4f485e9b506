"""The Token and numbers lessons' summary rubrics measured on their labelled answers
(tests/content/labelled_answers_{token,numbers}.yaml), against the README's targets.

Each set's held-out part was fixed by the CRC-32 of the ids before any phrase was tuned.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tutor.content import Lesson, load_lessons
from tutor.content.evaluation import LabelledSet, evaluate, held_out_by_hash, read_labelled
from tutor.core.paths import content_dir

SETS = Path(__file__).parents[1] / "content"
LESSONS = ["token", "numbers"]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_CACHE_DIR", str(tmp_path / "cache"))


def _read(lesson_id: str) -> tuple[Lesson, LabelledSet]:
    lesson = load_lessons(content_dir()).lesson(lesson_id)
    assert lesson is not None
    answers, problems = read_labelled(
        SETS / f"labelled_answers_{lesson_id}.yaml", {lesson_id: lesson}
    )
    assert problems == [] and answers is not None
    return lesson, answers


@pytest.mark.parametrize("lesson_id", LESSONS)
def test_the_set_is_summaries_in_both_languages_and_labels_every_rubric_entry(
    lesson_id: str,
) -> None:
    lesson, labelled = _read(lesson_id)
    langs = [bool(re.search(r"[\u4e00-\u9fff]", a.text)) for a in labelled.answers]
    assert min(langs.count(True), langs.count(False)) >= 40
    assert {a.item for a in labelled.answers} == {"summary"}
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    assert {c for a in labelled.answers for c in a.claims} == {c.id for c in summary.rubric}
    assert {m for a in labelled.answers for m in a.held} == {m.id for m in summary.misconceptions}
    assert {m for a in labelled.answers for m in a.fixed} and {
        m for a in labelled.answers for m in a.rejected
    }


@pytest.mark.parametrize("lesson_id", LESSONS)
def test_the_held_out_part_is_the_hashed_fifth_and_meets_the_targets(lesson_id: str) -> None:
    lesson, labelled = _read(lesson_id)
    marked = [a.id for a in labelled.answers if a.held_out]
    assert marked == [a.id for a in labelled.answers if held_out_by_hash(a.id)]
    assert len(marked) >= 16
    held_out = evaluate(labelled, lesson, "held-out")
    assert held_out.contradicted_claims == 0
    assert held_out.misconception_recall is not None and held_out.misconception_recall >= 0.9
    assert held_out.claim_precision is not None and held_out.claim_precision >= 0.95
    assert held_out.claim_recall is not None and held_out.claim_recall >= 0.8
    assert held_out.rejected_held == 0 and held_out.rejected_withdrew == 0
    assert held_out.targets_met
