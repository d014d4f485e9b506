"""The lesson format as pydantic models: the lesson card, each page kind, quiz, summary.

Field names are the authors' contract (spec, "Content format"); a model per page kind lets
each screen trust its front matter once `tutor check` has passed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationInfo,
    field_validator,
)

from tutor.content.problems import Invalid, Problem
from tutor.content.widgets import WIDGETS, WidgetConfig

LESSON_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class ContentModel(BaseModel):
    """Base of every front-matter model: a misspelt field is an error, not silently ignored."""

    # a field's docstring is its description in `tutor check --schema` and content/README.md
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Prerequisite(ContentModel):
    """Either another lesson (checked to exist) or assumed knowledge in words."""

    lesson: str | None = None
    """Id of another lesson beside this one, to finish first."""
    knowledge: str | None = None
    """What the learner should already know, in words."""

    @field_validator("knowledge")
    @classmethod
    def _exactly_one(cls, knowledge: str | None, info: ValidationInfo) -> str | None:
        has_lesson = info.data.get("lesson") is not None
        if has_lesson == (knowledge is not None):
            raise Invalid(
                "a prerequisite is either `lesson: <id>` or `knowledge: <text>`",
                "prerequisite_either",
            )
        return knowledge


class LessonCard(ContentModel):
    """Front matter of lesson.md: what the lesson asks, promises and leaves for later."""

    id: str
    """The lesson id: the folder's name; lowercase letters, digits and '-'."""
    title: str
    """The lesson's name in the lesson list."""
    question: str
    """The one question the lesson answers."""
    topic: str
    """The subject area, shown on the lesson card."""
    objectives: list[str] = Field(min_length=1)
    """What the learner can do afterwards; at least one."""
    prerequisites: list[Prerequisite] = []
    """Lessons that come first (unfinished: a note, never a lock), or knowledge assumed."""
    outcome: str
    """What the learner leaves with, in one sentence."""
    warning: str | None = None
    """A common misunderstanding to warn about (optional)."""
    next: list[str] = []
    """What the lesson leaves for later."""
    next_lesson: str | None = None
    """Id of the lesson after this one in the course; its last page opens it with one key."""

    @field_validator("id")
    @classmethod
    def _id_is_a_slug(cls, lesson_id: str) -> str:
        if not LESSON_ID.fullmatch(lesson_id):
            raise Invalid(
                f"lesson id {lesson_id!r} must be lowercase letters, digits and '-' "
                "(it is typed in `tutor lesson ID`)",
                "lesson_id_form",
                id=lesson_id,
            )
        return lesson_id


class Choice(ContentModel):
    """One answer offered by a single- or multiple-choice question."""

    text: str
    """The choice as the learner reads it."""
    correct: bool = False
    """Whether this choice is right."""
    explain: str
    """Shown after the learner picks it: why it is right or wrong."""


class Mistake(ContentModel):
    """A wrong number a learner is likely to give, and why it is tempting."""

    value: float
    """The wrong number (matched within the question's tolerance)."""
    explain: str
    """Shown when the learner gives it."""


QuestionType = Literal["single", "multiple", "numeric", "text"]


class Question(ContentModel):
    """One quiz question; which fields it needs depends on its type."""

    id: str
    """Unique within the lesson; progress is saved under it."""
    type: QuestionType
    """single or multiple choice, a numeric answer, or free text graded by a rubric."""
    prompt: str
    """The question (markdown; may hold {{fact:key}})."""
    choices: list[Choice] = Field(default=[], validate_default=True)
    """single: two or more, exactly one correct; multiple: at least one correct."""
    answer: float | None = Field(default=None, validate_default=True)
    """numeric questions: the right value."""
    tolerance: float | None = Field(default=None, ge=0, validate_default=True)
    """numeric questions: how far from answer still counts (0 = exact)."""
    unit: str = ""
    """numeric questions: the unit shown after the input."""
    mistakes: list[Mistake] = []
    """numeric questions: tempting wrong numbers, each explained (others get explain)."""
    rubric: list[str] = Field(default=[], validate_default=True)
    """text questions: ids of claims in the lesson's summary rubric."""
    explain: str = ""
    """Shown once the question is answered."""

    @field_validator("choices")
    @classmethod
    def _choices_fit_type(cls, choices: list[Choice], info: ValidationInfo) -> list[Choice]:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind is None:
            return choices
        if kind not in ("single", "multiple"):
            if choices:
                raise Invalid(
                    f"{kind} question {name!r} takes no choices", "no_choices", type=kind, id=name
                )
            return choices
        if len(choices) < 2:
            raise Invalid(
                f"{kind}-choice question {name!r} needs at least two choices",
                "two_choices",
                type=kind,
                id=name,
            )
        correct = [number for number, choice in enumerate(choices, 1) if choice.correct]
        if kind == "single" and not correct:
            raise Invalid(
                f"single-choice question {name!r} has no correct choice; mark exactly one",
                "single_no_correct",
                id=name,
            )
        if kind == "single" and len(correct) > 1:
            numbers = ", ".join(map(str, correct))
            raise Invalid(
                f"single-choice question {name!r} has {len(correct)} correct choices "
                f"({numbers}); exactly one may be correct",
                "single_many_correct",
                id=name,
                count=len(correct),
                numbers=numbers,
            )
        if kind == "multiple" and not correct:
            raise Invalid(
                f"multiple-choice question {name!r} has no correct choice",
                "multiple_no_correct",
                id=name,
            )
        return choices

    @field_validator("answer", "tolerance")
    @classmethod
    def _numeric_fields(cls, value: float | None, info: ValidationInfo) -> float | None:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind == "numeric" and value is None:
            raise Invalid(
                f"numeric question {name!r} has no {info.field_name}",
                "numeric_without",
                id=name,
                field=info.field_name,
            )
        if kind not in (None, "numeric") and value is not None:
            raise Invalid(
                f"only numeric questions take {info.field_name!r}",
                "numeric_only",
                field=info.field_name,
            )
        return value

    @field_validator("mistakes")
    @classmethod
    def _mistakes_are_numeric(cls, mistakes: list[Mistake], info: ValidationInfo) -> list[Mistake]:
        if info.data.get("type") not in (None, "numeric") and mistakes:
            raise Invalid(
                "only numeric questions take 'mistakes'", "numeric_only", field="mistakes"
            )
        return mistakes

    @field_validator("rubric")
    @classmethod
    def _text_needs_rubric(cls, rubric: list[str], info: ValidationInfo) -> list[str]:
        kind, name = info.data.get("type"), info.data.get("id", "?")
        if kind == "text" and not rubric:
            raise Invalid(
                f"text question {name!r} needs a rubric (claim ids)", "text_without_rubric", id=name
            )
        if kind not in (None, "text") and rubric:
            raise Invalid("only text questions take a rubric", "rubric_only_text")
        return rubric


