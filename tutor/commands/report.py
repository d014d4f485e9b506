"""`tutor report`: the teacher's view of the class, as a table, CSV or JSON.

Read-only: it opens the progress store for reading only, so learners working at the
same time are neither blocked nor slowed. What learners typed (names, answers) is printed
through tutor.core.printable in every form: it cannot act on the teacher's terminal or
run in their spreadsheet.
"""

from __future__ import annotations

import argparse
import csv
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.core.printable import escaped_json, printable, spreadsheet_cell

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from tutor.content.models import Lesson
    from tutor.progress.classview import ClassProgress
    from tutor.progress.report import ClassReport, LessonReport, QuestionMark
    from tutor.words.i18n import Speaker


def _mark(mark: QuestionMark) -> str:
    """`✓2`: last answer right after 2 tries; `✗1`: wrong; `·`: not answered."""
    if mark.last_right is None:
        return "·"
    return f"{'✓' if mark.last_right else '✗'}{mark.attempts}"


def _seen(when: datetime | None, *, year: bool = False) -> str:
    """Local time; the year only where it is worth the width."""
    return when.astimezone().strftime("%Y-%m-%d %H:%M" if year else "%m-%d %H:%M") if when else "—"


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _claims(met: list[str] | None, total: int) -> str:
    return "—" if met is None else f"{len(met)}/{total}"


def _self_check(covered: int, total: int) -> str:
    return f"{covered}/{total}" if total else "—"


