"""`tutor new lesson ID [DIR]`: scaffold a lesson that passes `tutor check`."""

from __future__ import annotations

import argparse
import sys

from tutor.content.scaffold import ScaffoldError, new_lesson


def run(args: argparse.Namespace) -> int:
    try:
        written = new_lesson(args.lesson_id, args.folder)
    except ScaffoldError as error:
        print(f"tutor new: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"tutor new: cannot write in {args.folder}: {error.strerror}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    folder = written[0].parent
    print(f"next: tutor check {folder}   and   tutor preview {folder.parent}")
    return 0
