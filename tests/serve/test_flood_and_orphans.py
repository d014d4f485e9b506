"""A learner who floods the server with input, and a server killed outright.

The server runs in its own process here, so its memory and its death are its own.
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import (
    SilentFlood,
    Terminal,
    child_pids_of,
    gone,
    session_pids_of,
    start_cli,
)
from tests.waits import wait_until

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")
MB = 1024 * 1024
FLOOD = 32 * MB


def memory_mb(pid: int, field: str) -> float:
    """VmRSS (now) or VmHWM (the peak since the last reset) of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


async def settled_size(chan: asyncssh.SSHClientChannel[bytes]) -> int:
    """What the client still holds to send, once the server takes no more (or all of it)."""
    size = -1
    while (now := chan.get_write_buffer_size()) != size and now > 0:
        size = now
        await asyncio.sleep(1.0)
    return now


async def test_an_input_flood_toward_a_stalled_tutor_does_not_grow_the_server(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    proc, port, _ = await start_cli(tmp_path)
    try:
        term = await Terminal.open(port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        (child,) = session_pids_of(proc.pid)
        os.kill(child, signal.SIGSTOP)  # a tutor that reads nothing: the worst case
        Path(f"/proc/{proc.pid}/clear_refs").write_text("5")  # restart the peak (VmHWM)
        before = memory_mb(proc.pid, "VmRSS")
        for _ in range(FLOOD // 65536):
            term.process.stdin.write(b"x" * 65536)  # no drain(): as fast as TCP takes it
        held_by_client = await settled_size(term.process.channel)
        growth = memory_mb(proc.pid, "VmHWM") - before
        assert growth < 8, f"server grew {growth:.1f} MB under a {FLOOD // MB} MB flood"
        # the server took one SSH window and a little queue, then stopped reading
        assert held_by_client > FLOOD - 4 * MB
        os.kill(child, signal.SIGKILL)
        assert await term.closed() == 137
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 30)


async def test_tutors_die_with_a_killed_server_that_ignored_hangup(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """`nohup tutor serve` then kill -9: no tutor may go on running on a dead pty."""
    proc, port, _ = await start_cli(
        tmp_path, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)
    )
    terms = [await Terminal.open(port, keys[name]) for name in ("alice", "bob")]
    for term in terms:
        await term.wait_for(*HOME_WORDS)
    sessions = session_pids_of(proc.pid)
    assert len(sessions) == 2
    children = sorted({*sessions, *child_pids_of(proc.pid)})  # the session template too
    assert len(children) == 3
    proc.kill()
    await asyncio.to_thread(proc.wait, 30)
    await wait_until(
        lambda: all(gone(pid) for pid in children),
        lambda: f"the processes {[pid for pid in children if not gone(pid)]} to end",
    )
    for term in terms:
        await term.hang_up()


async def test_a_learner_gets_in_during_a_silent_flood_under_a_low_open_file_limit(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """160 open files: the caps shrink to fit, the flood's silent connections make way,
    and nothing is logged per refused connection."""
    proc, port, _ = await start_cli(
        tmp_path, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))
    )
    flood = SilentFlood(port, addresses=300)
    try:
        await wait_until(lambda: flood.connects >= 250, "the flood to be under way")
        term = await Terminal.open(port, keys["alice"], source="127.0.0.2")
        await term.wait_for(*HOME_WORDS)
        assert flood.connects >= 250
        term.press("q")
        assert await term.closed() == 0
    finally:
        await flood.stop()
        proc.terminate()
        await asyncio.to_thread(proc.wait, 30)
    log = proc.stderr.read()  # type: ignore[union-attr]
    assert "Traceback" not in log
    assert "the open-file limit (160) fits only 16 connections and 13 sessions" in log
    assert len(log.splitlines()) < 30, log
