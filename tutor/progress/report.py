"""The teacher's report: how each learner, each question and each misconception is doing.

Built from the class's progress (read-only) and the lesson content; the models below are
the JSON `tutor report --json` prints, and the table and CSV are made from them. Guests
are counted (their sessions) and never listed: their progress is not kept. Each claim and
misconception is counted three ways: by the grader, by the learners' own self-check, and
by the teacher's marks (`tutor review`), so the three can be compared.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from pydantic import BaseModel

from tutor.content.grade import SUMMARY, Grade, gradable_items, grade, rubric_for, summary_answer
from tutor.content.models import Lesson, Question, QuizFront, Summary, WrapupFront
from tutor.progress.classview import Attempt, ClassProgress
from tutor.progress.marks import TeacherMarks

FINGERPRINT_SHOWN = 15  # "SHA256:" and the hash's first 8 characters
# The summary section whose text is the learner's open questions, listed for the teacher.
REMAINING_QUESTIONS = "remaining-questions"


class QuestionMark(BaseModel):
    question: str
    attempts: int
    last_right: bool | None  # None: not answered


class LearnerRow(BaseModel):
    name: str
    learner: str
    pages_reached: int
    pages_total: int
    furthest_page: int | None
    last_seen: datetime | None
    questions: list[QuestionMark]
    summary_submitted: bool
    claims_met: list[str] | None  # None: no summary written
    claims_total: int
    misconceptions: list[str]
    # the self-check: of the reference claims of the items the learner checked (summary,
    # text questions), how many they marked as covered by their own answer
    self_check_covered: int
    self_check_total: int


class QuestionRow(BaseModel):
    question: str
    type: str
    prompt: str
    answered: int
    right_first_try: float | None  # share of those who answered
    most_chosen_wrong: str | None
    most_chosen_wrong_count: int  # learners who chose it (each once, however many tries)


class ClaimRow(BaseModel):
    item: str  # the summary or a text question
    claim: str
    grader: int  # learners whose latest answer the grader credits with it
    self_check: int  # learners who ticked it as covered by their answer
    teacher: int  # learners the teacher marked as having met it


class MisconceptionRow(BaseModel):
    misconception: str
    learners: int  # learners in whose answers the grader found it
    grader_fixed: int = 0  # learners who named it among the misconceptions they corrected
    teacher_held: int = 0  # learners the teacher marked as still holding it
    teacher_fixed: int = 0  # learners the teacher marked as having fixed it


class RemainingQuestion(BaseModel):
    name: str
    learner: str
    text: str


class LessonReport(BaseModel):
    lesson: str
    title: str
    learners: list[LearnerRow]
    questions: list[QuestionRow]
    claims: list[ClaimRow]
    misconceptions: list[MisconceptionRow]
    remaining_questions: list[RemainingQuestion]


class ClassReport(BaseModel):
    generated_at: datetime
    source: str
    guest_sessions: int
    lessons: list[LessonReport]


def display_name(learner: str, names: dict[str, str]) -> str:
    """The key's comment from the authorized-keys file, else the fingerprint's start; as
    written (every output makes it printable: tutor.core.printable)."""
    if learner in names:
        return names[learner]
    if learner.startswith("SHA256:") and len(learner) > FINGERPRINT_SHOWN:
        return learner[:FINGERPRINT_SHOWN] + "…"
    return learner


def _when(stamp: float | None) -> datetime | None:
    return datetime.fromtimestamp(stamp, UTC) if stamp else None


def quiz_questions(lesson: Lesson) -> list[Question]:
    """Every quiz question of the lesson, in order: Q1, Q2 … in the report and the review."""
    return [
        q
        for page in lesson.pages
        if isinstance(page.front, QuizFront)
        for q in page.front.questions
    ]


def lesson_summary(lesson: Lesson) -> Summary | None:
    """The lesson's summary form, on whichever page holds it."""
    for page in lesson.pages:
        if isinstance(page.front, QuizFront | WrapupFront) and page.front.summary is not None:
            return page.front.summary
    return None


def misconception_names(lesson: Lesson, lang: str) -> dict[str, str]:
    """Each misconception's wording in the lesson, by id, in Chinese or (`en`) English."""
    summary = lesson_summary(lesson)
    if summary is None:
        return {}
    return {m.id: m.name_en if lang == "en" else m.name_zh for m in summary.misconceptions}


