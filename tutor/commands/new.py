"""`tutor new lesson ID [DIR]`: scaffold a lesson that passes `tutor check`."""

from __future__ import annotations

import argparse
import sys

from tutor.content.scaffold import ScaffoldError, new_lesson
from tutor.words.i18n import Speaker
from tutor.words.refusals import why_unwritable


def run(args: argparse.Namespace) -> int:
    speaker = Speaker("en" if args.lang == "en" else "zh")
    try:
        written = new_lesson(args.lesson_id, args.folder)
    except ScaffoldError as error:
        print(speaker.t(f"new.{error.code}", **error.values), file=sys.stderr)
        return 1
    except OSError as error:
        why = why_unwritable(speaker, error)
        print(speaker.t("new.cannot_write", folder=args.folder, why=why), file=sys.stderr)
        return 1
    for path in written:
        print(path)
    folder = written[0].parent
    print(speaker.t("new.next", folder=folder, parent=folder.parent))
    return 0
