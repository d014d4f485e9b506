"""A rubric measured like a model: the grader's verdicts against answers labelled by hand.

An author writes answers as learners write them, labels each (claims a fair teacher
credits, misconceptions held, rejected, fixed), and `tutor grade --eval` reports precision
and recall per claim and per misconception, the answers graded wrong, and the targets below.
A fifth of the answers, picked by a hash of their id before any phrase is tuned, is held
out: its figures say how the rubric does on answers nobody tuned it for.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tutor.content.grade import Grade, Rubric, gradable_items, grade, rubric_for
from tutor.content.models import Lesson
from tutor.content.problems import Problem
from tutor.content.source import (
    SourceFile,
    YamlDoc,
    close_to,
    did_you_mean,
    parse_yaml,
    validate,
)

# A labelled set is a few hundred answers (the embedding lesson's: 240, 41 kB). Its YAML is
# read under the lesson files' limits too (tutor.content.source: 10,000 values at most).
MAX_ANSWERS = 1_000
MAX_FILE_BYTES = 500_000  # 1,000 answers of a short summary each
HELD_OUT_EVERY = 5  # an answer is held out when the CRC-32 of its id divides by this

Part = Literal["held-out", "tuning", "all"]

# What the grader must do on the held-out part (content/README.md, "Testing a rubric").
MIN_CLAIM_PRECISION = 0.95
MIN_CLAIM_RECALL = 0.8
MIN_MISCONCEPTION_RECALL = 0.9


class LabelledAnswer(BaseModel):
    """One answer and what a fair teacher reads in it; a list left out is empty."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    """Stable: the held-out split is a hash of it."""
    item: str
    """The text question's id, or `summary` (then headings name its sections)."""
    text: str
    held_out: bool = False
    """Marked where the id's hash says so (`held_out_by_hash`), never by hand."""
    claims: list[str] = []
    """The claims credited; every other claim of the item is not met."""
    held: list[str] = []
    """Misconceptions stated as the learner's own."""
    rejected: list[str] = []
    """Misconceptions named only to reject them: quoted, retracted, negated, asked about."""
    fixed: list[str] = []
    """Misconceptions listed under the summary's section of corrected ones."""


class LabelledSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    lesson: str
    answers: list[LabelledAnswer] = Field(min_length=1, max_length=MAX_ANSWERS)


def held_out_by_hash(answer_id: str) -> bool:
    """Decided by the id alone, so no one picks the held-out answers by how they grade."""
    return zlib.crc32(answer_id.encode("utf-8")) % HELD_OUT_EVERY == 0


def read_labelled(
    path: Path, lessons: dict[str, Lesson]
) -> tuple[LabelledSet | None, list[Problem]]:
    """The labelled set, or its problems as `path:line:col` (bad YAML, a field out of place,
    an unknown lesson, item, claim or misconception, a duplicate id, a wrong held-out mark).
    Raises OSError if the file cannot be read."""
    source, problem = _read(path)
    if source is None:
        return None, [problem]
    doc, problem = parse_yaml(source, "\n".join(source.lines), 1)
    if doc is None:
        return None, [problem] if problem else []
    labelled, problems = validate(LabelledSet, doc, source)
    if labelled is None:
        return None, problems
    lesson = lessons.get(labelled.lesson)
    if lesson is None:
        line, col = doc.position(("lesson",))
        known = ", ".join(lessons) or "-"
        message = f"no lesson {labelled.lesson!r} (lessons: {known})"
        return None, [
            source.problem(
                line, col, message, code="eval_no_lesson", lesson=labelled.lesson, known=known
            )
        ]
    return labelled, _label_problems(labelled, lesson, doc, source)


def _read(path: Path) -> tuple[SourceFile, None] | tuple[None, Problem]:
    """The file's lines, or why they cannot be a labelled set (too large, not UTF-8), at
    line 1; OSError if it cannot be read (the command says why in its language)."""
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        message = (
            f"more than {MAX_FILE_BYTES:,} bytes; a labelled set holds at most "
            f"{MAX_ANSWERS:,} answers: split it into several files"
        )
        values = {"limit": f"{MAX_FILE_BYTES:,}", "answers": f"{MAX_ANSWERS:,}"}
        return None, Problem(path, 1, 1, "error", message, code="eval_too_large", values=values)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        message = "the labelled answers are not UTF-8 text"
        return None, Problem(path, 1, 1, "error", message, code="eval_not_utf8")
    return SourceFile(path, text.removeprefix("\ufeff").splitlines()), None


