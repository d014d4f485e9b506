"""The lesson format as pydantic models: the lesson card, each page kind, quiz, summary.

Field names are the authors' contract (spec, "Content format"); a model per page kind lets
each screen trust its front matter once `tutor check` has passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from tutor.content.problems import Problem
from tutor.content.widgets import WidgetConfig

LESSON_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class ContentModel(BaseModel):
    """Base of every front-matter model: a misspelt field is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Prerequisite(ContentModel):
    """Either another lesson (checked to exist) or assumed knowledge in words."""

    lesson: str | None = None
    knowledge: str | None = None

    @field_validator("knowledge")
    @classmethod
    def _exactly_one(cls, knowledge: str | None, info: ValidationInfo) -> str | None:
        has_lesson = info.data.get("lesson") is not None
        if has_lesson == (knowledge is not None):
            raise ValueError("a prerequisite is either `lesson: <id>` or `knowledge: <text>`")
        return knowledge


class LessonCard(ContentModel):
    """Front matter of lesson.md: what the lesson asks, promises and leaves for later."""

    id: str
    title: str
    question: str
    topic: str
    objectives: list[str] = Field(min_length=1)
    prerequisites: list[Prerequisite] = []
    outcome: str
    warning: str | None = None
    next: list[str] = []

    @field_validator("id")
    @classmethod
    def _id_is_a_slug(cls, lesson_id: str) -> str:
        if not LESSON_ID.fullmatch(lesson_id):
            raise ValueError(
                f"lesson id {lesson_id!r} must be lowercase letters, digits and '-' "
                "(it is typed in `tutor lesson ID`)"
            )
        return lesson_id


class Choice(ContentModel):
    text: str
    correct: bool = False
    explain: str


QuestionType = Literal["single", "multiple", "numeric", "text"]


class Question(ContentModel):
    """One quiz question; which fields it needs depends on its type."""

    id: str
    type: QuestionType
    prompt: str
    choices: list[Choice] = Field(default=[], validate_default=True)
    answer: float | None = Field(default=None, validate_default=True)
    tolerance: float | None = Field(default=None, ge=0, validate_default=True)
    unit: str = ""
    rubric: list[str] = Field(default=[], validate_default=True)
    explain: str = ""

    @field_validator("choices")
    @classmethod
    def _choices_fit_type(cls, choices: list[Choice], info: ValidationInfo) -> list[Choice]:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind is None:
            return choices
        if kind not in ("single", "multiple"):
            if choices:
                raise ValueError(f"{kind} question {name!r} takes no choices")
            return choices
        if len(choices) < 2:
            raise ValueError(f"{kind}-choice question {name!r} needs at least two choices")
        correct = [number for number, choice in enumerate(choices, 1) if choice.correct]
        if kind == "single" and not correct:
            raise ValueError(
                f"single-choice question {name!r} has no correct choice; mark exactly one"
            )
        if kind == "single" and len(correct) > 1:
            numbers = ", ".join(map(str, correct))
            raise ValueError(
                f"single-choice question {name!r} has {len(correct)} correct choices "
                f"({numbers}); exactly one may be correct"
            )
        if kind == "multiple" and not correct:
            raise ValueError(f"multiple-choice question {name!r} has no correct choice")
        return choices

    @field_validator("answer", "tolerance")
    @classmethod
    def _numeric_fields(cls, value: float | None, info: ValidationInfo) -> float | None:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind == "numeric" and value is None:
            raise ValueError(f"numeric question {name!r} has no {info.field_name}")
        if kind not in (None, "numeric") and value is not None:
            raise ValueError(f"only numeric questions take {info.field_name!r}")
        return value

    @field_validator("rubric")
    @classmethod
    def _text_needs_rubric(cls, rubric: list[str], info: ValidationInfo) -> list[str]:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind == "text" and not rubric:
            raise ValueError(f"text question {name!r} needs a rubric (claim ids)")
        if kind not in (None, "text") and rubric:
            raise ValueError("only text questions take a rubric")
        return rubric


class SummarySection(ContentModel):
    id: str
    title_zh: str
    title_en: str
    lists_misconceptions: bool = False
    """Its text names misconceptions the learner corrected: the grader takes what is
    written there as mentioned, not held."""


def phrase_sets(phrase: str) -> list[list[str]]:
    """`a|b + c|d` -> [[a, b], [c, d]]: one way to say something, as synonym sets that must
    all appear in one clause (any word of each set). Authors write it this way so a claim's
    paraphrases stay readable in the front matter."""
    return [[word.strip() for word in part.split("|")] for part in phrase.split("+")]


