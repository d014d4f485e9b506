"""`tutor grade LESSON ITEM (--text T | --file F) [--json]`: the quiz's grader, for authors;
`tutor grade --eval FILE [--part P] [--json]`: the grader measured on labelled answers.

Authors try paraphrases and misconception statements against their rubric here; tests and
the teacher's report read `--json`. A request that cannot be graded (unknown lesson or
item, unreadable file) is one line on stderr and exit code 2; a labelled file's problems
are `path:line:col` lines, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.content.cache import LessonContent
from tutor.core.paths import content_dir, default_cache_dir
from tutor.words.i18n import Speaker
from tutor.words.refusals import why_unreadable

if TYPE_CHECKING:
    from tutor.content.evaluation import Evaluation, Part
    from tutor.content.grade import Grade, Rubric

EXIT_USAGE = 2
MAX_FILE_BYTES = 1_000_000  # far above what is graded (grade.MAX_CHARS), still bounded


def _fail(speaker: Speaker, key: str, **values: object) -> int:
    print(speaker.t(key, **values), file=sys.stderr)
    return EXIT_USAGE


def _read(path: Path) -> bytes | None:
    """The answer file's bytes, None if it is larger than an answer; OSError says why not."""
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    return None if len(data) > MAX_FILE_BYTES else data


