"""A real server on 127.0.0.1, real SSH clients (asyncssh) and pyte as the learner's screen.

Each session starts a Python child, so servers are shared per module where the limits
allow it, and every test ends by checking that no child process outlived it.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import asyncssh
import pyte
import pytest
import pytest_asyncio

from tests.waits import WAIT_SECONDS, wait_until
from tutor.commands.session import ENTRY, PRELOAD
from tutor.serve.config import ServeConfig
from tutor.serve.server import TutorServer

# the child runs the real app in English so screens can be matched on English words
APP_ARGS = ("--lang", "en")


def child_pids_of(pid: int) -> list[int]:
    """Every process (zombies included) whose parent is `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = stat_fields(int(entry.name))
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after "pid (comm) ": state, ppid, ... (comm may hold spaces and
    parentheses)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


def gone(pid: int) -> bool:
    """Exited: no such process, or a zombie nobody has reaped yet."""
    try:
        return stat_fields(pid)[0] == "Z"
    except OSError:
        return True


def session_pids_of(server_pid: int) -> list[int]:
    """The learners' tutors under a server: its children or its session template's that
    lead a session of their own on a terminal (zombies included)."""
    found = []
    for pid in child_pids_of(server_pid):
        for candidate in (pid, *child_pids_of(pid)):
            try:
                fields = stat_fields(candidate)
            except OSError:
                continue
            if int(fields[3]) == candidate and int(fields[4]) != 0:  # session id, tty
                found.append(candidate)
    return found


# Processes that were already this runner's children when the current test began. Where the
# test runner is the container's first process (PID 1), every orphan on the machine, such as
# the throwaway PostgreSQL's server after `pg_ctl` exits, becomes its child; those are not
# the server's, so only children born during the test count.
_children_at_start: set[int] = set()


@pytest.fixture(autouse=True)
def _note_children_at_start() -> None:
    _children_at_start.clear()
    _children_at_start.update(child_pids_of(os.getpid()))


def own_child_pids() -> list[int]:
    """This process's children that were started during the current test."""
    return [pid for pid in child_pids_of(os.getpid()) if pid not in _children_at_start]


def make_config(data_dir: Path, **changes: object) -> ServeConfig:
    config = ServeConfig(
        data_dir=data_dir,
        port=0,
        open=True,
        app_args=APP_ARGS,
        session_entry=ENTRY,
        session_preload=PRELOAD,
    )
    return replace(config, **changes)  # type: ignore[arg-type]


async def start_cli(
    data: Path, *options: str, preexec_fn: Callable[[], object] | None = None
) -> tuple[subprocess.Popen[str], int, str]:
    """`tutor serve --open` in its own process; (process, port, host key fingerprint)."""
    command = [sys.executable, "-m", "tutor", *APP_ARGS, "serve", "--open", "--port", "0"]
    proc = subprocess.Popen(
        [*command, "--data-dir", str(data), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec_fn,
    )
    assert proc.stdout is not None
    lines = []
    while len(lines) < 6:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line, f"tutor serve ended early: {proc.wait(timeout=60)} {proc.stderr.read()}"  # type: ignore[union-attr]
        lines.append(line)
    banner = "".join(lines)
    port = int(re.search(r"listening on 127\.0\.0\.1 port (\d+), this machine only", banner)[1])  # type: ignore[index]
    assert f"learners connect with: ssh -p {port} 127.0.0.1" in banner
    fingerprint = re.search(r"host key fingerprint: (SHA256:\S+)", banner)[1]  # type: ignore[index]
    return proc, port, fingerprint


def running_template(pid: int) -> bool:
    """A (live) session template: its command line names the module."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"tutor.serve.template" in cmdline and not gone(pid)


async def assert_no_children(server: TutorServer) -> None:
    """Every session's child was reaped: the server's books and /proc agree. Running
    servers' session templates are the only children left, and they have none; a stopped
    server's template is gone too."""
    await wait_until(lambda: not server.children and not server.closing, "sessions to end")
    if server.template is not None and server.template.stopping:
        assert server.template.pid is None
    await wait_until(
        lambda: [pid for pid in own_child_pids() if not running_template(pid)] == [],
        lambda: f"no child processes but templates: {own_child_pids()}",
    )
    templates = [pid for pid in child_pids_of(os.getpid()) if running_template(pid)]
    await wait_until(
        lambda: all(child_pids_of(pid) == [] for pid in templates), "the templates' sessions"
    )


class _GuestClient(asyncssh.SSHClient):
    """Answers the server's guest prompt the way a learner pressing Enter would."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: list[tuple[str, bool]]
    ) -> list[str]:
        return ["" for _ in prompts]


async def connect(
    port: int, key: asyncssh.SSHKey | None, username: str = "learner", source: str = "127.0.0.1"
) -> asyncssh.SSHClientConnection:
    """A client that uses exactly the key given (or none), nothing from ~/.ssh. `source`:
    any 127.x.y.z address, so one test can be several clients."""
    conn, _ = await asyncssh.create_connection(
        _GuestClient,
        "127.0.0.1",
        port,
        local_addr=(source, 0),
        username=username,
        client_keys=[key] if key is not None else None,
        known_hosts=None,
        agent_path=None,
        config=None,
        preferred_auth="publickey,keyboard-interactive",
    )
    return conn


class Terminal:
    """One learner: an SSH session with a PTY, drawn on a pyte screen as bytes arrive."""

    def __init__(
        self,
        conn: asyncssh.SSHClientConnection,
        process: asyncssh.SSHClientProcess[bytes],
        size: tuple[int, int],
    ) -> None:
        self.conn = conn
        self.process = process
        cols, rows = size
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(
        cls,
        port: int,
        key: asyncssh.SSHKey | None,
        size: tuple[int, int] = (80, 24),
        env: dict[str, str] | None = None,
        source: str = "127.0.0.1",
        conn: asyncssh.SSHClientConnection | None = None,
    ) -> Terminal:
        """A new session, on a new connection unless `conn` is given."""
        conn = conn or await connect(port, key, source=source)
        process = await conn.create_process(
            term_type="xterm-256color", term_size=size, encoding=None, env=env or {}
        )
        return cls(conn, process, size)

    async def _read(self) -> None:
        while data := await self.process.stdout.read(65536):
            self.raw += data
            self._stream.feed(data)

    @property
    def text(self) -> str:
        self._check_reader()
        # not `screen.display`: pyte 0.8.2 raises IndexError there on the empty cell a
        # wide (CJK) character overwritten by a narrow one leaves behind
        screen = self.screen
        rows = (screen.buffer[y] for y in range(screen.lines))
        return "\n".join(
            "".join(row[x].data for x in range(screen.columns)).rstrip() for row in rows
        )

    def _flat(self) -> str:
        return re.sub(r"\s+", "", self.text).lower()

    def _check_reader(self) -> None:
        if self._reader.done() and not self._reader.cancelled():
            self._reader.result()  # a crash while drawing fails the test here, not later

    async def wait_for(self, *words: str) -> None:
        """Until every word is on screen (case-insensitive, ignoring spaces and wrapping)."""
        wanted = [re.sub(r"\s+", "", word).lower() for word in words]
        await wait_until(
            lambda: all(word in self._flat() for word in wanted),
            lambda: f"{words!r} on screen; the screen shows:\n{self.text}",
        )

    async def wait_for_change(self, before: str) -> str:
        await wait_until(lambda: self.text != before, f"a change from:\n{before}")
        return await self.settled()

    async def settled(self, quiet: float = 0.5, limit: float = 10.0) -> str:
        """The screen once its text has stayed the same for `quiet` seconds.

        Text, not bytes: a blinking cursor repaints forever without changing any text.
        """
        deadline = time.monotonic() + limit
        text = self.text
        while time.monotonic() < deadline:
            await asyncio.sleep(quiet)
            if self.text == text:
                break
            text = self.text
        return text

    def press(self, keys: str | bytes) -> None:
        self.process.stdin.write(keys.encode() if isinstance(keys, str) else keys)

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(lines=rows, columns=cols)
        self.process.change_terminal_size(cols, rows)

    async def closed(self) -> int | None:
        """Wait for the server to end the session; its exit status."""
        await asyncio.wait_for(self.process.wait_closed(), WAIT_SECONDS)
        await asyncio.wait_for(self._reader, WAIT_SECONDS)
        return self.process.exit_status

    async def hang_up(self) -> None:
        """Close the connection (and with it every session on it)."""
        self._reader.cancel()
        self.conn.close()
        await self.conn.wait_closed()


@pytest.fixture(scope="session")
def keys() -> dict[str, asyncssh.SSHKey]:
    return {
        name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob", "carol")
    }


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TutorServer]:
    """The module's shared server: open keys, roomy limits."""
    srv = TutorServer(make_config(tmp_path_factory.mktemp("serve-data")))
    await srv.start()
    yield srv
    await srv.stop()
    await assert_no_children(srv)


@pytest_asyncio.fixture(loop_scope="module")
async def reaped(server: TutorServer) -> AsyncIterator[TutorServer]:
    """The shared server, checked after the test: every session over, every child reaped."""
    yield server
    await assert_no_children(server)


@asynccontextmanager
async def serving(config: ServeConfig) -> AsyncIterator[TutorServer]:
    """A server with its own limits for one test; stopped and checked for leftovers."""
    srv = TutorServer(config)
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()
    await assert_no_children(srv)


class SilentFlood:
    """Clients that connect and say nothing, each from its own 127.0.0.x address, and
    connect again as soon as the server closes them: a flood that never lets up."""

    def __init__(self, port: int, addresses: int, first: int = 10) -> None:
        self.port = port
        self.connects = 0
        self._tasks = [
            asyncio.create_task(self._one(f"127.0.{n // 250}.{n % 250 + 1}"))
            for n in range(first, first + addresses)
        ]

    async def _one(self, source: str) -> None:
        while True:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(source, 0)
                )
            except OSError:
                await asyncio.sleep(0.1)
                continue
            self.connects += 1
            try:
                await reader.read()  # until the server closes it
            finally:
                writer.close()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
