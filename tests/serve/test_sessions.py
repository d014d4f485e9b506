"""A learner's session end to end: screen, keys, resize, identity, refusals, clean ends.

The screens are the real app's. These tests rely on the English home screen showing the
words "embedding" (the app title, "The embedding tutor") and "lesson" (the heading "The
course: its lessons in order"), matched case-insensitively.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import Terminal, connect, make_config, serving
from tests.waits import wait_until
from tutor.crash import EXIT_CRASH
from tutor.serve.server import TutorServer
from tutor.serve.session import RESET_SEQUENCE

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")


def child_env(pid: int) -> dict[str, str]:
    """The child's environment as the kernel holds it (complete once exec is done)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if item)


def child_argv(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


async def only_child(server: TutorServer) -> int:
    """The one live child, once a spawned one's exec is complete (until then /proc shows
    no arguments)."""
    await wait_until(lambda: len(server.children) == 1, "the child")
    (pid,) = server.children
    if not server.children[pid].forked:
        await wait_until(lambda: child_argv(pid) != [], "the child's exec")
    return pid


def session_env(server: TutorServer, pid: int) -> dict[str, str]:
    """A session's environment: as the kernel holds it for a spawned child; for a fork of
    the session template (where /proc shows the template's), the one the server gave it,
    which test_template.py shows a fork gets exactly."""
    child = server.children[pid]
    return child.env if child.forked else child_env(pid)


def session_argv(server: TutorServer, pid: int) -> list[str]:
    child = server.children[pid]
    return list(child.argv) if child.forked else child_argv(pid)


def painted(term: Terminal, row: int) -> bool:
    """Whether the app drew anything (text or a background) on this row."""
    return any(
        cell.data != " " or cell.bg != "default" for cell in term.screen.buffer[row].values()
    )


async def test_first_screen_appears_and_q_quits_cleanly(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    term = await Terminal.open(reaped.port, keys["alice"])
    await term.wait_for(*HOME_WORDS)
    term.press("q")
    assert await term.closed() == 0
    # the learner's terminal is put back whatever the app left on
    assert term.raw.endswith(RESET_SEQUENCE)


async def test_keys_reach_the_app(reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]) -> None:
    term = await Terminal.open(reaped.port, keys["alice"])
    await term.wait_for(*HOME_WORDS)
    home = await term.settled()
    term.press("\x10")  # ctrl+p: the command palette opens over the home screen
    palette = await term.wait_for_change(home)
    term.press("\x1b")  # escape closes it again
    await term.wait_for_change(palette)
    await wait_until(lambda: term.text == home, "the home screen again")
    term.press("q")
    assert await term.closed() == 0


async def test_resize_redraws_at_the_new_size(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    term = await Terminal.open(reaped.port, keys["alice"], size=(80, 24))
    await term.wait_for(*HOME_WORDS)
    await term.settled()
    assert painted(term, 23)
    term.resize(120, 40)
    # the app learns the size through SIGWINCH and repaints down to the new last row
    await wait_until(lambda: painted(term, 39), "a repaint at 120x40")
    await term.wait_for(*HOME_WORDS)
    assert max(len(line) for line in term.text.splitlines()) > 80
    term.press("q")
    assert await term.closed() == 0


async def test_learner_id_is_the_key_fingerprint(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    ids = []
    for name in ("alice", "alice", "bob"):
        # the username is the client's to choose and must not matter
        conn = await connect(reaped.port, keys[name], username="root")
        process = await conn.create_process(term_type="xterm", term_size=(80, 24))
        pid = await only_child(reaped)
        argv = session_argv(reaped, pid)
        learner = argv[argv.index("--learner") + 1]
        assert session_env(reaped, pid)["TUTOR_LEARNER"] == learner
        assert session_env(reaped, pid)["TUTOR_DATA_DIR"] == str(reaped.config.data_dir)
        ids.append(learner)
        process.close()
        conn.close()
        await conn.wait_closed()
        await wait_until(lambda: not reaped.children, "the child to be reaped")
    assert ids[0] == ids[1] == keys["alice"].get_fingerprint("sha256")
    assert ids[2] == keys["bob"].get_fingerprint("sha256") != ids[0]


async def test_progress_is_kept_per_key(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """Alice leaves on page 2; she resumes there next time, Bob resumes at the start."""
    alice = await Terminal.open(reaped.port, keys["alice"])
    await alice.wait_for(*HOME_WORDS)
    home = await alice.settled()
    alice.press("\r")
    first_page = await alice.wait_for_change(home)
    alice.press("n")
    second_page = await alice.wait_for_change(first_page)
    alice.press("q")
    assert await alice.closed() == 0

    again = await Terminal.open(reaped.port, keys["alice"])
    await again.wait_for(*HOME_WORDS)
    again.press("r")
    await wait_until(lambda: again.text == second_page, "Alice back on her page 2")
    again.press("q")
    assert await again.closed() == 0

    bob = await Terminal.open(reaped.port, keys["bob"])
    await bob.wait_for(*HOME_WORDS)
    bob.press("r")
    await wait_until(lambda: bob.text == first_page, "Bob on the first page")
    bob.press("q")
    assert await bob.closed() == 0


async def test_child_environment_is_clean(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVER_SECRET", "must not leak")
    conn = await connect(reaped.port, keys["alice"])
    process = await conn.create_process(
        term_type="xterm-256color",
        term_size=(80, 24),
        env={"COLORTERM": "truecolor", "LD_PRELOAD": "/tmp/evil.so", "LANG": "xx"},
    )
    pid = await only_child(reaped)
    env = session_env(reaped, pid)
    assert env == {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TUTOR_DATA_DIR": str(reaped.config.data_dir),
        "TUTOR_LEARNER": keys["alice"].get_fingerprint("sha256"),
        "TUTOR_REMOTE": "1",
        "PYTHONPATH": env["PYTHONPATH"],
        "OMP_NUM_THREADS": "1",
        "TUTOR_CRASH_FD": "3",
        "TUTOR_SESSION_MEMORY_MB": "1024",  # its ceiling, for the sentence said when it is hit
    }
    assert (Path(env["PYTHONPATH"]) / "tutor" / "serve").is_dir()
    # the pty is the child's controlling terminal, and the child leads its own session
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    assert int(fields[3]) == pid  # session id
    assert int(fields[4]) != 0  # tty_nr
    process.close()
    conn.close()
    await conn.wait_closed()


async def test_guest_gets_a_scratch_data_dir_that_is_removed(reaped: TutorServer) -> None:
    term = await Terminal.open(reaped.port, None)
    await term.wait_for(*HOME_WORDS)
    pid = await only_child(reaped)
    env = session_env(reaped, pid)
    assert env["TUTOR_GUEST"] == "1"
    assert env["TUTOR_LEARNER"] == "guest"
    scratch = Path(env["TUTOR_DATA_DIR"])
    assert scratch.parent == reaped.config.data_dir / "guests"
    assert scratch.is_dir()
    term.press("q")
    assert await term.closed() == 0
    await wait_until(lambda: not scratch.exists(), "the guest's data to be removed")


async def test_without_a_pty_one_line_hint_and_status_1(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    conn = await connect(reaped.port, keys["alice"])
    result = await conn.run(None, encoding="utf-8")  # a shell, but no PTY
    assert result.exit_status == 1
    assert result.stdout == ""
    assert isinstance(result.stderr, str)
    assert result.stderr.count("\n") == 1
    assert f"ssh -t -p {reaped.port} 127.0.0.1" in result.stderr
    conn.close()
    await conn.wait_closed()


async def test_exec_subsystems_and_forwarding_are_refused(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    conn = await connect(reaped.port, keys["alice"])
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.run("id", term_type="xterm")
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.run("id")
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.start_sftp_client()
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.open_connection("127.0.0.1", reaped.port)
    with pytest.raises(asyncssh.ChannelListenError):
        await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.create_process(term_type="xterm", x11_forwarding=True)
    conn.close()
    await conn.wait_closed()
    assert not reaped.children


async def test_one_log_line_per_session_start_and_end(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    term = await Terminal.open(reaped.port, keys["bob"], size=(90, 30))
    await term.wait_for(*HOME_WORDS)
    term.resize(100, 32)
    term.press("q")
    assert await term.closed() == 0
    # connection lines (e.g. an earlier test's idle connection closed) are not counted
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name == "tutor.serve" and r.getMessage().startswith("session ")
    ]
    fingerprint = keys["bob"].get_fingerprint("sha256")
    assert len(lines) == 2, "\n".join(lines)
    start, end = lines
    assert start.startswith(f"session start learner={fingerprint} ip=127.0.0.1 ")
    assert " term=xterm-256color size=90x30 client=SSH-2.0-AsyncSSH_" in start
    assert end.startswith(f"session end learner={fingerprint} ip=127.0.0.1 size=100x32 ")
    assert end.endswith(" reason=quit status=0")
    assert " duration=" in end


async def test_server_stop_ends_sessions_with_a_message(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    from tests.serve.conftest import assert_no_children, make_config

    server = TutorServer(make_config(tmp_path))
    await server.start()
    term = await Terminal.open(server.port, keys["alice"])
    await term.wait_for(*HOME_WORDS)
    assert len(server.children) == 1
    await server.stop()
    assert await term.closed() == 1
    assert "The tutor server is shutting down." in term.text
    await assert_no_children(server)
    assert os.listdir(tmp_path / "ssh") == ["ssh_host_ed25519_key"]


async def test_a_crash_is_an_apology_for_the_learner_and_a_traceback_in_the_log(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    config = make_config(tmp_path, session_entry="tests.serve.standin:faulty_tutor")
    async with serving(config) as reaped:
        term = await Terminal.open(reaped.port, keys["carol"], size=(1, 1))  # its fault
        assert await term.closed() == EXIT_CRASH
    seen = term.raw.decode(errors="replace")
    assert "Traceback" not in seen and 'File "' not in seen
    flat = "".join(seen.split())
    found = re.search(r"\(incident([0-9a-f]{8})\)", flat)
    assert found and "Sorry:thetutorstopped" in flat and "Theserver'sloghasthedetails" in flat
    lines = [r.getMessage() for r in caplog.records if r.name == "tutor.serve"]
    end = next(line for line in lines if line.startswith("session end"))
    assert end.endswith(f" reason=crash status={EXIT_CRASH}")
    crash = next(line for line in lines if line.startswith("session crash"))
    assert f"incident {found[1]}" in crash and "Traceback" in crash
    # nothing was written in the data dir for it: the report went to the log
    assert not (reaped.config.data_dir / "crashes").exists()
