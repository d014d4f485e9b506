"""Two `tutor serve` processes on one PostgreSQL database behave as one tutor.

Node A: a learner reads on to the summary and writes in it until the screen says it is
saved. Node B, same key, at the same time: she resumes there, sees it, and writes more.
A third session is refused: the per-key cap (2) holds across servers. A is killed
mid-session with SIGKILL (no clean-up at all); its place under the cap comes back at
once, and on B she finds everything either session had said was saved.
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

from tests.postgres import PostgresServer, scalar
from tests.serve.conftest import Terminal, gone, session_pids_of
from tests.waits import wait_until

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def start_node(database: str, data: Path) -> tuple[subprocess.Popen[str], int]:
    """A real `tutor serve` process; returns it and the port it printed."""
    options = ["--data-dir", str(data), "--database", database, "--max-sessions-per-key", "2"]
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
        assert line, f"tutor serve ended early: {proc.wait(timeout=60)} {proc.stderr.read()}"  # type: ignore[union-attr]
        banner += line
    assert "progress database: postgresql://tutor@/" in banner
    return proc, int(re.search(r"port (\d+)", banner)[1])  # type: ignore[index]


def on_b_pid(node: subprocess.Popen[str]) -> int:
    """The one learner's tutor that B runs."""
    (pid,) = session_pids_of(node.pid)
    return pid


def open_sessions(database: str) -> int:
    """Session slots held on the database (advisory locks of live servers)."""
    return scalar(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")


async def write_in_section(term: Terminal, section: int, text: str) -> None:
    """Tab into the summary's `section`-th text area, type, wait until it says saved."""
    before = await term.settled()
    for _ in range(section):
        term.press("\t")
    await term.wait_for_change(before)
    term.press(text)
    await term.wait_for(text, "Saved automatically")  # the learner is told it is kept


async def test_two_servers_on_one_database_are_one_tutor(
    postgres_server: PostgresServer, keys: dict[str, asyncssh.SSHKey], tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    node_a, port_a = await start_node(database, tmp_path / "a")
    node_b, port_b = await start_node(database, tmp_path / "b")
    try:
        # on A, Alice reads on to the summary and writes its first section
        on_a = await Terminal.open(port_a, keys["alice"], size=(120, 60))
        await on_a.wait_for("Embedding", "lesson")
        on_a.press("\x1b[B\r")  # down the course map, past the Token lesson, to Embedding
        await on_a.wait_for("Embedding", "Page 1 of 16")
        for page in range(2, 16):
            on_a.press("n")
            await on_a.wait_for(f"Page {page} of")  # shown after the visit is written
        await write_in_section(on_a, 1, "ID 只是行号")

        # on B, the same key, at once: she resumes on that page and sees what A saved,
        # then writes the second section while A's session is still open
        on_b = await Terminal.open(port_b, keys["alice"], size=(120, 60))
        await on_b.wait_for("Last time:", "page 15")
        on_b.press("r")
        await on_b.wait_for("Page 15 of", "ID 只是行号")
        await write_in_section(on_b, 2, "查表")
        assert open_sessions(database) == 2

        # a third session is over the cap of 2, counted across both servers
        refused = await Terminal.open(port_a, keys["alice"])
        await refused.wait_for("already have 2 tutor sessions open with this key on")
        assert await refused.closed() == 1

        (tutor_on_a,) = session_pids_of(node_a.pid)
        node_a.send_signal(signal.SIGKILL)  # mid-session, no chance to clean up
        await asyncio.to_thread(node_a.wait, 30)
        await wait_until(lambda: open_sessions(database) == 1, "A's slot to be given back")
        await on_a.hang_up()
        # A's learner process ends with its terminal; none is left behind
        await wait_until(lambda: gone(tutor_on_a), "A's tutor gone")
        on_b_pid(node_b)  # B's is still there

        await on_b.hang_up()  # the learner closes her laptop
        await wait_until(lambda: open_sessions(database) == 0, "B's session to end")
        again = await Terminal.open(port_b, keys["alice"], size=(120, 60))
        await again.wait_for("Last time:", "page 15")
        again.press("r")
        await again.wait_for("Page 15 of", "ID 只是行号", "查表")  # nothing saved was lost
        again.press("q")
        assert await again.closed() == 0
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
        summary = conn.execute(
            "SELECT section, text FROM summaries WHERE learner = %s ORDER BY text", (learner,)
        )
        assert [text for _, text in summary.fetchall()] == ["ID 只是行号", "查表"]
        nodes = conn.execute("SELECT count(DISTINCT node) FROM served_sessions").fetchone()[0]
        assert nodes == 2
