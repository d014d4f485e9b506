"""Two `tutor serve` processes on one PostgreSQL database behave as one tutor.

Node A: a learner reads on to the summary and writes in it until the screen says it is
saved. Node B, same key: refused
while A's session is open (the per-key cap holds across servers). A is killed mid-session
with SIGKILL (no clean-up at all); B then lets the learner in at once, and she is where
she was: nothing the screen had acknowledged is lost.
"""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
from pathlib import Path

import asyncssh
import psycopg
import pytest

from tests.postgres import PostgresServer
from tests.serve.conftest import Terminal, wait_until

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def start_node(database: str, data: Path) -> tuple[subprocess.Popen[str], int]:
    """A real `tutor serve` process; returns it and the port it printed."""
    options = ["--data-dir", str(data), "--database", database, "--max-sessions-per-key", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tutor", "--lang", "en", "serve", "--open", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    banner = ""
    while "stop with Ctrl-C" not in banner:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line, f"tutor serve ended early: {proc.wait()} {proc.stderr.read()}"  # type: ignore[union-attr]
        banner += line
    assert "progress database: postgresql://tutor@/" in banner
    return proc, int(re.search(r"port (\d+)", banner)[1])  # type: ignore[index]


def processes_using(database: str) -> list[int]:
    """Every process whose environment names this database: the learners' tutors."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"TUTOR_DATABASE={database}".encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def open_sessions(database: str) -> int:
    """Session slots held on the database (advisory locks of live servers)."""
    with psycopg.connect(database, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
        ).fetchone()[0]


async def test_two_servers_on_one_database_are_one_tutor(
    postgres_server: PostgresServer, keys: dict[str, asyncssh.SSHKey], tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    node_a, port_a = await start_node(database, tmp_path / "a")
    node_b, port_b = await start_node(database, tmp_path / "b")
    try:
        alice = await Terminal.open(port_a, keys["alice"], size=(120, 60))
        await alice.wait_for("embedding", "lesson")
        alice.press("\r")
        await alice.wait_for("Page 1 of")
        for page in range(2, 16):
            alice.press("n")
            await alice.wait_for(f"Page {page} of")  # shown after the visit is written
        before = await alice.settled()
        alice.press("\t")  # into the summary's first section
        await alice.wait_for_change(before)
        alice.press("ID 只是行号")
        await alice.wait_for("Saved automatically")  # the learner is told it is kept
        assert open_sessions(database) == 1

        refused = await Terminal.open(port_b, keys["alice"])
        await refused.wait_for("already have 1 tutor session open with this key on")
        assert await refused.closed() == 1

        node_a.send_signal(signal.SIGKILL)  # mid-session, no chance to clean up
        await asyncio.to_thread(node_a.wait, 30)
        await wait_until(lambda: open_sessions(database) == 0, "A's slot to be given back")

        again = await Terminal.open(port_b, keys["alice"], size=(120, 60))
        await again.wait_for("Last time:", "page 15")
        again.press("r")
        await again.wait_for("Page 15 of", "ID 只是行号")
        again.press("q")
        assert await again.closed() == 0
        await alice.hang_up()
        # A's learner process ends with its terminal; none is left behind
        await wait_until(lambda: processes_using(database) == [], "no tutor left on A")
    finally:
        for node in (node_a, node_b):
            if node.poll() is None:
                node.send_signal(signal.SIGTERM)
                await asyncio.to_thread(node.wait, 30)
    with psycopg.connect(database, autocommit=True) as conn:
        learner = keys["alice"].get_fingerprint("sha256")
        pages = conn.execute(
            "SELECT page FROM page_visits WHERE learner = %s ORDER BY page", (learner,)
        ).fetchall()
        assert pages == [(page,) for page in range(1, 16)]
        summary = conn.execute("SELECT text FROM summaries WHERE learner = %s", (learner,))
        assert summary.fetchall() == [("ID 只是行号",)]
        nodes = conn.execute("SELECT count(DISTINCT node) FROM served_sessions").fetchone()[0]
        assert nodes == 2
