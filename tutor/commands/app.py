"""`tutor` and `tutor lesson ID [--page N]`: open the lesson app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    import os

    from tutor.core.paths import content_dir
    from tutor.tui.app import TutorApp
    from tutor.tui.store import default_data_dir, default_learner, guest_requested

    remote = os.environ.get("TUTOR_REMOTE") == "1"
    app = TutorApp(
        content_root=args.content or content_dir(),
        model_dir=args.model,
        lang=args.lang or "zh",
        learner=args.learner or os.environ.get("TUTOR_LEARNER") or default_learner(),
        data_dir=default_data_dir(),
        guest=guest_requested(),
        start_lesson=getattr(args, "lesson_id", None),
        start_page=getattr(args, "page", None),
        remote=remote,
        # over SSH a blinking cursor redraws twice a second for every idle learner
        animate=not remote,
    )
    app.run()
    return 0
