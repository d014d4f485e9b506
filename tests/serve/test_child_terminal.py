"""The pty bridge with small stand-in children: window sizes, signals, reaping."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from tests.serve.conftest import own_child_pids
from tests.waits import wait_until
from tutor.serve.child import MAX_PENDING, ChildTerminal

pytestmark = pytest.mark.asyncio(loop_scope="module")

# prints its terminal size at start and on every SIGWINCH, as a Textual app would redraw
# prints its terminal size at start and on every SIGWINCH, as a Textual app would redraw;
# the signal is waited for, not handled, so a report never interrupts the one before
REPORTS_SIZE = """
import os, signal, sys, threading
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGWINCH})
def report():
    cols, rows = os.get_terminal_size(0)
    print(f"size {cols}x{rows} ctty={os.tcgetpgrp(0) == os.getpid()}", flush=True)
def wait_for_bye():
    for line in sys.stdin:
        if line.strip() == "bye":
            os._exit(3)
threading.Thread(target=wait_for_bye, daemon=True).start()
report()
while True:
    signal.sigwait({signal.SIGWINCH})
    report()
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
    assert child.pid not in own_child_pids()


async def test_a_child_that_cannot_start_raises_and_leaves_nothing() -> None:
    seen = Collected()
    with pytest.raises(OSError):
        ChildTerminal(["/nonexistent/python"], {}, (80, 24), seen.output.extend, print)
    assert own_child_pids() == []


REPORTS_HANGUP_DISPOSITION = """
import signal
print("hangup", "default" if signal.getsignal(signal.SIGHUP) == signal.SIG_DFL else "changed",
      flush=True)
"""

# raw mode so every byte counts, then reads nothing until told to with SIGUSR1
READS_WHEN_TOLD = """
import os, signal, sys, tty
tty.setraw(0)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", flush=True)
signal.sigwait({signal.SIGUSR1})
while b"END" not in os.read(0, 65536)[-3:]:
    pass
"""


async def test_signals_ignored_by_the_server_are_default_again_in_the_child() -> None:
    """Under nohup the server ignores SIGHUP; its children must not, or a dead pty never
    stops them."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        seen = Collected()
        child = seen.spawn(REPORTS_HANGUP_DISPOSITION)
    finally:
        signal.signal(signal.SIGHUP, previous)
    await seen.wait_output("hangup ")
    assert await asyncio.wait_for(child.exited, 10) == 0
    assert b"hangup default" in seen.output


async def test_input_toward_a_child_that_does_not_read_is_bounded_and_resumes() -> None:
    seen = Collected()
    drained: list[int] = []
    child = ChildTerminal(
        [sys.executable, "-c", READS_WHEN_TOLD],
        {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        (80, 24),
        seen.output.extend,
        seen.exit_codes.append,
        lambda: drained.append(child.pending),
    )
    await seen.wait_output("ready")
    keep_sending = [child.write(b"x" * 65536) for _ in range(24)]  # 1.5 MiB
    # the source is told to stop as soon as the queue passes the high-water mark...
    assert keep_sending[0] is True and keep_sending[-1] is False
    # ...and a source that ignores that still cannot queue more than the hard bound
    assert child.pending <= MAX_PENDING
    assert child.dropped >= 24 * 65536 - MAX_PENDING - 65536
    assert drained == []
    os.kill(child.pid, signal.SIGUSR1)
    await wait_until(lambda: drained == [0], "the queue to drain")
    child.write(b"END")
    assert await asyncio.wait_for(child.exited, 10) == 0
