"""`tutor preview [DIR] [--lesson ID] [--page N]`: the lessons in DIR, reloaded on save."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from tutor.core.paths import content_dir
    from tutor.tui.preview import PreviewApp

    app = PreviewApp(
        args.folder or args.content or content_dir(),
        model_dir=args.model,
        lang=args.lang or "zh",
        start_lesson=args.lesson,
        start_page=args.page,
    )
    app.run()
    return app.return_code or 0