def claim_names(lesson: Lesson, lang: str) -> dict[str, str]:
    """Each claim's wording in the lesson, by id, in Chinese or (`en`) English."""
    summary = lesson_summary(lesson)
    if summary is None:
        return {}
    return {c.id: c.claim_en if lang == "en" else c.claim_zh for c in summary.rubric}


def _graded(lesson: Lesson, item: str, text: str) -> Grade | None:
    """What the lesson's grader (the one the quiz uses) reads in a learner's text."""
    if not text.strip():
        return None
    return grade(rubric_for(lesson, item), text)


def _wrong_choice(question: Question, attempts: list[Attempt]) -> tuple[str | None, int]:
    """The wrong option (or value) chosen by the most learners, and by how many: each
    learner counts once per option, however often they retried it."""
    chosen: dict[str, set[str]] = {}
    for attempt in attempts:
        if attempt.correct:
            continue
        answer = attempt.answer
        if question.type == "single" and isinstance(answer, int):
            picked = [answer]
        elif question.type == "multiple" and isinstance(answer, list):
            picked = [i for i in answer if isinstance(i, int)]
        elif question.type == "numeric":
            chosen.setdefault(str(answer).strip(), set()).add(attempt.learner)
            continue
        else:
            continue
        for index in picked:
            if 0 <= index < len(question.choices) and not question.choices[index].correct:
                option = f"{index + 1}. {question.choices[index].text}"
                chosen.setdefault(option, set()).add(attempt.learner)
    if not chosen:
        return None, 0
    (value, count), *_ = Counter({value: len(who) for value, who in chosen.items()}).most_common(1)
    return value, count


def lesson_report(lesson: Lesson, progress: ClassProgress, names: dict[str, str]) -> LessonReport:
    questions = quiz_questions(lesson)
    summary = lesson_summary(lesson)
    numbers = {page.number for page in lesson.pages}
    rubric_sizes = {q.id: len(q.rubric) for q in questions if q.type == "text"}
    if summary is not None:
        rubric_sizes[SUMMARY] = len(summary.rubric)
    attempts = [a for a in progress.attempts if a.lesson == lesson.id]
    rows: list[LearnerRow] = []
    showing: dict[str, set[str]] = {}  # misconception -> learners
    fixing: dict[str, set[str]] = {}  # misconception -> learners who wrote it corrected
    credited: Counter[tuple[str, str]] = Counter()  # (item, claim) -> learners, by the grader
    for learner in progress.learners(lesson.id):
        visits = {
            page: times
            for (who, les, page), times in progress.visits.items()
            if who == learner and les == lesson.id
        }
        theirs = [a for a in attempts if a.learner == learner]
        texts = progress.summaries.get((learner, lesson.id), {})
        stamps = [last for _, last, _ in visits.values()] + [a.at for a in theirs]
        stamps += [progress.summary_times.get((learner, lesson.id), 0.0)]
        stamps += [progress.sessions_seen.get(learner, 0.0)]
        marks = []
        for question in questions:
            tries = [a for a in theirs if a.question == question.id]
            marks.append(
                QuestionMark(
                    question=question.id,
                    attempts=len(tries),
                    last_right=tries[-1].correct if tries else None,
                )
            )
        claims_met = None
        found: set[str] = set()
        graded = _graded(lesson, SUMMARY, summary_answer(summary, texts)) if summary else None
        if graded is not None:
            claims_met = [claim.id for claim in graded.met]
            found |= {misconception.id for misconception in graded.matched}
            for misconception in graded.fixed:
                fixing.setdefault(misconception.id, set()).add(learner)
            credited.update((SUMMARY, claim.id) for claim in graded.met)
        for question in questions:
            tries = [a for a in theirs if a.question == question.id]
            if question.type == "text" and tries and isinstance(tries[-1].answer, str):
                answer = _graded(lesson, question.id, tries[-1].answer)
                if answer is not None:
                    found |= {misconception.id for misconception in answer.matched}
                    credited.update((question.id, claim.id) for claim in answer.met)
        for misconception in found:
            showing.setdefault(misconception, set()).add(learner)
        checked = {
            item: claims
            for (who, les, item), claims in progress.self_checks.items()
            if who == learner and les == lesson.id
        }
        reached = sorted(page for page in visits if page in numbers)
        rows.append(
            LearnerRow(
                name=display_name(learner, names),
                learner=learner,
                pages_reached=len(reached),
                pages_total=len(lesson.pages),
                furthest_page=reached[-1] if reached else None,
                last_seen=_when(max(stamps)),
                questions=marks,
                summary_submitted=(learner, lesson.id) in progress.submitted,
                claims_met=claims_met,
                claims_total=len(summary.rubric) if summary else 0,
                misconceptions=sorted(found),
                self_check_covered=sum(len(claims) for claims in checked.values()),
                self_check_total=sum(rubric_sizes.get(item, 0) for item in checked),
            )
        )
    rows.sort(key=lambda row: (row.name.casefold(), row.learner))
    question_rows = []
    for question in questions:
        tries = [a for a in attempts if a.question == question.id]
        first: dict[str, bool] = {}
        for attempt in tries:
            first.setdefault(attempt.learner, attempt.correct)
        wrong, wrong_count = _wrong_choice(question, tries)
        question_rows.append(
            QuestionRow(
                question=question.id,
                type=question.type,
                prompt=question.prompt,
                answered=len(first),
                right_first_try=sum(first.values()) / len(first) if first else None,
                most_chosen_wrong=wrong,
                most_chosen_wrong_count=wrong_count,
            )
        )
    marks = {
        (learner, item): given
        for (learner, les, item), given in progress.teacher_marks.items()
        if les == lesson.id
    }
    return LessonReport(
        lesson=lesson.id,
        title=lesson.card.title,
        learners=rows,
        questions=question_rows,
        claims=_claim_rows(lesson, progress, credited, marks),
        misconceptions=_misconception_rows(showing, fixing, marks),
        remaining_questions=[
            RemainingQuestion(name=row.name, learner=row.learner, text=text.strip())
            for row in rows
            if (
                text := progress.summaries.get((row.learner, lesson.id), {}).get(
                    REMAINING_QUESTIONS, ""
                )
            ).strip()
        ],
    )


