"""`tutor preview [DIR] [--lesson ID] [--page N]`: the lessons in DIR, reloaded on save."""

from __future__ import annotations

import argparse

from tutor.commands.app import run_app


def run(args: argparse.Namespace) -> int:
    """Ends as `tutor` does: 1 if the lessons were broken when the author quit, an apology
    and EXIT_CRASH on a bug."""
    from tutor.core.paths import content_dir
    from tutor.tui.preview import PreviewApp

    return run_app(
        args,
        lambda: PreviewApp(
            args.folder or args.content or content_dir(),
            model_dir=args.model,
            lang=args.lang or "zh",
            start_lesson=args.lesson,
            start_page=args.page,
        ),
    )
