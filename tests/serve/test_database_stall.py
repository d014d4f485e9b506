"""A progress database that stops answering must not freeze the server.

The server's own PostgreSQL backend is stopped with SIGSTOP (a hung database: the socket
stays open, nothing comes back). Admitting a new session then waits in a worker thread
while the event loop (every other learner's keys) keeps running; after a bounded wait the
newcomer is refused with a sentence for the teacher. Once the backend runs again,
nothing is lost: the claim that finished late is given back and the next session is
admitted.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from tests.postgres import PostgresServer, scalar
from tests.serve.conftest import Terminal, make_config
from tests.serve.test_two_nodes import open_sessions, start_node
from tests.waits import wait_until
from tutor.serve.identity import Identity
from tutor.serve.server import TutorServer

pytestmark = pytest.mark.asyncio

# only a safety net so that a server which blocks its loop fails the test instead of
# hanging it; the assertions never depend on it
_UNSTICK_SECONDS = 30.0


@dataclass
class Newcomer:
    identity: Identity
    claim: object = None


def server_backend(database: str) -> int:
    return scalar(
        database,
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'tutor' "
        "AND datname = current_database() AND pid <> pg_backend_pid()",
    )


def open_claims(database: str) -> int:
    return scalar(database, "SELECT count(*) FROM served_sessions WHERE ended_at IS NULL")


async def test_a_hung_database_neither_freezes_the_server_nor_loses_a_slot(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    config = make_config(tmp_path, database=database, session_start="spawn", database_wait=1.0)
    server = TutorServer(config)
    await server.start()
    backend = server_backend(database)
    os.kill(backend, signal.SIGSTOP)
    unstick = threading.Timer(_UNSTICK_SECONDS, os.kill, (backend, signal.SIGCONT))
    unstick.start()
    try:
        ticks = 0

        async def other_learners() -> None:  # stands for everyone else's keys
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(other_learners())
        newcomer = Newcomer(Identity("SHA256:ada"))
        refusal = await server.admit_session(newcomer, "conn", "10.0.0.1")  # type: ignore[arg-type]
        ticks_while_stuck = ticks
        ticker.cancel()
        assert refusal is not None
        assert refusal.reason == "database"
        assert "please tell the teacher" in refusal.message
        assert newcomer.claim is None
        assert ticks_while_stuck >= 10  # the loop ran the whole time
        assert server.caps.acquire(newcomer.identity, "conn", "10.0.0.1") is None
        server.caps.release(newcomer.identity, "conn", "10.0.0.1")  # nothing left counted
    finally:
        os.kill(backend, signal.SIGCONT)
        unstick.cancel()
    try:
        # the claim that completed after the refusal is given back, not kept
        await wait_until(
            lambda: open_sessions(database) == 0 and open_claims(database) == 0,
            "the late claim to be given back",
        )
        again = Newcomer(Identity("SHA256:ada"))
        assert await server.admit_session(again, "conn", "10.0.0.1") is None  # type: ignore[arg-type]
        assert again.claim is not None
        assert open_sessions(database) == 1
        server.leave_session(again, "conn", "10.0.0.1")  # type: ignore[arg-type]
        await wait_until(lambda: open_sessions(database) == 0, "the slot to be given back")
    finally:
        await server.stop()
    assert open_claims(database) == 0


async def test_a_learner_keeps_working_while_a_newcomer_waits_for_a_hung_database(
    postgres_server: PostgresServer, keys: dict[str, asyncssh.SSHKey], tmp_path: Path
) -> None:
    """The reviewer's case on a real `tutor serve`: alice is reading; the server's
    database connection hangs; bob connects; alice's keys are still answered."""
    database = postgres_server.new_database()
    node, port = await start_node(database, tmp_path)
    backend = server_backend(database)  # before any learner's own connection exists
    try:
        alice = await Terminal.open(port, keys["alice"], size=(120, 60))
        await alice.wait_for("embedding", "lesson")
        alice.press("\r")
        await alice.wait_for("Page 1 of")
        os.kill(backend, signal.SIGSTOP)
        unstick = threading.Timer(_UNSTICK_SECONDS, os.kill, (backend, signal.SIGCONT))
        unstick.start()
        try:
            bob = await Terminal.open(port, keys["bob"], size=(120, 60))
            for page in (2, 3):
                alice.press("n")
                await alice.wait_for(f"Page {page} of")  # answered while bob waits
            assert "lesson" not in bob.text  # bob is still waiting to be admitted
        finally:
            os.kill(backend, signal.SIGCONT)
            unstick.cancel()
        await bob.wait_for("embedding", "lesson")  # admitted once the database answers
        await wait_until(lambda: open_sessions(database) == 2, "both slots held")
        await bob.hang_up()
        await alice.hang_up()
        await wait_until(lambda: open_sessions(database) == 0, "both slots given back")
    finally:
        node.send_signal(signal.SIGTERM)
        await asyncio.to_thread(node.wait, 30)
    assert open_claims(database) == 0
