"""Limits hold and say why: session caps, connection rate, login, idle and length timeouts."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tests.serve.conftest import Terminal, connect, make_config, serving
from tests.waits import wait_until
from tutor.serve import server as server_module

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")


async def test_session_caps_globally_and_per_key(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    config = make_config(tmp_path, max_sessions=2, max_sessions_per_key=1)
    async with serving(config) as server:
        alice = await Terminal.open(server.port, keys["alice"])
        await alice.wait_for(*HOME_WORDS)

        second = await Terminal.open(server.port, keys["alice"])
        assert await second.closed() == 1
        await second.wait_for(
            "You already have 1 tutor session open with this key (the limit is 1)."
        )

        bob = await Terminal.open(server.port, keys["bob"])
        await bob.wait_for(*HOME_WORDS)

        carol = await Terminal.open(server.port, keys["carol"])
        assert await carol.closed() == 1
        await carol.wait_for("The tutor is full")
        assert len(server.children) == 2

        # a slot frees when a session ends
        alice.press("q")
        assert await alice.closed() == 0
        again = await Terminal.open(server.port, keys["carol"])
        await again.wait_for(*HOME_WORDS)
        for term in (bob, again):
            term.press("q")
            assert await term.closed() == 0


async def test_connection_rate_limit_per_ip(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    async with serving(make_config(tmp_path, rate=0.2, burst=2)) as server:
        for _ in range(2):
            conn = await connect(server.port, keys["alice"])
            conn.close()
            await conn.wait_closed()
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await connect(server.port, keys["alice"])
        assert refused.value.code == asyncssh.DISC_TOO_MANY_CONNECTIONS
        assert refused.value.reason.startswith("Too many connections from 127.0.0.1; wait ")


async def test_login_timeout_disconnects_with_a_reason(tmp_path: Path) -> None:
    async with serving(make_config(tmp_path, login_timeout=1.0)) as server:
        # a client that never even starts the key exchange
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        received = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        # no keys were exchanged, so the disconnect packet is readable as it is
        assert received.startswith(b"SSH-2.0-")
        assert b"Login took longer than 1 second; connect again." in received


async def test_idle_timeout_is_measured_on_input(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    async with serving(make_config(tmp_path, idle_timeout=3.0)) as server:
        term = await Terminal.open(server.port, keys["alice"])
        await asyncio.sleep(1.5)
        term.press("\x1b")  # input resets the clock (escape does nothing on the home screen)
        typed = time.monotonic()
        assert await term.closed() == 1
        assert time.monotonic() - typed >= 3.0
        await term.wait_for("Session closed after 3 seconds without input.")
        await term.wait_for("Your progress is saved; connect again to continue.")
        await wait_until(lambda: not server.children, "the child to be reaped")


async def test_max_session_length(tmp_path: Path, keys: dict[str, asyncssh.SSHKey]) -> None:
    async with serving(make_config(tmp_path, max_session_length=2.0)) as server:
        opened = time.monotonic()
        term = await Terminal.open(server.port, keys["bob"])
        assert await term.closed() == 1
        assert time.monotonic() - opened >= 2.0
        await term.wait_for("Session closed: it reached the 2 seconds limit.")
        await wait_until(lambda: not server.children, "the child to be reaped")


async def test_authorized_keys_only_and_reread_on_change(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    listed = tmp_path / "authorized_keys"
    listed.write_bytes(keys["alice"].export_public_key())
    config = make_config(tmp_path / "data", open=False, authorized_keys=listed)
    async with serving(config) as server:
        conn = await connect(server.port, keys["alice"])
        conn.close()
        await conn.wait_closed()
        for outsider in (keys["bob"], None):
            with pytest.raises(asyncssh.PermissionDenied):
                await connect(server.port, outsider)
        # a teacher adds a learner by editing the file; no restart
        listed.write_bytes(
            b'from="127.0.0.1" '
            + keys["alice"].export_public_key()
            + b"# a comment\n"
            + keys["bob"].export_public_key()
        )
        conn = await connect(server.port, keys["bob"])
        conn.close()
        await conn.wait_closed()


async def test_sessions_per_connection_and_per_address_guests_included(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    config = make_config(
        tmp_path, max_sessions=10, max_sessions_per_connection=2, max_sessions_per_address=3
    )
    async with serving(config) as server:
        guest = await connect(server.port, None)
        first = [await Terminal.open(server.port, None, conn=guest) for _ in range(3)]
        for term in first[:2]:
            await term.wait_for(*HOME_WORDS)
        assert await first[2].closed() == 1
        await first[2].wait_for(
            "This connection already has 2 tutor sessions open (the limit is 2)."
        )
        again = await connect(server.port, None)
        second = [await Terminal.open(server.port, None, conn=again) for _ in range(2)]
        await second[0].wait_for(*HOME_WORDS)
        assert await second[1].closed() == 1
        await second[1].wait_for("3 tutor sessions already open from 127.0.0.1 (the limit is 3).")
        assert len(server.children) == 3
        # another address still gets in
        learner = await Terminal.open(server.port, keys["alice"], source="127.0.0.2")
        await learner.wait_for(*HOME_WORDS)
        for term in (first[0], first[1], second[0], learner):
            term.press("q")
            assert await term.closed() == 0
        for conn in (guest, again, learner.conn):
            conn.close()


class Silent:
    """A client that connects and says nothing (kept, or its socket would be collected)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port: int, source: str = "127.0.0.1") -> Silent:
        opened = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        await opened[0].readline()  # the server's SSH version: counted by now
        return cls(*opened)

    async def speak(self) -> None:
        """Send an SSH version, then nothing more: no longer silent, never logged in."""
        self.writer.write(b"SSH-2.0-stalling\r\n")
        await self.writer.drain()

    async def told(self) -> bytes:
        """All the server sends until it closes the connection."""
        return await asyncio.wait_for(self.reader.read(), 10)

    @property
    def open(self) -> bool:
        return not self.reader.at_eof()


