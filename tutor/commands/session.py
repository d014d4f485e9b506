"""What a served learner's session runs and what its template loads first, handed to
`tutor serve` by name (ENTRY, PRELOAD): tutor.serve starts processes and never imports the
app, the command line or the commands itself."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence

from tutor.cli import build_parser, globals_parser, main

ENTRY = "tutor.commands.session:run"
PRELOAD = "tutor.commands.session:preload"


def run(args: Sequence[str]) -> int:
    """A session: `tutor ARGS...`."""
    return main(list(args))


def preload(args: Sequence[str]) -> None:
    """Import and open, once, what every session would otherwise load for itself: the
    command line's parser, the app and every screen, the lesson index and validated
    lessons, the model (`args` are the tutor's global options the admin gave: --model,
    --content, --lang)."""
    import importlib

    parsed = build_parser().parse_args(list(args))
    globals_parser()  # what each session parses its `--learner ID` with
    import tutor.commands.app  # noqa: F401
    from tutor.tui import app

    for target in app.SCREEN_FOR_KIND.values():
        importlib.import_module(target.partition(":")[0])
    for module in ("tutor.tui.screens.home", "textual.command"):
        importlib.import_module(module)

    from tutor.content.cache import preload_content
    from tutor.core.paths import content_dir, default_cache_dir

    content = preload_content(parsed.content or content_dir(), default_cache_dir())
    if not content.index.errors:
        content.lesson_set  # noqa: B018 (validated once, here)
    with contextlib.suppress(Exception):  # a bad --model is each session's error screen
        from tutor.core.model import open_model

        open_model(parsed.model)
    warm_up(parsed)


def warm_up(parsed: argparse.Namespace) -> None:
    """Run the app once, headless, as a guest in a scratch folder, until its first screen
    is drawn. What that fills once (Textual's parsed selectors and styles, Rich's cell
    widths, the home screen's code paths) is then shared by every session, which would
    otherwise each fill its own. The app's threads end with it: the template forks
    single-threaded."""
    import tempfile
    import threading

    from tutor.commands.app import build

    async def first_screen() -> None:
        app = build(parsed)
        # a learner's terminal has tooltips and notifications: their layers' CSS too
        async with app.run_test(size=(80, 24), tooltips=True, notifications=True) as pilot:
            await pilot.pause()

    with tempfile.TemporaryDirectory(prefix="tutor-template-") as scratch:
        os.environ.update(TUTOR_DATA_DIR=scratch, TUTOR_GUEST="1")
        try:
            asyncio.run(first_screen())
        except Exception as exc:
            print(f"tutor serve: session template: warming up failed: {exc}", file=sys.stderr)
        finally:
            del os.environ["TUTOR_DATA_DIR"], os.environ["TUTOR_GUEST"]
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(timeout=5.0)
