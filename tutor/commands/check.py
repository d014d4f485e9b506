"""`tutor check [PATH]`: every problem in the lesson files, one `path:line:col` each."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from tutor.content import load_lessons, render_problem
from tutor.core.paths import content_dir


def _schema(out: Path | None) -> int:
    """The JSON Schema, to stdout or to `out` (the path is printed for an editor setting)."""
    from tutor.content.schema import content_schema

    text = json.dumps(content_schema(), ensure_ascii=False, indent=2) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"tutor check: cannot write {out}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {out}")
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    """Print every problem with its excerpt; exit 1 if any is an error (warnings pass)."""
    if getattr(args, "schema", False):
        return _schema(getattr(args, "out", None))
    root = args.path or args.content or content_dir()
    lesson_set = load_lessons(root, model_dir=args.model)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for problem in lesson_set.problems:
        print(render_problem(problem, width), end="\n\n")
    errors, warnings = len(lesson_set.errors), len(lesson_set.warnings)
    pages = sum(len(lesson.pages) for lesson in lesson_set.lessons)
    loaded = f"{_count(len(lesson_set.lessons), 'lesson')}, {_count(pages, 'page')}"
    print(f"{root}: {loaded}; {_count(errors, 'error')}, {_count(warnings, 'warning')}")
    return 1 if errors else 0