async def test_connections_per_address_are_capped_before_login(tmp_path: Path) -> None:
    config = make_config(tmp_path, max_connections_per_address=3)
    async with serving(config) as server:
        held = [await Silent.connect(server.port) for _ in range(3)]
        refused = await Silent.connect(server.port)
        # closed at once, with the reason (no keys were exchanged: readable as it is)
        said = await refused.told()
        assert b"Too many connections from 127.0.0.1: 3 connections open, the limit is 3." in said
        other = await Silent.connect(server.port, "127.0.0.2")
        assert len(server.connection_caps.open) == 4
        assert all(client.open for client in (*held, other))


@pytest.mark.parametrize("speaks", [False, True], ids=["silent", "stalled"])
async def test_connections_that_do_not_log_in_make_way_when_the_server_is_full(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], speaks: bool
) -> None:
    """A learner's client speaks at once and logs in at once, so a connection that has not
    said a word makes room for it, and so does one that says its SSH version and then
    nothing: oldest first, from addresses closed to make room before first."""
    config = make_config(tmp_path, max_connections=3)
    async with serving(config) as server:
        waiting = [await Silent.connect(server.port, f"127.0.0.{n}") for n in (10, 11, 12)]
        if speaks:
            for client in waiting:
                await client.speak()
            await wait_until(
                lambda: not any(c.silent for c in server.connections), "their versions to arrive"
            )
        conn = await connect(server.port, keys["alice"], source="127.0.0.2")
        said = b"before it logged in" if speaks else b"closed this silent connection"
        assert b"The tutor server is busy and " in (told := await waiting[0].told())
        assert said in told
        assert waiting[1].open and waiting[2].open
        conn.close()
        await conn.wait_closed()


