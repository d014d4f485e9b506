"""Every wait a test does, each with a deadline: a condition that never holds fails the
test, naming what it waited for, instead of hanging the run. The deadline is far beyond
what a loaded machine needs; it is a hang guard, not a time limit on the code.

- `settle(pilot)`, `until(pilot, ...)`: an app under a Pilot, paced by the app's loop;
- `wait_until(...)`: a coroutine polling something outside the app (a server, a pty);
- `block_until(...)`: a test's own thread polling a real process's output or files,
  failing at once if that process has ended.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable

from textual.pilot import Pilot

WAIT_SECONDS = 60.0
POLL_SECONDS = 0.05

What = str | Callable[[], str]  # a callable describes the final state when the wait fails


def _said(what: What) -> str:
    return what() if callable(what) else what


def _deadline_passed(deadline: float, timeout: float, what: What) -> None:
    if time.monotonic() > deadline:
        raise AssertionError(f"waited {timeout:.0f} s for {_said(what)}")


async def settle(pilot: Pilot) -> None:
    """Let workers finish and their messages land, so what is asserted is what is shown.

    Widgets start workers when they mount, and show answers a message after the worker
    ends, and answers change the page's height; so wait until three looks in a row find no
    worker running, no widget waiting for an answer and the page body's size unchanged.
    """
    quiet, layout = 0, None
    deadline = time.monotonic() + WAIT_SECONDS
    while quiet < 3:
        _deadline_passed(deadline, WAIT_SECONDS, "the page to settle")
        await pilot.pause()
        busy = [worker for worker in pilot.app.workers if not worker.is_finished]
        pending = [w for w in pilot.app.screen.query("*") if getattr(w, "pending", False)]
        if busy:
            await pilot.app.workers.wait_for_complete(busy)
        seen = [(w.region, w.virtual_size) for w in pilot.app.screen.query("#body")]
        if busy or pending or seen != layout:
            quiet, layout = 0, seen
            await pilot.pause(0.02)
        else:
            quiet += 1
    await pilot.pause()


async def until(
    pilot: Pilot,
    condition: Callable[[], bool],
    what: What | None = None,
    timeout: float = WAIT_SECONDS,
    every: float = 0.01,
) -> None:
    """Let the app run until `condition` holds (a save, a timer, a palette's search)."""
    deadline = time.monotonic() + timeout
    while not condition():
        _deadline_passed(deadline, timeout, what or condition.__qualname__)
        await pilot.pause(every)


async def wait_until(check: Callable[[], bool], what: What, timeout: float = WAIT_SECONDS) -> None:
    """Poll `check` from a coroutine (the event loop goes on meanwhile)."""
    deadline = time.monotonic() + timeout
    while not check():
        _deadline_passed(deadline, timeout, what)
        await asyncio.sleep(POLL_SECONDS)


def block_until(
    check: Callable[[], bool],
    what: What,
    process: subprocess.Popen | None = None,  # type: ignore[type-arg]
    timeout: float = WAIT_SECONDS,
) -> None:
    """Poll `check` from this thread; fail as soon as `process` (if given) has ended."""
    deadline = time.monotonic() + timeout
    while not check():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process ended ({process.returncode}): {_said(what)}")
        _deadline_passed(deadline, timeout, what)
        time.sleep(POLL_SECONDS)
