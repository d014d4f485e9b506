"""Limits hold and say why: session caps, connection rate, login, idle and length timeouts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import Terminal, connect, make_config, serving, wait_until

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
