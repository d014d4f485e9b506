"""What the teacher marks in `tutor review`: each learner's submitted summary and latest
text answers, with the grader's verdicts and the teacher's marks so far.

Built from the class's progress (read-only, tutor.progress.classview) and the lesson; the
screen (tutor.tui.screens.review) shows it and writes only the marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tutor.content.grade import SUMMARY, Grade, gradable_items, grade, rubric_for, summary_answer
from tutor.content.models import Lesson
from tutor.progress.classview import ClassProgress
from tutor.progress.marks import TeacherMarks
from tutor.progress.report import display_name, lesson_summary, quiz_questions


@dataclass(frozen=True, slots=True)
class Answer:
    """One item a learner answered: their text (by summary section, or the question's one
    answer under the item id), what the grader found in it, the teacher's marks so far."""

    item: str
    texts: dict[str, str]
    grade: Grade
    marks: TeacherMarks


@dataclass(frozen=True, slots=True)
class LearnerAnswers:
    """One learner's answers in one lesson: what the teacher marks on one screen."""

    learner: str
    name: str  # as written; shown through tutor.core.printable
    answers: list[Answer] = field(default_factory=list)
    lesson: str = ""


def answers_to_review(
    lesson: Lesson, progress: ClassProgress, names: dict[str, str]
) -> list[LearnerAnswers]:
    """Every learner with a submitted summary or a text answer in `lesson`, by name."""
    summary = lesson_summary(lesson)
    text_questions = {q.id for q in quiz_questions(lesson) if q.type == "text"}
    found = []
    for learner in sorted(progress.learners(lesson.id)):
        texts: dict[str, dict[str, str]] = {}
        sections = progress.submitted_summaries.get((learner, lesson.id))
        if summary is not None and sections and any(t.strip() for t in sections.values()):
            texts[SUMMARY] = sections
        for attempt in progress.attempts:  # in order: the last answer stays
            mine = (attempt.learner, attempt.lesson) == (learner, lesson.id)
            if mine and attempt.question in text_questions and isinstance(attempt.answer, str):
                texts[attempt.question] = {attempt.question: attempt.answer}
        answers = []
        for item in gradable_items(lesson):
            if item not in texts:
                continue
            whole = (
                summary_answer(summary, texts[item])
                if item == SUMMARY and summary is not None
                else texts[item][item]
            )
            marks = progress.teacher_marks.get((learner, lesson.id, item), TeacherMarks())
            answers.append(Answer(item, texts[item], grade(rubric_for(lesson, item), whole), marks))
        if answers:
            name = display_name(learner, names)
            found.append(LearnerAnswers(learner, name, answers, lesson.id))
    return sorted(found, key=lambda one: (one.name.casefold(), one.learner))


def answers_for_course(
    lessons: list[Lesson], progress: ClassProgress, names: dict[str, str]
) -> list[LearnerAnswers]:
    """Every learner's answers in every lesson: by learner, then in the course's order, so
    a learner's summaries of two lessons are marked one after the other."""
    found = [entry for lesson in lessons for entry in answers_to_review(lesson, progress, names)]
    order = {lesson.id: at for at, lesson in enumerate(lessons)}
    return sorted(found, key=lambda one: (one.name.casefold(), one.learner, order[one.lesson]))
