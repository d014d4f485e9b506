"""`tutor check [PATH]`: every problem in the lesson files, one `path:line:col` each."""

from __future__ import annotations

import argparse

from tutor.content import load_lessons, render_problem
from tutor.core.paths import content_dir


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    """Print every problem with its excerpt; exit 1 if any is an error (warnings pass)."""
    root = args.path or args.content or content_dir()
    lesson_set = load_lessons(root, model_dir=args.model)
    for problem in lesson_set.problems:
        print(render_problem(problem), end="\n\n")
    errors, warnings = len(lesson_set.errors), len(lesson_set.warnings)
    pages = sum(len(lesson.pages) for lesson in lesson_set.lessons)
    loaded = f"{_count(len(lesson_set.lessons), 'lesson')}, {_count(pages, 'page')}"
    print(f"{root}: {loaded}; {_count(errors, 'error')}, {_count(warnings, 'warning')}")
    return 1 if errors else 0
