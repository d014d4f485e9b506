"""What a client can make the server keep, and what a remote learner is shown: env requests
are capped, guests cannot take the slots kept for keys, a live run leaves nothing behind,
and no server path reaches the learner's screen."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
import tempfile
from pathlib import Path

import asyncssh
import pytest
from asyncssh.packet import String

from tests.serve.conftest import APP_ARGS, Terminal, connect, make_config, serving
from tests.waits import wait_until
from tutor.serve.limits import kept_for_keys
from tutor.serve.server import TutorServer

served = pytest.mark.asyncio(loop_scope="module")

HOME_WORDS = ("embedding", "lesson")
FIXTURES = Path(__file__).parents[1] / "content" / "fixtures" / "lessons"


@served
async def test_env_requests_are_capped_and_only_the_tutors_variables_kept(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutor.serve")
    # the client's record of the disconnect (a closing by the application is no error to it)
    caplog.set_level(logging.DEBUG, logger="asyncssh")
    async with serving(make_config(tmp_path)) as server:
        # a flood of env requests: the connection is closed, with the reason, before any tutor
        conn = await connect(server.port, keys["bob"])
        flood = {f"V{n}": "y" * 1000 for n in range(500)}
        with contextlib.suppress(asyncssh.Error, OSError):  # refused by the disconnect
            await conn.create_process(term_type="xterm", term_size=(80, 24), env=flood)
        await asyncio.wait_for(conn.wait_closed(), 10)
        assert (
            "Received disconnect: "
            + (
                "This session sent more than 64 environment variables or 64 KB of them, more "
                "than a terminal needs; connect again with fewer (SendEnv or SetEnv in your ssh "
                "configuration)."
            )
            in caplog.text
        )
        assert "connection closed ip=127.0.0.1 reason=env-flood" in caplog.text
        await wait_until(lambda: not server.sessions, "the flood's session to be gone")
        assert not server.children
        # what a terminal sends: a session starts, and keeps only what the tutor reads
        sent = {"COLORTERM": "truecolor", "LANG": "C.UTF-8", "JUNK": "x" * 30_000}
        term = await Terminal.open(server.port, keys["alice"], env=sent)
        await term.wait_for(*HOME_WORDS)
        (session,) = server.sessions
        assert dict(session.client_env) == {"COLORTERM": "truecolor"}
        term.press("q")
        assert await term.closed() == 0
        # the same flood once the tutor runs: the connection goes, and the tutor with it
        late = await Terminal.open(server.port, keys["carol"])
        await late.wait_for(*HOME_WORDS)
        for n in range(100):
            late.process.channel._send_request(b"env", String(f"V{n}"), String("y"))
        await asyncio.wait_for(late.conn.wait_closed(), 10)
        await wait_until(lambda: not server.children, "the flooding learner's tutor to end")


@served
async def test_guests_cannot_take_the_slots_kept_for_keys(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """Of 5 slots, 20% (1) is kept for keys: guests from two addresses fill the other 4,
    the next guest is told so, and a learner with a key still gets in."""
    async with serving(make_config(tmp_path, max_sessions=5)) as server:
        first = await connect(server.port, None, source="127.0.0.10")
        second = await connect(server.port, None, source="127.0.0.11")
        guests = [await Terminal.open(server.port, None, conn=first) for _ in range(3)]
        guests.append(await Terminal.open(server.port, None, conn=second))
        for term in guests:
            await term.wait_for(*HOME_WORDS)
        refused = await Terminal.open(server.port, None, conn=second)
        assert await refused.closed() == 1
        await refused.wait_for(
            "All 4 tutor sessions open to guests are taken (1 more is kept for learners "
            "with an SSH key). Connect with your SSH key, or try again in a few minutes."
        )
        learner = await Terminal.open(server.port, keys["alice"], source="127.0.0.2")
        await learner.wait_for(*HOME_WORDS)
        assert len(server.children) == 5
        for term in (*guests, learner):
            term.press("q")
            assert await term.closed() == 0
        for conn in (first, second, learner.conn):
            conn.close()


def test_the_share_kept_for_keys_is_rounded_up() -> None:
    assert [kept_for_keys(50, 20), kept_for_keys(5, 20), kept_for_keys(7, 1)] == [10, 1, 1]
    assert [kept_for_keys(50, 0), kept_for_keys(50, 100)] == [0, 50]


@served
async def test_a_served_content_error_names_no_server_path(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    content = tmp_path / "course-on-server" / "lessons"
    shutil.copytree(FIXTURES / "missing-field", content / "missing-field")
    config = make_config(tmp_path / "data", app_args=(*APP_ARGS, "--content", str(content)))
    async with serving(config) as server:
        term = await Terminal.open(server.port, keys["alice"], size=(120, 30))
        await term.wait_for("problem", "missing required field 'question'")
        await term.wait_for("missing-field/lesson.md:2:1:")
        assert "course-on-server" not in term.text and str(tmp_path) not in term.text
        await term.wait_for("Press q to quit.")
        term.press("q")
        assert await term.closed() != 0  # broken content: the tutor exits non-zero


@served
async def test_a_guests_live_run_goes_with_the_guest_and_names_no_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("TUTOR_LIVE_TRAINING", "1")
    monkeypatch.setenv("TUTOR_LIVE_SLOTS", str(tmp_path / "slots"))
    temporary = Path(tempfile.gettempdir())
    runs_before = set(temporary.glob("tutor-run-*"))
    content = Path(__file__).parent / "fixtures" / "training-only"
    config = make_config(tmp_path / "data", app_args=(*APP_ARGS, "--content", str(content)))
    async with serving(config) as server:
        term = await Terminal.open(server.port, None, size=(100, 40))
        await term.wait_for("Mini")
        term.press("\r")  # the only lesson, at its only page
        await term.wait_for("Train a table of your own")
        term.press("\t")  # to the run
        await term.wait_for("Train your own")
        term.press("wwwsss")  # d = 8, 20 steps: the shortest run
        await term.wait_for("Train your own: d = 8 · 20 steps")
        (scratch,) = (server.config.data_dir / "guests").iterdir()
        term.press("\r")
        await wait_until(lambda: "Done" in term.text, lambda: term.text, timeout=300)
        done = await term.settled()
        assert "the pictures above are your run" in re.sub(r"\s+", " ", done)
        assert str(tmp_path) not in done and "/tmp" not in done and "--model" not in done
        (run,) = (scratch / "runs").glob("*/d8-20steps-*")
        assert (run / "config.json").is_file()
        term.press("q")
        assert await term.closed() == 0
        await wait_until(lambda: not scratch.exists(), "the guest's scratch folder to go")
    assert set(temporary.glob("tutor-run-*")) == runs_before


@served
async def test_channels_one_connection_may_hold_open_are_capped(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    """Each open channel keeps a session's state in the server, shell or not, so a
    connection holds no more open channels than it may have sessions, and one more (whose
    session is refused with the reason)."""
    from asyncssh.channel import SSHClientChannel

    async with serving(make_config(tmp_path, max_sessions_per_connection=2)) as server:
        conn = await connect(server.port, keys["alice"])

        async def channel() -> SSHClientChannel[bytes]:
            opened: SSHClientChannel[bytes] = SSHClientChannel(
                conn, asyncio.get_running_loop(), "strict", None, "strict", 65536, 32768
            )
            await opened._open(b"session")
            return opened

        held = [await channel() for _ in range(3)]
        with pytest.raises(asyncssh.ChannelOpenError) as refused:
            await channel()
        assert refused.value.reason == (
            "This connection already has 3 session channels open (the limit is 3). Close one first."
        )
        held[0].close()
        await wait_until(lambda: len(server_channels(server)) == 2, "the closed channel gone")
        held.append(await channel())  # a closed channel makes room
        conn.close()
        await conn.wait_closed()


def server_channels(server: TutorServer) -> list[object]:
    return [chan for connection in server.connections for chan in connection.channels]
