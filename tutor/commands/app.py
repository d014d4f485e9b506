"""`tutor` and `tutor lesson ID [--page N]`: open the lesson app."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor.tui.app import TutorApp


def run(args: argparse.Namespace) -> int:
    """The lessons; a bug ends them with an apology and EXIT_CRASH (tutor.crash)."""
    try:
        app = build(args)
        app.run()
        crash = app.crashed
    except Exception as exc:  # before the app runs, or its driver failing
        crash = exc
    if crash is None:
        return 0
    from tutor.crash import report_crash
    from tutor.progress.store import default_data_dir

    return report_crash(crash, default_data_dir(), args.lang or "zh")


def build(args: argparse.Namespace) -> TutorApp:
    """The app `tutor` runs, started the way `tutor` starts it (bench/memory.py measures
    this path, not a hand-built app)."""
    import gc
    import os

    # Importing Textual makes ~100 collections of objects that all live on; the app
    # collects once and re-enables collection when its first screen is up.
    gc.disable()

    from tutor.core.paths import content_dir
    from tutor.progress.store import (
        default_data_dir,
        default_database,
        default_learner,
        guest_requested,
        open_in_background,
    )

    learner = args.learner or os.environ.get("TUTOR_LEARNER") or default_learner()
    data_dir, guest = default_data_dir(), guest_requested()
    opening_store = open_in_background(  # during the import
        learner, data_dir, database=default_database(), guest=guest
    )
    from tutor.tui.app import TutorApp

    remote = os.environ.get("TUTOR_REMOTE") == "1"
    return TutorApp(
        content_root=args.content or content_dir(),
        model_dir=args.model,
        lang=args.lang or "zh",
        learner=learner,
        data_dir=data_dir,
        guest=guest,
        opening_store=opening_store,
        start_lesson=getattr(args, "lesson_id", None),
        start_page=getattr(args, "page", None),
        remote=remote,
        # over SSH a blinking cursor redraws twice a second for every idle learner
        animate=not remote,
    )