def _check_phrase(phrase: str) -> str:
    if any(not word for words in phrase_sets(phrase) for word in words):
        raise ValueError(
            f"phrase {phrase!r} has an empty word: write `a|b + c|d` "
            "(| between synonyms, + between parts that must all appear)"
        )
    return phrase


Phrase = Annotated[str, AfterValidator(_check_phrase)]


class RubricClaim(ContentModel):
    """A key claim and the ways to say it (`phrase_sets`), in Chinese and English.

    The grader (tutor/content/grade.py) credits it only in a clause that asserts it: a
    phrase under 不/没/not… or inside a misconception it contradicts does not count.
    """

    id: str
    claim_zh: str
    claim_en: str
    phrases_zh: list[Phrase] = Field(min_length=1)
    phrases_en: list[Phrase] = Field(min_length=1)


class Misconception(ContentModel):
    """A wrong idea the lesson corrects: how learners put it, which claims it denies, and
    the correction a learner who asserts it reads."""

    id: str
    name_zh: str
    name_en: str
    phrases_zh: list[Phrase] = Field(min_length=1)
    phrases_en: list[Phrase] = Field(min_length=1)
    contradicts: list[str] = []
    correction_zh: str
    correction_en: str


class Summary(ContentModel):
    """The summary form: its sections, the rubric that grades it (claims to make,
    misconceptions to avoid), the reference answer."""

    sections: list[SummarySection] = Field(min_length=1)
    rubric: list[RubricClaim] = Field(min_length=1)
    misconceptions: list[Misconception] = []
    reference: str

    @field_validator("misconceptions")
    @classmethod
    def _contradicts_known_claims(
        cls, misconceptions: list[Misconception], info: ValidationInfo
    ) -> list[Misconception]:
        claims = {claim.id for claim in info.data.get("rubric", [])}
        for misconception in misconceptions:
            unknown = [c for c in misconception.contradicts if c not in claims]
            if claims and unknown:
                raise ValueError(
                    f"misconception {misconception.id!r} contradicts {unknown[0]!r}, "
                    "which is not a claim of this rubric"
                )
        return misconceptions


PageKind = Literal["objectives", "naive", "failure", "fix", "quiz", "wrapup"]


class PageFront(ContentModel):
    kind: PageKind
    title: str


class ObjectivesFront(PageFront):
    kind: Literal["objectives"]


class NaiveFront(PageFront):
    kind: Literal["naive"]


class FailureFront(PageFront):
    kind: Literal["failure"]


class FixFront(PageFront):
    kind: Literal["fix"]


class QuizFront(PageFront):
    """A quiz page holds questions, the summary form, or both."""

    kind: Literal["quiz"]
    questions: list[Question] = []
    summary: Summary | None = Field(default=None, validate_default=True)

    @field_validator("summary")
    @classmethod
    def _not_empty(cls, summary: Summary | None, info: ValidationInfo) -> Summary | None:
        if summary is None and info.data.get("questions") == []:
            raise ValueError("a quiz page needs `questions:`, `summary:` or both")
        return summary


class WrapupFront(PageFront):
    kind: Literal["wrapup"]
    summary: Summary | None = None


PAGE_FRONTS: dict[str, type[PageFront]] = {
    "objectives": ObjectivesFront,
    "naive": NaiveFront,
    "failure": FailureFront,
    "fix": FixFront,
    "quiz": QuizFront,
    "wrapup": WrapupFront,
}


@dataclass(frozen=True, slots=True)
class MarkdownBlock:
    """Prose between widget blocks; may hold {{fact:key}} references."""

    text: str
    line: int


@dataclass(frozen=True, slots=True)
class WidgetBlock:
    """A ```tutor <widget> fence; `line` is the fence's line in the markdown file."""

    widget: str
    config: WidgetConfig
    line: int


BodyBlock = MarkdownBlock | WidgetBlock


@dataclass(frozen=True, slots=True)
class Page:
    path: Path
    number: int
    front: PageFront
    body_blocks: list[BodyBlock]

    @property
    def kind(self) -> str:
        return self.front.kind

    @property
    def title(self) -> str:
        return self.front.title


@dataclass(frozen=True, slots=True)
class Lesson:
    path: Path
    card: LessonCard
    body_blocks: list[BodyBlock]
    pages: list[Page]

    @property
    def id(self) -> str:
        return self.card.id


@dataclass(slots=True)
class LessonSet:
    """Every lesson that loaded, in prerequisite order, and every problem found on the way."""

    lessons: list[Lesson] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "warning"]

    def lesson(self, lesson_id: str) -> Lesson | None:
        return next((lesson for lesson in self.lessons if lesson.id == lesson_id), None)
