"""`tutor`, `tutor lesson ID [--page N]` and `tutor explore`: open the lesson app (explore:
on the model workbench)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor.tui.app import TutorApp
    from tutor.tui.crash_path import QuietCrashApp
    from tutor.words.i18n import Lang


EXIT_USAGE = 2


def run(args: argparse.Namespace) -> int:
    """The lessons, as `run_app` runs them."""
    return run_app(args, lambda: build(args))


def run_app(args: argparse.Namespace, make: Callable[[], TutorApp]) -> int:
    """The app `make` builds (`tutor`, `tutor preview`), run until it quits. 0 after a
    normal quit; 1 when broken content stopped at the error screen (so scripts and `tutor
    serve` can tell); a bug ends it with an apology and EXIT_CRASH (tutor.crash)."""
    if args.model is not None and not _model_opens(args.model, args.lang or "zh"):
        return EXIT_USAGE
    from tutor import tuning

    try:
        app = make()
        with threads_crash_into(app), _stopped_by_signals(app):
            app.run()
        crash = app.crashed
    except Exception as exc:  # before the app runs, or its driver failing
        crash = exc
    finally:
        tuning.restore_collection()  # however it ended: collection paused in `build`
    if crash is None:
        if app.return_code:
            return app.return_code
        return 1 if app.content is not None and app.index.errors else 0
    from tutor.crash import report_crash
    from tutor.progress.store import default_data_dir

    return report_crash(crash, default_data_dir(), args.lang or "zh")


@contextmanager
def threads_crash_into(app: QuietCrashApp) -> Iterator[None]:
    """While the app runs, a fault in any other thread ends it through the crash path;
    Python's own hook printed the traceback over the learner's screen and went on. A
    terminal gone away under Textual's output thread is no fault: the app ends as after q
    (its input thread sees the end too)."""
    import threading

    from tutor.tui.compat import WriterThread

    def crashed(hook: threading.ExceptHookArgs) -> None:
        error = hook.exc_value
        if isinstance(hook.thread, WriterThread) and isinstance(error, OSError):
            app.call_later(app.exit)
        elif error is not None and not isinstance(error, SystemExit):
            app.crash_in_thread(error)

    before, threading.excepthook = threading.excepthook, crashed
    try:
        yield
    finally:
        threading.excepthook = before


@contextmanager
def _stopped_by_signals(app: TutorApp) -> Iterator[None]:
    """SIGTERM (a shutdown, `tutor serve` ending a session) and SIGHUP (a window or
    connection closed) end the app as q does, drafts saved, where they killed it and the
    last keys typed were lost."""
    import asyncio
    import signal

    def stop(signum: int, _frame: object) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is not running (yet, or any more): nothing typed
            raise SystemExit(128 + signum) from None
        loop.call_soon_threadsafe(app.stop_for_signal, signum)

    before = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _model_opens(model_dir: Path, lang: Lang) -> bool:
    """A model directory given on the command line is opened before the app starts, so a
    bad one is one line on stderr (in the interface's language) instead of an app whose
    every widget shows the error."""
    import sys

    from tutor.core.model import ModelError, open_model

    try:
        open_model(model_dir)
    except ModelError as exc:
        from tutor.commands.inspect import error_line

        print(error_line(exc, lang), file=sys.stderr)
        return False
    return True


def build(args: argparse.Namespace) -> TutorApp:
    """The app `tutor` runs, started the way `tutor` starts it (bench/memory.py measures
    this path, not a hand-built app)."""
    import os

    from tutor import tuning

    tuning.pause_collection()  # while Textual loads; the app turns it on (tutor.tuning)
    tuning.without_openssl()  # before asyncio is imported (tutor.tuning)
    tuning.without_plugin_discovery()  # before a pydantic model is built (tutor.tuning)

    from tutor.core.paths import content_dir
    from tutor.progress.opening import open_in_background
    from tutor.progress.store import (
        default_data_dir,
        default_database,
        default_learner,
        guest_requested,
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
        start_explore=args.command == "explore",
        remote=remote,
        # over SSH a blinking cursor redraws twice a second for every idle learner
        animate=not remote,
    )
