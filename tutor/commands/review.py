"""`tutor review`: the teacher marks each learner's summary and text answers.

It reads the class as `tutor report` does (`--data-dir`/`--database`, `--lesson`,
`--authorized-keys`) and writes only the teacher's marks, which the learner reads on the
summary page. A bug ends it with the tutor's apology and a non-zero status, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys

# the store's own learner id: the review writes only other learners' marks
REVIEWER = "teacher"


def run(args: argparse.Namespace) -> int:
    from tutor.commands.report import read_for_teacher
    from tutor.words.i18n import Speaker

    lang = "en" if getattr(args, "lang", None) == "en" else "zh"
    speaker = Speaker(lang)
    read = read_for_teacher(args, speaker, "tutor review")
    if isinstance(read, int):
        return read
    progress, lessons, names, _source = read
    if not lessons:
        print(speaker.t("review.no_lessons"), file=sys.stderr)
        return 2
    from tutor.progress.opening import open_store
    from tutor.progress.review import answers_for_course
    from tutor.progress.store import StoreError, default_data_dir, default_database
    from tutor.words.refusals import why_not_saved

    data_dir = (args.data_dir or default_data_dir()).expanduser()
    database = args.database or (None if args.data_dir else default_database())
    try:
        store = open_store(REVIEWER, data_dir, database=database)
    except StoreError as exc:
        location = exc.values.get("location", "")
        why = why_not_saved(speaker, exc)
        said = speaker.t("report.unreadable", command="tutor review", location=location, why=why)
        print(said, file=sys.stderr)
        return 1
    crash: BaseException | None = None
    try:
        from tutor.commands.app import threads_crash_into
        from tutor.tui.review import ReviewApp

        app = ReviewApp(lessons, answers_for_course(lessons, progress, names), store, lang)
        with threads_crash_into(app):
            app.run()
        crash = app.crashed
    except Exception as exc:  # before the app runs, or its driver failing
        crash = exc
    finally:
        store.close()
    if crash is None:
        return 0
    from tutor.crash import report_crash

    return report_crash(crash, data_dir, lang)
