"""The one way a bug ends a tutor app (`tutor`, `tutor preview`, `tutor review`): the app
closes without Textual's traceback, which would show the server's paths and variables to
whoever reads the screen, and keeps the bug in `crashed` for its command to report
(tutor.crash: the apology, the incident id, a non-zero status)."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import RenderableType
from textual.app import App


class QuietCrashApp(App[None]):
    crashed: BaseException | None = None  # the bug that ended the app, if one did

    def on_load(self) -> None:
        asyncio.get_running_loop().set_exception_handler(self._loop_fault)

    def _loop_fault(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """A fault asyncio reports (a callback's, a task's no one read) ends the app as any
        other bug: asyncio's own handler printed its traceback over the screen and went on.
        What it reports without a fault (a task left pending as the app ends) is no bug."""
        error = context.get("exception")
        if isinstance(error, Exception):
            self._handle_exception(error)

    def _fatal_error(self) -> None:
        self.crashed = self.crashed or self._exception
        self._close_messages_no_wait()

    def panic(self, *renderables: RenderableType) -> None:
        """Textual's other way out of a bug (an error that renders itself, a failing input
        thread) prints the error and lets the app end with status 0: here it is the same
        crash as any other."""
        self.crashed = self.crashed or self._exception or RuntimeError(repr(renderables))
        self._close_messages_no_wait()

    def crash_in_thread(self, error: BaseException) -> None:
        """A bug in a thread of the app's own (threading.excepthook, set by the command):
        the app ends as on one in its loop, not with a traceback printed over the screen."""
        self.call_later(self._handle_exception, error)