def _label_problems(
    labelled: LabelledSet, lesson: Lesson, doc: YamlDoc, source: SourceFile
) -> list[Problem]:
    items = gradable_items(lesson)
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, answer in enumerate(labelled.answers):
        at = ("answers", index)
        if answer.id in seen:
            line, col = doc.position((*at, "id"))
            message = f"answer id {answer.id!r} is used twice; ids decide the held-out part"
            problems.append(
                source.problem(line, col, message, code="eval_duplicate_id", id=answer.id)
            )
        seen.add(answer.id)
        if answer.held_out != held_out_by_hash(answer.id):
            line, col = doc.position((*at, "id"))
            should = str(held_out_by_hash(answer.id)).lower()
            message = (
                f"answer {answer.id!r} must have held_out: {should}: the held-out part is "
                "chosen by the id's hash, never by hand"
            )
            problems.append(
                source.problem(
                    line, col, message, code="eval_held_out_mark", id=answer.id, should=should
                )
            )
        if answer.item not in items:
            line, col = doc.position((*at, "item"))
            listed = ", ".join(items)
            message = f"{answer.item!r} is not a gradable item of this lesson ({listed})"
            problems.append(
                source.problem(
                    line,
                    col,
                    message,
                    code="eval_unknown_item",
                    item=answer.item,
                    items=listed,
                )
            )
            continue
        rubric = rubric_for(lesson, answer.item)
        claims = [claim.id for claim in rubric.claims]
        misconceptions = [m.id for m in rubric.misconceptions]
        for field, known in (
            ("claims", claims),
            ("held", misconceptions),
            ("rejected", misconceptions),
            ("fixed", misconceptions),
        ):
            for number, label in enumerate(getattr(answer, field)):
                if label in known:
                    continue
                line, col = doc.position((*at, field, number))
                suggestion = close_to(label, known)
                listed = ", ".join(known)
                message = (
                    f"{label!r} is not a claim or misconception id of {answer.item!r} ({listed})"
                    + did_you_mean(suggestion)
                )
                problems.append(
                    source.problem(
                        line,
                        col,
                        message,
                        width=len(label),
                        code="eval_unknown_label",
                        label=label,
                        item=answer.item,
                        known=listed,
                        suggestion=suggestion,
                    )
                )
    return problems


# scoring ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Score:
    """One claim's or misconception's counts over the answers whose item has it."""

    id: str
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0

    @property
    def precision(self) -> float | None:
        said = self.true_positive + self.false_positive
        return self.true_positive / said if said else None

    @property
    def recall(self) -> float | None:
        labelled = self.true_positive + self.false_negative
        return self.true_positive / labelled if labelled else None

    def count(self, labelled: bool, found: bool) -> None:
        self.true_positive += labelled and found
        self.false_positive += found and not labelled
        self.false_negative += labelled and not found


class GradedWrong(BaseModel):
    """An answer on which the grader and the labels disagree, and how."""

    id: str
    item: str
    text: str
    claims_extra: list[str] = []
    claims_missed: list[str] = []
    held_extra: list[str] = []
    held_missed: list[str] = []
    fixed_missed: list[str] = []
    undecided: list[str] = []


class Target(BaseModel):
    name: str
    value: float | None
    target: str
    met: bool


class Evaluation(BaseModel):
    """`tutor grade --eval --json` prints this, one per part."""

    part: Part
    answers: int
    claims: dict[str, dict[str, float | int | None]]
    misconceptions: dict[str, dict[str, float | int | None]]
    claim_precision: float | None
    claim_recall: float | None
    misconception_precision: float | None
    misconception_recall: float | None
    contradicted_claims: int
    """Claims credited in an answer that holds a misconception contradicting them."""
    rejected_held: int
    """Rejected or fixed misconceptions the grader took as held."""
    rejected_withdrew: int
    """Claims withdrawn by a misconception the answer rejects or lists as fixed."""
    undecided: int
    wrong: list[GradedWrong]
    targets: list[Target]

    @property
    def targets_met(self) -> bool:
        return all(target.met for target in self.targets)


