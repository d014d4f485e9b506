"""What a learner can type that a terminal would never send: key reports the parser cannot
read, a window size claimed through the input. The session goes on, at the size the SSH
client gave (capped by the server), and a bug anywhere still ends it with the apology."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import Terminal, make_config, serving
from tests.serve.test_sessions import only_child
from tests.waits import wait_until
from tutor.crash import EXIT_CRASH

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")
# key reports with a code point past Unicode, one past any integer a C library holds, and
# kitty's colon-separated fields where the parser expects one number
UNREADABLE_KEYS = (b"\x1b[1114112u", b"\x1b[99999999999999999999u", b"\x1b[1:2:3;4:5:6;7u")


def session_log(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tutor.serve"]


async def test_unreadable_key_reports_leave_the_session_running(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    async with serving(make_config(tmp_path)) as server:
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        for sequence in UNREADABLE_KEYS:
            term.press(sequence)
            term.press("?")  # the help opens: the tutor read on past the report
            await term.wait_for("Help:")
            term.press("\x1b")
            await wait_until(lambda: "Help:" not in term.text, "the help to close")
        term.press("q")
        assert await term.closed() == 0
    seen = term.raw.decode(errors="replace")
    assert "Traceback" not in seen and "chr()" not in seen and 'File "' not in seen
    end = next(line for line in session_log(caplog) if line.startswith("session end"))
    assert end.endswith(" reason=quit status=0")
    assert not any(line.startswith("session crash") for line in session_log(caplog))


def peak_rss_mb(pid: int) -> float:
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(status["VmHWM"].split()[0]) / 1024


async def test_a_window_size_claimed_through_the_input_is_not_taken(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """An in-band size report (what a terminal in mode 2048 sends on a resize) typed by the
    learner: 10,000 x 10,000 cells, past the server's cap. The tutor keeps drawing at the
    size its terminal has, and uses no more memory for it."""
    async with serving(make_config(tmp_path)) as server:
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        await term.settled()
        pid = await only_child(server)
        before = peak_rss_mb(pid)
        term.press(b"\x1b[48;10000;10000;0;0t")
        term.press("?")
        await term.wait_for("Help:")  # drawn where an 80x24 terminal shows it
        await term.settled()
        assert peak_rss_mb(pid) < before + 50
        # a mouse report after a size report with no pixel size divided by zero
        term.press(b"\x1b[48;10;10;0;0t\x1b[<35;5;5M\x1b")
        await wait_until(lambda: "Help:" not in term.text, "the help to close")
        term.press("q")
        assert await term.closed() == 0
    assert "Traceback" not in term.raw.decode(errors="replace")


async def test_a_session_past_its_memory_ceiling_ends_saying_so(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    """A ceiling set just above what the lesson list takes: turning pages needs more, the
    tutor's next allocation fails, and it ends through the crash path with a sentence
    that names the limit, not with a traceback or by taking the server's memory."""
    caplog.set_level(logging.INFO, logger="tutor.serve")
    async with serving(make_config(tmp_path, session_memory_mb=130)) as server:
        term = await Terminal.open(server.port, keys["bob"])
        await term.wait_for(*HOME_WORDS)
        term.press("\r")
        for _ in range(16):
            await asyncio.sleep(1.5)
            if term.process.exit_status is not None:
                break
            term.press("n")
        status = await term.closed()
    seen = "".join(term.raw.decode(errors="replace").split())
    assert "Traceback" not in seen
    if status == EXIT_CRASH:
        assert "reachedthememorylimittheservergiveseachsession(130MB)" in seen
        assert "Yourprogressuptohereissaved" in seen
        crash = next(line for line in session_log(caplog) if line.startswith("session crash"))
        # the allocation that failed: an object's, or a new thread's stack
        assert "MemoryError" in crash or "can't start new thread" in crash
    else:
        # an allocation that failed in C code, which may abort or fault: the server says it
        assert status in (128 + signal.SIGABRT, 128 + signal.SIGSEGV)
        assert "mayhavereachedthememorylimittheservergiveseachsession(130MB)" in seen
        assert "Yourprogressissaved" in seen


async def test_memory_running_out_outside_the_app_still_ends_through_the_crash_path(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    """The ceiling can be met anywhere, the tutor's imports included: the session still
    ends with the sentence that names the limit, not as a child that could not start."""
    caplog.set_level(logging.INFO, logger="tutor.serve")
    config = make_config(
        tmp_path,
        session_memory_mb=130,
        session_entry="tests.serve.standin:out_of_memory_before_the_app",
    )
    async with serving(config) as server:
        term = await Terminal.open(server.port, keys["bob"])
        assert await term.closed() == EXIT_CRASH
    seen = "".join(term.raw.decode(errors="replace").split())
    assert "reachedthememorylimittheservergiveseachsession(130MB)" in seen
    crash = next(line for line in session_log(caplog) if line.startswith("session crash"))
    assert "MemoryError" in crash


async def test_a_session_killed_by_its_c_library_is_told_so_by_the_server(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    """An allocation that fails in C code aborts the process, and nothing of the tutor's
    runs to apologise: the server says it for it, and logs it as a crash."""
    caplog.set_level(logging.INFO, logger="tutor.serve")
    config = make_config(tmp_path, session_entry="tests.serve.standin:aborted_tutor")
    async with serving(config) as server:
        term = await Terminal.open(server.port, keys["bob"])
        assert await term.closed() == 128 + signal.SIGABRT
    seen = " ".join(term.text.split())
    assert "drawn before the abort" in term.raw.decode(errors="replace")
    assert "The tutor stopped unexpectedly (signal SIGABRT); it may have reached the memory" in seen
    assert "Your progress is saved; connect again to continue." in seen
    end = next(line for line in session_log(caplog) if line.startswith("session end"))
    assert end.endswith(f" reason=crash status={128 + signal.SIGABRT}")