async def test_logins_that_ask_for_nothing_make_way_when_the_server_is_full(
    tmp_path: Path,
    keys: dict[str, asyncssh.SSHKey],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A logged-in connection with no session makes room once it has had none for a while
    (a learner's client asks for its session at once, but not in the same instant)."""
    caplog.set_level(logging.INFO, logger="tutor.serve")
    config = make_config(tmp_path, max_connections=2)
    async with serving(config) as server:
        idle = [await connect(server.port, keys[n], source="127.0.0.10") for n in ("bob", "carol")]
        # young: it may ask for its session yet, so the newcomer is refused
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await connect(server.port, keys["alice"], source="127.0.0.2")
        assert refused.value.reason.startswith("The tutor server has as many connections")
        monkeypatch.setattr(server_module, "LINGER_SECONDS", 0.0)  # as if time had passed
        conn = await connect(server.port, keys["alice"], source="127.0.0.2")
        await asyncio.wait_for(idle[0].wait_closed(), 10)
        assert not idle[1].is_closed()
        assert "connection closed ip=127.0.0.10 reason=lingering" in caplog.text
        for each in (conn, idle[1]):
            each.close()
            await each.wait_closed()


async def test_a_login_that_opens_no_session_is_closed(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    config = make_config(tmp_path, session_open_timeout=1.0)
    async with serving(config) as server:
        conn = await connect(server.port, keys["alice"])
        await asyncio.wait_for(conn.wait_closed(), 10)
        await wait_until(lambda: not server.connections, "the connection to be forgotten")
        assert "connection closed ip=127.0.0.1 reason=no-session" in caplog.text
        # a connection whose sessions have ended gets the same time again
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        term.press("q")
        assert await term.closed() == 0
        await asyncio.wait_for(term.conn.wait_closed(), 10)


async def test_a_terminal_request_without_a_shell_is_closed(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    """The client asks for a pty and then nothing: no tutor starts, and the connection
    ends when the session-open time is up. (asyncssh's own client always asks for a
    shell after the pty, so the channel is driven by hand here.)"""
    from asyncssh.channel import SSHClientChannel
    from asyncssh.packet import String, UInt32

    caplog.set_level(logging.INFO, logger="tutor.serve")
    async with serving(make_config(tmp_path, session_open_timeout=1.0)) as server:
        conn = await connect(server.port, keys["alice"])
        chan: SSHClientChannel[bytes] = SSHClientChannel(
            conn, asyncio.get_running_loop(), "strict", None, "strict", 65536, 32768
        )
        await chan._open(b"session")
        chan._session = asyncssh.SSHClientSession()
        size = (UInt32(80), UInt32(24), UInt32(0), UInt32(0))
        assert await chan._make_request(b"pty-req", String("xterm"), *size, String(b"\0"))
        await asyncio.wait_for(conn.wait_closed(), 10)
        assert not server.children
        assert "connection closed ip=127.0.0.1 reason=no-session" in caplog.text


# once told to (a line on stdin), connects `count` times to 127.0.0.1:`port` from
# 127.0.0.3 and holds the sockets until killed
HOLDS_CONNECTIONS = """
import socket, sys, time
sys.stdin.readline()
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket()
    s.bind(("127.0.0.3", 0))
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", int(sys.argv[1])))
    held.append(s)
print("connected", flush=True)
time.sleep(3600)
"""


def accepts_failing(monkeypatch: pytest.MonkeyPatch) -> list[OSError]:
    """The accepts that fail from now on, as the event loop reports them to its handler
    (whichever handler that is)."""
    loop = asyncio.get_running_loop()
    failed: list[OSError] = []
    report = loop.call_exception_handler

    def noted(context: dict[str, Any]) -> None:
        if str(context.get("message")).startswith("socket.accept() out of system"):
            failed.append(context["exception"])
        report(context)

    monkeypatch.setattr(loop, "call_exception_handler", noted)
    return failed


async def test_out_of_open_files_the_server_pauses_accepting_logs_once_and_sessions_go_on(
    tmp_path: Path,
    keys: dict[str, asyncssh.SSHKey],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The caps fit the open-file limit, but should the process run out all the same
    (EMFILE on accept), it retries each second, logs one line per interval instead of a
    traceback each time, and the sessions already open are served as before."""
    caplog.set_level(logging.INFO)
    async with serving(make_config(tmp_path)) as server:
        term = await Terminal.open(server.port, keys["alice"])
        await term.wait_for(*HOME_WORDS)
        home = await term.settled()
        failed = accepts_failing(monkeypatch)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        # the clients are another process: only the server's accepts need files here
        flood = subprocess.Popen(
            [sys.executable, "-c", HOLDS_CONNECTIONS, str(server.port), "10"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert flood.stdin is not None and flood.stdout is not None
            resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 1, hard))
            flood.stdin.write("go\n")
            flood.stdin.flush()
            assert await asyncio.to_thread(flood.stdout.readline) == "connected\n"
            # asyncio retries the accept every second: wait for three failures
            await wait_until(lambda: len(failed) >= 3, "accepts to fail for want of files")
            term.press("\x10")  # ctrl+p: the open session still answers keys
            palette = await term.wait_for_change(home)
            term.press("\x1b")
            await term.wait_for_change(palette)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            flood.kill()
            flood.wait(timeout=60)
        # files again: a new learner gets in
        bob = await Terminal.open(server.port, keys["bob"], source="127.0.0.2")
        await bob.wait_for(*HOME_WORDS)
        for learner in (term, bob):
            learner.press("q")
            assert await learner.closed() == 0
    said = [r.getMessage() for r in caplog.records if "accept" in r.getMessage()]
    assert said == [
        "cannot accept connections: [Errno 24] Too many open files "
        f"(open-file limit {server.budget.limit}); retrying every second"
    ]
    assert not [r for r in caplog.records if r.exc_info or r.name == "asyncio"]
