"""`tutor check [PATH]`: every problem in the lesson files, one `path:line:col` each."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.words.i18n import Lang, Speaker
from tutor.words.refusals import why_unwritable


def _schema(out: Path | None, speaker: Speaker) -> int:
    """The JSON Schema, to stdout or to `out` (the path is printed for an editor setting)."""
    from tutor.content.schema import content_schema

    text = json.dumps(content_schema(), ensure_ascii=False, indent=2) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        why = why_unwritable(speaker, error)
        print(speaker.t("check.cannot_write", out=out, error=why), file=sys.stderr)
        return 1
    print(speaker.t("check.wrote", out=out))
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    """Print every problem with its excerpt; exit 1 if any is an error (warnings pass).

    In the interface's language, as the other commands say their errors: Chinese by
    default; with `--lang en` the content layer's own English messages."""
    from tutor.words.problems import render_said

    lang: Lang = "en" if getattr(args, "lang", None) == "en" else "zh"
    speaker = Speaker(lang)
    if getattr(args, "schema", False):
        return _schema(getattr(args, "out", None), speaker)
    root = args.path or args.content or content_dir()
    lesson_set = load_lessons(root, model_dir=args.model)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for problem in lesson_set.problems:  # the English sentences are the messages' own
        print(render_said(speaker, problem, width), end="\n\n")
    errors, warnings = len(lesson_set.errors), len(lesson_set.warnings)
    lessons = len(lesson_set.lessons)
    pages = sum(len(lesson.pages) for lesson in lesson_set.lessons)
    if lang == "en":  # in numbers' own singular and plural
        loaded = f"{_count(lessons, 'lesson')}, {_count(pages, 'page')}"
        print(f"{root}: {loaded}; {_count(errors, 'error')}, {_count(warnings, 'warning')}")
    else:
        counts = {"lessons": lessons, "pages": pages, "errors": errors, "warnings": warnings}
        print(speaker.t("check.summary", root=root, **counts))
    return 1 if errors else 0
