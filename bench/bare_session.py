"""Yardsticks for a served session's first screen: what `tutor serve` forks instead of
the tutor when `bench/ssh.py --first-screens` measures the server's own share.

- `one_line`: no app at all; the lesson list's title, written once. What is left is SSH,
  the fork and the pty relay.
- `bare_app`: a bare Textual app, as bare_app.py's, showing that title, warmed up once in
  the session template as the tutor is (template.warm_up). What is left beyond that is
  Textual's own.

`python bench/bare_session.py ENTRY TUTOR_SERVE_ARGS...` runs `tutor serve` with ENTRY
(`one_line` or `bare_app`) in its sessions.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

from textual.app import App, ComposeResult
from textual.widgets import Static

from tutor.content import load_lessons
from tutor.core.paths import content_dir


def lesson_list_title() -> str:
    """The text bench/ssh.py waits for: the shipped lesson's title on the lesson list."""
    lesson = load_lessons(content_dir()).lesson("embedding")
    assert lesson is not None
    return lesson.card.title


class TitleApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(TITLE)


def one_line(args: Sequence[str]) -> int:
    sys.stdout.write(f"\x1b[?1049h\x1b[H{TITLE}\r\n")
    sys.stdout.flush()
    while os.read(0, 4096):  # until the learner leaves
        pass
    return 0


def bare_app(args: Sequence[str]) -> int:
    TitleApp().run()
    return 0


async def _first_screen() -> None:
    async with TitleApp().run_test(size=(80, 24), tooltips=True, notifications=True) as pilot:
        await pilot.pause()


def _warm_up() -> None:
    """In the template, as template.warm_up does for the tutor; its threads end with it."""
    import threading

    asyncio.run(_first_screen())
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(timeout=5.0)


TITLE = lesson_list_title()

if __name__ == "__main__":
    from tutor.cli import build_parser
    from tutor.commands import serve

    entry, *serve_args = sys.argv[1:]
    sys.exit(serve.run(build_parser().parse_args(serve_args), f"bench.bare_session:{entry}"))
else:
    _warm_up()