def _table() -> Table:
    from rich.table import Table

    return Table(box=None, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")


def print_table(report: ClassReport, lessons: list[Lesson], speaker: Speaker) -> None:
    """The table in the interface's language; ids, names and the lessons' text as they are."""
    from rich.console import Console
    from rich.text import Text

    from tutor.progress.report import misconception_names

    say = speaker.t
    # no markup: learners' names are text, never styles or links
    console = Console(highlight=False, markup=False)
    when = _seen(report.generated_at, year=True)
    console.print(say("report.source", source=report.source, when=when))
    guests = report.guest_sessions
    console.print(say("report.guests_one") if guests == 1 else say("report.guests", count=guests))
    content = {lesson.id: lesson for lesson in lessons}
    for lesson in report.lessons:
        console.print()
        count = len(lesson.learners)
        heading = (
            say("report.lesson_one", lesson=lesson.lesson)
            if count == 1
            else say("report.lesson", lesson=lesson.lesson, count=count)
        )
        console.print(Text.assemble((lesson.title, "bold"), heading))
        learners = _table()
        # the name takes what the other columns leave: 16 columns on an 80-column terminal
        name_width = max(16, console.width - 64)
        learners.add_column(
            say("report.learner"), overflow="ellipsis", no_wrap=True, max_width=name_width
        )
        learners.add_column(say("report.pages"), justify="right", no_wrap=True)
        learners.add_column(say("report.last_seen"), no_wrap=True)
        for number, _ in enumerate(lesson.questions, 1):
            learners.add_column(say("report.q", number=number), no_wrap=True)
        learners.add_column(say("report.summary"), justify="right", no_wrap=True)
        learners.add_column(say("report.misc"), justify="right", no_wrap=True)
        learners.add_column(say("report.self"), justify="right", no_wrap=True)
        for row in lesson.learners:
            learners.add_row(
                printable(row.name),
                f"{row.pages_reached}/{row.pages_total}",
                _seen(row.last_seen),
                *(_mark(mark) for mark in row.questions),
                _claims(row.claims_met, row.claims_total),
                str(len(row.misconceptions)),
                _self_check(row.self_check_covered, row.self_check_total),
            )
        console.print(learners)
        console.print(say("report.legend"))
        names = misconception_names(content[lesson.lesson], speaker.lang)
        _print_questions(console, lesson, names, speaker)
        _print_claims(console, lesson, content[lesson.lesson], speaker)
        _print_remaining_questions(console, lesson, speaker)


def _print_questions(
    console: Console, lesson: LessonReport, names: dict[str, str], speaker: Speaker
) -> None:
    say = speaker.t
    table = _table()
    table.add_column(say("report.question_number"), no_wrap=True)
    table.add_column(say("report.question"), overflow="fold", max_width=20)
    table.add_column(say("report.answered"), justify="right", no_wrap=True)
    table.add_column(say("report.right_first"), justify="right", no_wrap=True)
    table.add_column(say("report.most_wrong"), overflow="fold")
    for number, row in enumerate(lesson.questions, 1):
        wrong = f"{printable(row.most_chosen_wrong or '')} (×{row.most_chosen_wrong_count})"
        table.add_row(
            say("report.q", number=number),
            row.question,
            str(row.answered),
            _share(row.right_first_try),
            wrong if row.most_chosen_wrong else "—",
        )
    console.print(table)
    if lesson.misconceptions:
        misconceptions = _table()
        misconceptions.add_column(say("report.misconception"), overflow="fold")
        misconceptions.add_column(say("report.grader_held"), justify="right", no_wrap=True)
        misconceptions.add_column(say("report.grader_fixed"), justify="right", no_wrap=True)
        misconceptions.add_column(say("report.teacher_held"), justify="right", no_wrap=True)
        misconceptions.add_column(say("report.teacher_fixed"), justify="right", no_wrap=True)
        for item in lesson.misconceptions:
            wording = names.get(item.misconception, item.misconception)
            misconceptions.add_row(
                wording,
                str(item.learners),
                str(item.grader_fixed),
                str(item.teacher_held),
                str(item.teacher_fixed),
            )
        console.print(misconceptions)


def _print_claims(console: Console, report: LessonReport, lesson: Lesson, speaker: Speaker) -> None:
    """Each claim counted by the grader, by the learners' self-check and by the teacher."""
    from tutor.content.grade import SUMMARY
    from tutor.progress.report import claim_names, quiz_questions

    say = speaker.t
    if not report.claims:
        return
    numbers = {question.id: n for n, question in enumerate(quiz_questions(lesson), 1)}
    wording = claim_names(lesson, speaker.lang)
    table = _table()
    table.add_column(say("report.item"), no_wrap=True)
    table.add_column(say("report.claim"), overflow="fold")
    table.add_column(say("report.by_grader"), justify="right", no_wrap=True)
    table.add_column(say("report.self"), justify="right", no_wrap=True)
    table.add_column(say("report.by_teacher"), justify="right", no_wrap=True)
    for row in report.claims:
        item = (
            say("report.summary")
            if row.item == SUMMARY
            else say("report.q", number=numbers.get(row.item, "?"))
        )
        counts = (str(row.grader), str(row.self_check), str(row.teacher))
        table.add_row(item, wording.get(row.claim, row.claim), *counts)
    console.print()
    console.print(table)


def _print_remaining_questions(console: Console, report: LessonReport, speaker: Speaker) -> None:
    """What learners wrote under the summary's remaining questions, each under their name."""
    if not report.remaining_questions:
        return
    console.print()
    console.print(speaker.t("report.remaining"), style="bold")
    for asked in report.remaining_questions:
        console.print(f"{printable(asked.name)}:")
        for line in printable(asked.text, keep_newlines=True).splitlines():
            console.print(f"  {line}")


def write_csv(report: ClassReport) -> None:
    """One row per learner and question: the sheet a teacher sorts and filters. Every
    text cell, ids too (a learner id is a `--learner` name), is a spreadsheet_cell."""
    out = csv.writer(sys.stdout)
    out.writerow(
        [
            "lesson",
            "name",
            "learner",
            "pages_reached",
            "pages_total",
            "furthest_page",
            "last_seen",
            "question",
            "attempts",
            "last_right",
            "summary_submitted",
            "claims_met",
            "claims_total",
            "misconceptions",
            "self_check_covered",
            "self_check_total",
        ]
    )
    for lesson in report.lessons:
        for row in lesson.learners:
            common = [
                spreadsheet_cell(lesson.lesson),
                spreadsheet_cell(row.name),
                spreadsheet_cell(row.learner),
                row.pages_reached,
                row.pages_total,
                row.furthest_page if row.furthest_page is not None else "",
                row.last_seen.isoformat() if row.last_seen else "",
            ]
            tail = [
                int(row.summary_submitted),
                spreadsheet_cell(" ".join(row.claims_met or [])),
                row.claims_total,
                spreadsheet_cell(" ".join(row.misconceptions)),
                row.self_check_covered,
                row.self_check_total,
            ]
            for mark in row.questions:
                right = "" if mark.last_right is None else int(mark.last_right)
                question = spreadsheet_cell(mark.question)
                out.writerow([*common, question, mark.attempts, right, *tail])
            if not row.questions:  # a lesson without a quiz still lists its learners
                out.writerow([*common, "", "", "", *tail])


def read_for_teacher(
    args: argparse.Namespace, speaker: Speaker, command: str
) -> tuple[ClassProgress, list[Lesson], dict[str, str], str] | int:
    """What `tutor report` and `tutor review` read: the class's progress, the lessons
    (`--lesson`: that one), the learners' names from `--authorized-keys`, and where the
    progress is (for people). An exit status instead, once said on stderr, if one cannot
    be read."""
    from tutor.content import load_lessons
    from tutor.core.paths import content_dir
    from tutor.progress.classview import read_class
    from tutor.progress.store import StoreError, default_data_dir, default_database, redact
    from tutor.words.refusals import why_not_saved, why_unreadable

    database = args.database or (None if args.data_dir else default_database())
    data_dir = (args.data_dir or default_data_dir()).expanduser()
    source = redact(database) if database else str(data_dir)
    try:
        progress = read_class(data_dir, database)
    except StoreError as exc:
        location = exc.values.get("location", source)
        why = why_not_saved(speaker, exc)
        said = speaker.t("report.unreadable", command=command, location=location, why=why)
        print(said, file=sys.stderr)
        return 1
    lesson_set = load_lessons(args.content or content_dir(), model_dir=args.model)
    lessons = lesson_set.lessons
    if args.lesson is not None:
        lessons = [lesson for lesson in lessons if lesson.id == args.lesson]
        if not lessons:
            known = ", ".join(lesson.id for lesson in lesson_set.lessons) or "-"
            said = speaker.t("report.no_lesson", command=command, lesson=args.lesson, known=known)
            print(said, file=sys.stderr)
            return 2
    names: dict[str, str] = {}
    if args.authorized_keys is not None:
        from tutor.serve.identity import key_comments

        try:
            names = key_comments(Path(args.authorized_keys).read_text(errors="replace"))
        except OSError as exc:
            why = why_unreadable(speaker, exc)
            path = args.authorized_keys
            said = speaker.t("report.keys_unreadable", command=command, path=path, why=why)
            print(said, file=sys.stderr)
            return 2
    return progress, lessons, names, source


def run(args: argparse.Namespace) -> int:
    from tutor.progress.report import class_report
    from tutor.words.i18n import Speaker

    speaker = Speaker("en" if getattr(args, "lang", None) == "en" else "zh")
    read = read_for_teacher(args, speaker, "tutor report")
    if isinstance(read, int):
        return read
    progress, lessons, names, source = read
    report = class_report(lessons, progress, names, source)
    if args.json:
        print(escaped_json(report.model_dump_json(indent=2)))
    elif args.csv:
        write_csv(report)
    else:
        print_table(report, lessons, speaker)
    return 0
