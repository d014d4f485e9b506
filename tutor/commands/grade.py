"""`tutor grade LESSON ITEM (--text T | --file F) [--json]`: the quiz's grader, for authors.

Authors try paraphrases and misconception statements against their rubric here; tests and
the teacher's report read `--json`. A request that cannot be graded (unknown lesson or
item, unreadable file) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tutor.cachefile import default_cache_dir
from tutor.content.cache import LessonContent
from tutor.core.paths import content_dir
from tutor.words.i18n import Speaker
from tutor.words.refusals import why_unreadable

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
    from tutor.content.grade import MAX_CHARS, UnknownItem, grade, rubric_for

    speaker = Speaker("en" if args.lang == "en" else "zh")
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
    content = LessonContent(args.content or content_dir(), default_cache_dir())
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
    zh = speaker.lang == "zh"
    for verdict in result.claims:
        claim = rubric.claim(verdict.id)
        mark = "✓" if verdict.met else "✗"
        print(f"{mark} {verdict.id}: {claim.claim_zh if zh else claim.claim_en}")
        evidence = speaker.t("core.quoted", text=verdict.evidence)
        if verdict.contradicted_by:
            key = "grade.withdrawn_by"
            print("    " + speaker.t(key, misconception=verdict.contradicted_by, evidence=evidence))
        elif verdict.evidence:
            said = speaker.t("grade.denied", evidence=evidence) if verdict.denied else evidence
            print(f"    {said}")
    for found in result.matched:
        misconception = rubric.misconception(found.id)
        name = misconception.name_zh if zh else misconception.name_en
        correction = misconception.correction_zh if zh else misconception.correction_en
        evidence = speaker.t("core.quoted", text=found.evidence)
        print(f"! {found.id}: {name}\n    {evidence}\n    → {correction}")
    note = speaker.t("grade.limit", limit=f"{MAX_CHARS:,}")
    limit = f" · {note}" if result.truncated else ""
    print(f"{len(result.met)} / {len(result.claims)}{limit}")
    return 0