def run(args: argparse.Namespace) -> int:
    from tutor.content.grade import UnknownItem, grade, rubric_for

    speaker = Speaker("en" if args.lang == "en" else "zh")
    content = LessonContent(args.content or content_dir(), default_cache_dir())
    if args.eval is not None:
        return _evaluate(args, speaker, content)
    if args.lesson_id is None or args.item is None:
        return _fail(speaker, "grade.needs_item")
    if args.file is not None:
        try:
            data = _read(args.file)
        except OSError as exc:
            return _fail(
                speaker, "grade.unreadable", path=args.file, why=why_unreadable(speaker, exc)
            )
        if data is None:
            return _fail(speaker, "grade.too_large", path=args.file, limit=f"{MAX_FILE_BYTES:,}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return _fail(speaker, "grade.not_utf8", path=args.file)
    else:
        text = args.text
    lesson = content.lesson(args.lesson_id)
    if lesson is None:
        known = ", ".join(entry.id for entry in content.index.lessons) or "-"
        return _fail(speaker, "grade.no_lesson", lesson=args.lesson_id, known=known)
    try:
        rubric = rubric_for(lesson, args.item)
    except UnknownItem as exc:
        return _fail(speaker, "grade.unknown_item", **exc.values)
    result = grade(rubric, text)
    if args.json:
        print(json.dumps(result.model_dump(), ensure_ascii=False, indent=2))
        return 0
    _print_grade(speaker, rubric, result)
    return 0


def _print_grade(speaker: Speaker, rubric: Rubric, result: Grade) -> None:
    """Each claim with the clause that decided it, each misconception found with its
    correction, then the count."""
    from tutor.content.grade import MAX_CHARS

    zh = speaker.lang == "zh"
    for verdict in result.claims:
        claim = rubric.claim(verdict.id)
        print(f"{_MARKS[verdict.status]} {verdict.id}: {claim.claim_zh if zh else claim.claim_en}")
        evidence = speaker.t("core.quoted", text=verdict.evidence)
        if verdict.status == "withdrawn":
            key = "grade.withdrawn_by"
            print("    " + speaker.t(key, misconception=verdict.contradicted_by, evidence=evidence))
        elif verdict.status != "not_found":
            print("    " + speaker.t(f"grade.{verdict.status}", evidence=evidence))
    for found in result.misconceptions:
        if found.status not in ("held", "fixed", "undecided"):
            continue
        misconception = rubric.misconception(found.id)
        name = misconception.name_zh if zh else misconception.name_en
        evidence = speaker.t("core.quoted", text=found.evidence)
        if found.status == "held":
            correction = misconception.correction_zh if zh else misconception.correction_en
            print(f"! {found.id}: {name}\n    {evidence}\n    → {correction}")
        else:
            said = speaker.t(f"grade.misconception_{found.status}", evidence=evidence)
            print(f"{_MARKS[found.status]} {found.id}: {name}\n    {said}")
    note = speaker.t("grade.limit", limit=f"{MAX_CHARS:,}")
    limit = f" · {note}" if result.truncated else ""
    print(f"{len(result.met)} / {len(result.claims)}{limit}")


# ✓ met, ✗ only where a clause negates it, ? left to the self-check and the teacher
_MARKS = {
    "met": "✓",
    "not_found": "·",
    "denied": "✗",
    "withdrawn": "✗",
    "undecided": "?",
    "fixed": "+",
}


def _evaluate(args: argparse.Namespace, speaker: Speaker, content: LessonContent) -> int:
    """`--eval FILE`: the rubric measured on labelled answers (tutor.content.evaluation).
    By default the tuning part in full and the held-out part's total only, so that the
    held-out answers stay unread while phrases are tuned."""
    from tutor.content.evaluation import evaluate, read_labelled
    from tutor.words.problems import render_said

    lessons = {entry.id: content.lesson(entry.id) for entry in content.index.lessons}
    try:
        labelled, problems = read_labelled(
            args.eval, {key: lesson for key, lesson in lessons.items() if lesson is not None}
        )
    except OSError as exc:
        return _fail(speaker, "grade.unreadable", path=args.eval, why=why_unreadable(speaker, exc))
    if labelled is None or problems:
        for problem in problems:
            print(render_said(speaker, problem), file=sys.stderr, end="\n\n")
        return EXIT_USAGE
    lesson = lessons[labelled.lesson]
    assert lesson is not None
    parts: list[tuple[Part, bool]] = (
        [("tuning", True), ("held-out", False)] if args.part == "tuning" else [(args.part, True)]
    )
    evaluations = []
    for part, shown in parts:
        evaluation = evaluate(labelled, lesson, part)
        if not shown:
            evaluation.wrong = []
        evaluations.append((evaluation, shown))
    if args.json:
        dumped = [
            evaluation.model_dump() | {"answers_shown": shown} for evaluation, shown in evaluations
        ]
        print(json.dumps(dumped, ensure_ascii=False, indent=2))
        return 0
    for evaluation, shown in evaluations:
        if shown:
            _print_evaluation(speaker, evaluation)
        print(_total_line(speaker, evaluation))
    return 0


def _print_evaluation(speaker: Speaker, evaluation: Evaluation) -> None:
    print(
        speaker.t(
            "grade.eval.head",
            part=speaker.t(f"grade.eval.part.{evaluation.part}"),
            count=evaluation.answers,
        )
    )
    for title, scores in (
        ("claims", evaluation.claims),
        ("misconceptions", evaluation.misconceptions),
    ):
        print(speaker.t(f"grade.eval.{title}"))
        width = max((len(key) for key in scores), default=0)
        for key, score in scores.items():
            counts = f"{score['true_positive']}/{score['false_positive']}/{score['false_negative']}"
            figures = f"{_figure(score['precision'])}  {_figure(score['recall'])}"
            print(f"  {key:<{width}}  {figures}  {counts}")
    if evaluation.wrong:
        print(speaker.t("grade.eval.wrong", count=len(evaluation.wrong)))
    for miss in evaluation.wrong:
        text = " / ".join(line for line in miss.text.splitlines() if line.strip())
        print(f"  {miss.id} ({miss.item}): {speaker.t('core.quoted', text=_short(text))}")
        for key in ("claims_extra", "claims_missed", "held_extra", "held_missed", "fixed_missed"):
            ids = getattr(miss, key)
            if ids:
                print(f"      {speaker.t(f'grade.eval.{key}')}: {', '.join(ids)}")


def _total_line(speaker: Speaker, evaluation: Evaluation) -> str:
    verdict = "grade.eval.targets_met" if evaluation.targets_met else "grade.eval.targets_missed"
    missed = ", ".join(target.name for target in evaluation.targets if not target.met)
    return speaker.t(
        "grade.eval.total",
        part=speaker.t(f"grade.eval.part.{evaluation.part}"),
        count=evaluation.answers,
        claim_precision=_figure(evaluation.claim_precision),
        claim_recall=_figure(evaluation.claim_recall),
        misconception_precision=_figure(evaluation.misconception_precision),
        misconception_recall=_figure(evaluation.misconception_recall),
        contradicted=evaluation.contradicted_claims,
        rejected=evaluation.rejected_held + evaluation.rejected_withdrew,
        undecided=evaluation.undecided,
        targets=speaker.t(verdict, missed=missed),
    )


def _figure(value: float | None) -> str:
    return "   -" if value is None else f"{value:.2f}"


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