class SummarySection(ContentModel):
    """One part of the learner's summary, with its own text box."""

    id: str
    """Where the learner's text for this section is saved."""
    title_zh: str
    """The section's heading in Chinese."""
    title_en: str
    """The section's heading in English."""
    lists_misconceptions: bool = False
    """Its text names misconceptions the learner corrected: the grader lists each one it
    recognises there as fixed (credit), never as held."""
    lists_questions: bool = False
    """Its text is the learner's open questions: the grader reads no claim and no
    misconception in it, and the teacher's report shows it as written."""


def phrase_sets(phrase: str) -> list[list[str]]:
    """`a|b + c|d` -> [[a, b], [c, d]]: one way to say something, as synonym sets that must
    all appear in one clause (any word of each set). Authors write it this way so a claim's
    paraphrases stay readable in the front matter."""
    return [[word.strip() for word in part.split("|")] for part in phrase.split("+")]


def _check_phrase(phrase: str) -> str:
    if any(not word for words in phrase_sets(phrase) for word in words):
        raise Invalid(
            f"phrase {phrase!r} has an empty word: write `a|b + c|d` "
            "(| between synonyms, + between parts that must all appear)",
            "phrase_empty_word",
            phrase=phrase,
        )
    return phrase


Phrase = Annotated[str, AfterValidator(_check_phrase)]


class RubricClaim(ContentModel):
    """A key claim and the ways to say it (`phrase_sets`), in Chinese and English.

    The grader (tutor/content/grade.py) credits it only in a clause that asserts it: a
    phrase under 不/没/not…, in a question, or in a clause stating any misconception does
    not count. So a phrase names the claim's parts, not one keyword (`id + 是 + 行号`).
    """

    id: str
    """Named by text questions' rubric lists."""
    claim_zh: str
    """The claim in Chinese, shown in feedback."""
    claim_en: str
    """The claim in English, shown in feedback."""
    phrases_zh: list[Phrase] = Field(min_length=1)
    """Chinese ways to say it (`a|b + c|d`: | between synonyms, + between parts that must
    all appear in one clause); any one, asserted, covers the claim."""
    phrases_en: list[Phrase] = Field(min_length=1)
    """English ways to say it, written like `phrases_zh`."""


class Misconception(ContentModel):
    """A wrong idea the lesson corrects: how learners put it, which claims it denies, and
    the correction a learner who asserts it reads."""

    id: str
    """Named in grading results and the teacher's report."""
    name_zh: str
    """The misconception, stated in Chinese."""
    name_en: str
    """The misconception, stated in English."""
    phrases_zh: list[Phrase] = Field(min_length=1)
    """Chinese ways learners assert it, written like a claim's phrases."""
    phrases_en: list[Phrase] = Field(min_length=1)
    """English ways learners assert it."""
    contradicts: list[str] = []
    """Ids of rubric claims it denies: never credited in the same answer's clause."""
    correction_zh: str
    """What a learner who asserts it reads, in Chinese."""
    correction_en: str
    """What a learner who asserts it reads, in English."""


