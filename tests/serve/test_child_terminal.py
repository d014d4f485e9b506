"""The pty bridge with small stand-in children: window sizes, signals, reaping."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from tests.serve.conftest import child_pids_of, wait_until
from tutor.serve.child import ChildTerminal

pytestmark = pytest.mark.asyncio(loop_scope="module")

# prints its terminal size at start and on every SIGWINCH, as a Textual app would redraw
REPORTS_SIZE = """
import os, signal, sys, time
def report(*_):
    cols, rows = os.get_terminal_size(0)
    print(f"size {cols}x{rows} ctty={os.tcgetpgrp(0) == os.getpid()}", flush=True)
signal.signal(signal.SIGWINCH, report)
report()
for line in sys.stdin:
    if line.strip() == "bye":
        sys.exit(3)
"""

IGNORES_HANGUP = """
import signal, time
signal.signal(signal.SIGHUP, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(60)
"""


class Collected:
    def __init__(self) -> None:
        self.output = bytearray()
        self.exit_codes: list[int] = []

    def spawn(self, script: str, size: tuple[int, int] = (80, 24)) -> ChildTerminal:
        return ChildTerminal(
            [sys.executable, "-c", script],
            {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            size,
            self.output.extend,
            self.exit_codes.append,
        )

    async def wait_output(self, text: str) -> None:
        await wait_until(
            lambda: text.encode() in self.output, lambda: f"{text!r} in {self.output!r}"
        )


async def test_window_size_reaches_the_child_through_its_controlling_terminal() -> None:
    seen = Collected()
    child = seen.spawn(REPORTS_SIZE, size=(100, 30))
    await seen.wait_output("size 100x30 ctty=True")
    child.resize(132, 43)
    await seen.wait_output("size 132x43 ctty=True")
    child.write(b"bye\n")
    assert await asyncio.wait_for(child.exited, 10) == 3
    assert seen.exit_codes == [3]
    assert not child.running


async def test_a_child_that_ignores_hangup_is_killed_and_reaped() -> None:
    seen = Collected()
    child = seen.spawn(IGNORES_HANGUP)
    await seen.wait_output("ready")
    assert await child.terminate() == -signal.SIGKILL
    assert child.pid not in child_pids_of(os.getpid())


async def test_a_child_that_cannot_start_raises_and_leaves_nothing() -> None:
    seen = Collected()
    with pytest.raises(OSError):
        ChildTerminal(["/nonexistent/python"], {}, (80, 24), seen.output.extend, print)
    assert child_pids_of(os.getpid()) == []