def _claim_rows(
    lesson: Lesson,
    progress: ClassProgress,
    credited: Counter[tuple[str, str]],
    marks: dict[tuple[str, str], TeacherMarks],
) -> list[ClaimRow]:
    """Each claim of each gradable item with its three counts (module docstring)."""
    ticked: Counter[tuple[str, str]] = Counter()
    for (_learner, les, item), claims in progress.self_checks.items():
        if les == lesson.id:
            ticked.update((item, claim) for claim in set(claims))
    by_teacher: Counter[tuple[str, str]] = Counter()
    for (_learner, item), given in marks.items():
        by_teacher.update((item, claim) for claim, met in given.claims.items() if met)
    return [
        ClaimRow(
            item=item,
            claim=claim.id,
            grader=credited[(item, claim.id)],
            self_check=ticked[(item, claim.id)],
            teacher=by_teacher[(item, claim.id)],
        )
        for item in gradable_items(lesson)
        for claim in rubric_for(lesson, item).claims
    ]


def _misconception_rows(
    showing: dict[str, set[str]],
    fixing: dict[str, set[str]],
    marks: dict[tuple[str, str], TeacherMarks],
) -> list[MisconceptionRow]:
    """Each misconception the grader found (held or corrected) or the teacher marked, most
    learners first; a learner counts once however many of their answers show it."""
    teacher: dict[str, dict[str, set[str]]] = {}  # misconception -> held/fixed -> learners
    for (learner, _item), given in marks.items():
        for misconception, state in given.misconceptions.items():
            teacher.setdefault(misconception, {}).setdefault(state, set()).add(learner)
    rows = [
        MisconceptionRow(
            misconception=name,
            learners=len(showing.get(name, ())),
            grader_fixed=len(fixing.get(name, ())),
            teacher_held=len(teacher.get(name, {}).get("held", ())),
            teacher_fixed=len(teacher.get(name, {}).get("fixed", ())),
        )
        for name in showing.keys() | fixing.keys() | teacher.keys()
    ]
    return sorted(rows, key=lambda row: (-row.learners, -row.teacher_held, row.misconception))


def class_report(
    lessons: list[Lesson], progress: ClassProgress, names: dict[str, str], source: str
) -> ClassReport:
    return ClassReport(
        generated_at=datetime.now(UTC),
        source=source,
        guest_sessions=progress.guest_sessions,
        lessons=[lesson_report(lesson, progress, names) for lesson in lessons],
    )