class Summary(ContentModel):
    """The summary form: its sections, the rubric that grades it (claims to make,
    misconceptions to avoid), the reference answer."""

    sections: list[SummarySection] = Field(min_length=1)
    """The parts of the learner's summary; at least one."""
    rubric: list[RubricClaim] = Field(min_length=1)
    """The key claims a good summary covers; at least one."""
    misconceptions: list[Misconception] = []
    """Wrong ideas the grader looks for, each with its correction."""
    reference: str
    """A model answer (markdown), shown after the learner submits."""

    @field_validator("misconceptions")
    @classmethod
    def _contradicts_known_claims(
        cls, misconceptions: list[Misconception], info: ValidationInfo
    ) -> list[Misconception]:
        claims = {claim.id for claim in info.data.get("rubric", [])}
        for misconception in misconceptions:
            unknown = [c for c in misconception.contradicts if c not in claims]
            if claims and unknown:
                raise Invalid(
                    f"misconception {misconception.id!r} contradicts {unknown[0]!r}, "
                    "which is not a claim of this rubric",
                    "contradicts_unknown",
                    misconception=misconception.id,
                    claim=unknown[0],
                )
        return misconceptions


PageKind = Literal["objectives", "naive", "failure", "fix", "quiz", "wrapup"]


class PageFront(ContentModel):
    """Front matter every page has; the kinds below add their own fields."""

    kind: PageKind
    """Which screen shows the page."""
    title: str
    """The page's heading and its name in the page list."""


class ObjectivesFront(PageFront):
    """The lesson's goals, before anything is explained."""

    kind: Literal["objectives"]
    """`objectives`: which screen shows the page."""


class NaiveFront(PageFront):
    """The naive idea, tried honestly."""

    kind: Literal["naive"]
    """`naive`: which screen shows the page."""


class FailureFront(PageFront):
    """Where the naive idea fails, shown on real data."""

    kind: Literal["failure"]
    """`failure`: which screen shows the page."""


class FixFront(PageFront):
    """The fix, and why it works."""

    kind: Literal["fix"]
    """`fix`: which screen shows the page."""


class QuizFront(PageFront):
    """A quiz page holds questions, the summary form, or both."""

    kind: Literal["quiz"]
    """`quiz`: which screen shows the page."""
    questions: list[Question] = []
    """The quiz questions, in order."""
    summary: Summary | None = Field(default=None, validate_default=True)
    """The summary form, with its rubric."""

    @field_validator("summary")
    @classmethod
    def _not_empty(cls, summary: Summary | None, info: ValidationInfo) -> Summary | None:
        if summary is None and info.data.get("questions") == []:
            raise Invalid("a quiz page needs `questions:`, `summary:` or both", "quiz_empty")
        return summary


class WrapupFront(PageFront):
    """The end of the lesson: what was learned, optionally the summary form."""

    kind: Literal["wrapup"]
    """`wrapup`: which screen shows the page."""
    summary: Summary | None = None
    """The summary form, with its rubric (optional)."""


PAGE_FRONTS: dict[str, type[PageFront]] = {
    "objectives": ObjectivesFront,
    "naive": NaiveFront,
    "failure": FailureFront,
    "fix": FixFront,
    "quiz": QuizFront,
    "wrapup": WrapupFront,
}


class MarkdownBlock(ContentModel):
    """Prose between widget blocks; may hold {{fact:key}} references."""

    text: str
    line: int


class WidgetBlock(ContentModel):
    """A ```tutor <widget> fence; `line` is the fence's line in the markdown file."""

    widget: str
    config: SerializeAsAny[WidgetConfig]  # dumped with the fields of its own widget
    line: int

    @field_validator("config", mode="before")
    @classmethod
    def _config_of_its_widget(cls, config: object, info: ValidationInfo) -> object:
        if isinstance(config, dict) and info.data.get("widget") in WIDGETS:
            return WIDGETS[info.data["widget"]].model_validate(config)
        return config


BodyBlock = MarkdownBlock | WidgetBlock


class Page(ContentModel):
    """One page: where it was read from, its number, front matter and body."""

    path: Path
    number: int
    front: SerializeAsAny[PageFront]  # dumped with the fields of its own kind
    body_blocks: list[BodyBlock]

    @field_validator("front", mode="before")
    @classmethod
    def _front_of_its_kind(cls, front: object) -> object:
        if isinstance(front, dict) and front.get("kind") in PAGE_FRONTS:
            return PAGE_FRONTS[front["kind"]].model_validate(front)
        return front

    @property
    def kind(self) -> str:
        return self.front.kind

    @property
    def title(self) -> str:
        return self.front.title


class Lesson(ContentModel):
    path: Path
    card: LessonCard
    body_blocks: list[BodyBlock]
    pages: list[Page]

    @property
    def id(self) -> str:
        return self.card.id


class LessonSet(BaseModel):
    """Every lesson that loaded, in prerequisite order, and every problem found on the way.

    Its JSON form (`model_dump(mode="json")`) is what the content cache keeps, and
    `model_validate` rebuilds it; the lesson index reads that form with json alone.
    """

    lessons: list[Lesson] = []
    problems: list[Problem] = []

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "warning"]

    def lesson(self, lesson_id: str) -> Lesson | None:
        return next((lesson for lesson in self.lessons if lesson.id == lesson_id), None)