def evaluate(labelled: LabelledSet, lesson: Lesson, part: Part) -> Evaluation:
    """Grade every answer of `part` and compare with its labels."""
    chosen = [
        answer
        for answer in labelled.answers
        if part == "all" or (part == "held-out") == held_out_by_hash(answer.id)
    ]
    rubrics: dict[str, Rubric] = {}
    claims: dict[str, Score] = {}
    misconceptions: dict[str, Score] = {}
    wrong: list[GradedWrong] = []
    contradicted = rejected_held = rejected_withdrew = undecided = 0
    for answer in chosen:
        rubric = rubrics.get(answer.item) or rubrics.setdefault(
            answer.item, rubric_for(lesson, answer.item)
        )
        result = grade(rubric, answer.text)
        met = {claim.id for claim in result.met}
        held = {m.id for m in result.matched}
        for claim in rubric.claims:
            claims.setdefault(claim.id, Score(claim.id)).count(
                claim.id in answer.claims, claim.id in met
            )
        for m in rubric.misconceptions:
            misconceptions.setdefault(m.id, Score(m.id)).count(m.id in answer.held, m.id in held)
            if m.id in answer.held:
                contradicted += len(met & set(m.contradicts))
        named = set(answer.rejected) | set(answer.fixed)
        rejected_held += len(held & named)
        rejected_withdrew += sum(1 for claim in result.claims if claim.contradicted_by in named)
        unsure = [c.id for c in result.claims if c.status == "undecided"]
        unsure += [m.id for m in result.misconceptions if m.status == "undecided"]
        undecided += len(unsure)
        miss = _disagreement(answer, result, met, held, unsure)
        if miss is not None:
            wrong.append(miss)
    claim_total = _total(claims.values())
    misconception_total = _total(misconceptions.values())
    evaluation = Evaluation(
        part=part,
        answers=len(chosen),
        claims={key: _figures(score) for key, score in claims.items()},
        misconceptions={key: _figures(score) for key, score in misconceptions.items()},
        claim_precision=claim_total.precision,
        claim_recall=claim_total.recall,
        misconception_precision=misconception_total.precision,
        misconception_recall=misconception_total.recall,
        contradicted_claims=contradicted,
        rejected_held=rejected_held,
        rejected_withdrew=rejected_withdrew,
        undecided=undecided,
        wrong=wrong,
        targets=[],
    )
    evaluation.targets = _targets(evaluation)
    return evaluation


def _disagreement(
    answer: LabelledAnswer, result: Grade, met: set[str], held: set[str], unsure: list[str]
) -> GradedWrong | None:
    fixed = {m.id for m in result.fixed}
    miss = GradedWrong(
        id=answer.id,
        item=answer.item,
        text=answer.text,
        claims_extra=sorted(met - set(answer.claims)),
        claims_missed=sorted(set(answer.claims) - met),
        held_extra=sorted(held - set(answer.held)),
        held_missed=sorted(set(answer.held) - held),
        fixed_missed=sorted(set(answer.fixed) - fixed),
        undecided=unsure,
    )
    disagrees = (
        miss.claims_extra or miss.claims_missed or miss.held_extra or miss.held_missed
    ) or miss.fixed_missed
    return miss if disagrees else None


def _total(scores: Iterable[Score]) -> Score:
    total = Score("total")
    for score in scores:
        total.true_positive += score.true_positive
        total.false_positive += score.false_positive
        total.false_negative += score.false_negative
    return total


def _figures(score: Score) -> dict[str, float | int | None]:
    return {
        "precision": score.precision,
        "recall": score.recall,
        "true_positive": score.true_positive,
        "false_positive": score.false_positive,
        "false_negative": score.false_negative,
    }


def _targets(evaluation: Evaluation) -> list[Target]:
    """Counts that must be 0, then figures with a floor (None: nothing to measure, met)."""
    zero = ("contradicted_claims", "rejected_held", "rejected_withdrew")
    floors = (
        ("misconception_recall", MIN_MISCONCEPTION_RECALL),
        ("claim_precision", MIN_CLAIM_PRECISION),
        ("claim_recall", MIN_CLAIM_RECALL),
    )
    targets = [
        Target(name=name, value=count, target="= 0", met=count == 0)
        for name in zero
        for count in [getattr(evaluation, name)]
    ]
    targets += [
        Target(name=name, value=value, target=f">= {floor}", met=value is None or value >= floor)
        for name, floor in floors
        for value in [getattr(evaluation, name)]
    ]
    return targets
