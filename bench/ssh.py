"""SSH: concurrent learners on loopback against `tutor serve`, each typing a key every 200 ms.

For each level (10, 25, 50 sessions) a fresh `tutor serve --open` runs as a subprocess on
a free port with a temporary data dir. Every learner is an asyncssh client with its own
key and an 80x24 pty. Setup (untimed, drawn on a pyte screen): wait for the home screen,
Enter opens the lesson, n goes to page 2, two tabs focus the token strip's text field,
End moves past its text, and a typed "Z" must appear after it (each step waits for its
screen and then for 0.3 s of quiet). Then, for the timed phase, every learner
types on a fixed 200 ms clock (open loop: a learner does not wait for the screen), alternating a
letter and backspace, so the field and its live token count change on every key and the
state stays bounded. Latency = key sent -> first output bytes received after it; keys are
matched to output in order (one chunk answers the oldest unanswered key; output while no
key is waiting is the tail of an earlier answer and is ignored). The first second of the
phase is warm-up and not counted. Before it, every learner sits idle for 5 s in the
focused field (served sessions do not blink the cursor) and the CPU that costs is
recorded too, split like the typing phase's into server, children and this client.
Memory: VmRSS (and PSS, which splits shared pages fairly) of the server and every process
under it, sampled at the end of the idle phase and of the typing phase; per learner, the
PSS of the learners' own processes (the tutors) divided by their number.

Sessions start either way `tutor serve --session-start` allows, side by side in one run
(default: both): `fork` (forks of the pre-loaded session template) and `spawn` (a fresh
Python each). `--idle N` adds N learners who open the lesson list and sit there (no cursor
blinks, no input) while the others type. `--first-screens` measures instead the time from
connecting to the lesson list on screen while 10 learners connect at once (three rounds
on one server, each closing its sessions before the next).

--abuse measures the server under attack instead, with its default limits:
- input flood: one keyed learner's client tries to send 1 GB (64 KB writes, each awaiting
  the SSH flow control) for at most 60 s, once while the learner's tutor reads and once
  while it is stopped (SIGSTOP: it reads nothing); the server's RSS before, its peak
  (VmHWM, reset at the start) and what it accepted;
- silent flood: 1,000 clients from distinct 127.x addresses connect and say nothing,
  reconnecting whenever the server closes them; while they run, learners connect one
  after another and the time to their first screen (the lesson list) is measured, beside
  the same measure with no flood, on the same server;
- stalling flood: the same, but each client sends its SSH version and then nothing (not
  silent, never logged in);
- env flood: one keyed client opens a session and sends 10,000 `env` requests of 30 KB
  each before asking for its shell; the server's RSS before, its peak, and 2 s after the
  client has gone, and whether the server closed the connection;
- size claim: one learner types an in-band window size report for 10,000 x 10,000 cells
  (`ESC[48;10000;10000;0;0t`, what a terminal in mode 2048 sends on a resize) into an
  80x24 session; the session's peak RSS before and SIZE_CLAIM_SECONDS after, the bytes it
  sent meanwhile, and another learner's time to the first screen during it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import asyncssh
import pyte
from _common import (
    MB,
    emit,
    machine,
    make_parser,
    mb,
    proc_status,
    screen_lines,
    summary_ms,
    tutor_root,
)

from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.words.i18n import t

COLS, ROWS = 80, 24
INTERVAL_S = 0.2
SETUP_TIMEOUT_S = 60.0
WARMUP_S = 1.0
IDLE_S = 5.0
QUIET_S = 0.3  # no output for this long: the screen is settled
LETTERS = b"abcdefghijklmnopqrstuvwxyz"
BACKSPACE = b"\x7f"
END = b"\x1b[F"
DOWN = b"\x1b[B"


FLOOD_BYTES = 1024**3
FLOOD_SECONDS = 60.0
CHUNK = 64 * 1024
SILENT_CLIENTS = 1000
FIRST_SCREENS = 10
SERVER_FD_LIMIT = 1024
ENV_REQUESTS = 10_000
ENV_VALUE_BYTES = 30 * 1024
SIZE_CLAIM = b"\x1b[48;10000;10000;0;0t"
SIZE_CLAIM_SECONDS = 10.0


# bare_session.py's sessions, from the least drawn: no app, then a bare Textual app
YARDSTICKS = ("one_line", "bare_app")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Learner(asyncssh.SSHClientSession[bytes]):
    """One learner's terminal: a pyte screen during setup, timestamps during the phase."""

    def __init__(self) -> None:
        self.screen: pyte.Screen | None = pyte.Screen(COLS, ROWS)
        self._stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.last_output = 0.0
        self.sent: collections.deque[float] = collections.deque()
        self.latencies: list[tuple[float, float]] = []  # (sent at, latency)
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.conn: asyncssh.SSHClientConnection | None = None
        self.closed = False

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:  # type: ignore[override]
        self.chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        now = self.last_output = time.perf_counter()
        if self.sent:
            sent = self.sent.popleft()
            self.latencies.append((sent, now - sent))
        if self.screen is not None:
            self._stream.feed(data)
            self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.changed.set()

    @property
    def text(self) -> str:
        assert self.screen is not None
        return "\n".join(screen_lines(self.screen))

    async def wait_for(self, check: Callable[[str], bool], what: str) -> None:
        try:
            async with asyncio.timeout(SETUP_TIMEOUT_S):
                while not check(self.text):
                    if self.closed:
                        raise RuntimeError(f"session closed while waiting for {what}")
                    self.changed.clear()
                    await self.changed.wait()
        except (TimeoutError, RuntimeError) as exc:
            raise RuntimeError(f"{exc or 'timed out'} waiting for {what}:\n{self.text}") from exc
        while (quiet := time.perf_counter() - self.last_output) < QUIET_S:
            await asyncio.sleep(QUIET_S - quiet)

    def write(self, data: bytes) -> None:
        assert self.chan is not None
        self.chan.write(data)

    def press(self, key: bytes) -> None:
        self.sent.append(time.perf_counter())
        self.write(key)


async def open_learner(port: int, key: asyncssh.SSHKey, marks: dict[str, str]) -> Learner:
    """Connect, and walk to page 2's text field with a verified keystroke (untimed)."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="learner",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=None,
        preferred_auth="publickey",
    )
    _, learner = await conn.create_session(
        Learner, term_type="xterm-256color", term_size=(COLS, ROWS), encoding=None
    )
    learner.conn = conn
    await learner.wait_for(lambda s: marks["home"] in s, "the home screen")
    learner.write(DOWN * int(marks["place"]) + b"\r")
    await learner.wait_for(lambda s: marks["page1"] in s, "page 1")
    learner.write(b"n")
    await learner.wait_for(lambda s: marks["page2"] in s, "page 2")
    for keys in (b"\t", END):  # the first stop is the field; END leaves the cursor at its end
        learner.write(keys)
        await asyncio.sleep(QUIET_S)
    learner.write(b"Z")
    await learner.wait_for(lambda s: marks["field"] + "Z" in s, "the typed Z in the field")
    learner.write(BACKSPACE)
    await learner.wait_for(lambda s: marks["field"] + "Z" not in s, "the Z erased")
    learner.screen = None  # no screen parsing in the timed phase: it would steal CPU
    learner.sent.clear()
    learner.latencies.clear()
    return learner


def setup_marks() -> dict[str, str]:
    """Text that shows each setup step landed, taken from the shipped lesson."""
    course = load_lessons(content_dir())
    lesson = course.lesson("embedding")
    assert lesson is not None
    page2 = lesson.pages[1]
    tokens = next(b for b in page2.body_blocks if getattr(b, "widget", None) == "tokens")
    total = len(lesson.pages)
    return {
        "home": lesson.card.title,
        "page1": t("page.counter", "zh", n=1, total=total),
        "page2": t("page.counter", "zh", n=2, total=total),
        "field": tokens.config.text,  # type: ignore[attr-defined]
        "place": str(course.lessons.index(lesson)),  # in the course map: ↓ presses to it
    }


async def type_keys(learner: Learner, offset: float, until: float) -> None:
    """A letter, then backspace, on a fixed 200 ms clock from `offset`."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(offset)
    due = loop.time()
    n = 0
    while due < until and not learner.closed:
        learner.press(LETTERS[n // 2 % 26 : n // 2 % 26 + 1] if n % 2 == 0 else BACKSPACE)
        n += 1
        due += INTERVAL_S
        await asyncio.sleep(max(0.0, due - loop.time()))


def process_tree(root: int) -> list[int]:
    """root and every process under it, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, ppid in parents.items() if ppid in frontier]
        tree += frontier
    return tree


def is_session(pid: int) -> bool:
    """A learner's tutor: it leads its own session on a terminal (the server and the
    session template have none)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[3]) == pid and int(fields[4]) != 0


def pss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def memory(root: int) -> dict[str, float]:
    """RSS and PSS of the server's whole tree, and the PSS of its sessions alone."""
    rss = total = 0
    sessions: list[int] = []
    pids = process_tree(root)
    for pid in pids:
        with contextlib.suppress(OSError):
            rss += proc_status(pid)["VmRSS"]
            own = pss(pid)
            total += own
            if is_session(pid):
                sessions.append(own)
    count = len(sessions)
    return {
        "processes": len(pids),
        "sessions": count,
        "rss_mb": mb(rss),
        "pss_mb": mb(total),
        "pss_mb_sessions": mb(sum(sessions)),
        "pss_mb_per_session": round(sum(sessions) / MB / count, 1) if count else 0.0,
        # with --idle, most learners sit on the lesson list: the median is one of them
        "pss_mb_session_median": mb(statistics.median(sessions)) if count else 0.0,
    }


def cpu_share(server: int, children: Sequence[int]) -> Callable[[float], dict[str, float]]:
    """Start counting CPU; the returned function gives each party's share of all cores since.

    server = the `tutor serve` process (SSH and pty relay), children = the learners' apps,
    client = this process (the simulated learners, which compete for the same cores).
    """
    start = cpu_seconds([server]), cpu_seconds(children), time.process_time()

    def since(wall: float) -> dict[str, float]:
        cores = wall * (os.cpu_count() or 1)
        used = (
            cpu_seconds([server]) - start[0],
            cpu_seconds(children) - start[1],
            time.process_time() - start[2],
        )
        return {
            name: round(value / cores, 3)
            for name, value in zip(("server", "children", "client"), used, strict=True)
        }

    return since


def cpu_seconds(pids: Sequence[int]) -> float:
    """utime + stime of the processes (clock ticks to seconds)."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def open_idle(port: int, key: asyncssh.SSHKey, marks: dict[str, str]) -> Learner:
    """A learner who opens the lesson list and does nothing more."""
    conn = await connect(port, key)
    _, learner = await conn.create_session(
        Learner, term_type="xterm-256color", term_size=(COLS, ROWS), encoding=None
    )
    learner.conn = conn
    await learner.wait_for(lambda s: marks["home"] in s, "the home screen")
    learner.screen = None
    return learner


def many_learners(sessions: int) -> list[str]:
    """`tutor serve` options for `sessions` learners, all from 127.0.0.1, set up at once."""
    return [
        "--max-sessions", str(sessions), "--max-connections", str(sessions + 20),
        "--rate", "1000", "--burst", str(sessions + 10),
        "--login-timeout", "600", "--idle-timeout", "3600",
        "--max-sessions-per-address", str(sessions), "--max-sessions-per-key", "3",
        "--max-connections-per-address", str(sessions + 10),
    ]  # fmt: skip


async def level(
    sessions: int, phase_s: float, marks: dict[str, str], how: str, idle: int = 0
) -> dict[str, object]:
    """One fresh server, `sessions` learners typing for `phase_s` seconds beside `idle`
    learners who only opened the lesson list."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        server = serve(port, data_dir, "--session-start", how, *many_learners(sessions + idle))
        try:
            await wait_listening(server)
            keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions + idle)]
            started = time.perf_counter()
            gate = asyncio.Semaphore(4)  # children start on 2 cores: a few at a time

            async def opened(key: asyncssh.SSHKey) -> Learner:
                async with gate:
                    return await open_learner(port, key, marks)

            async def sitting(key: asyncssh.SSHKey) -> Learner:
                async with gate:
                    return await open_idle(port, key, marks)

            # the first learner alone: the progress database of a fresh data dir must
            # exist before children open it together (concurrent first opens can fail
            # with "database is locked" when switching it to WAL)
            learners = [await opened(keys[0])]
            learners += await asyncio.gather(*(opened(k) for k in keys[1:sessions]))
            idlers = await asyncio.gather(*(sitting(k) for k in keys[sessions:]))
            setup_s = time.perf_counter() - started
            loop = asyncio.get_running_loop()
            children = process_tree(server.pid)[1:]
            share = cpu_share(server.pid, children)
            idle_s = min(IDLE_S, phase_s)
            await asyncio.sleep(idle_s)  # every learner idle in a focused text field
            idle_share = share(idle_s)
            at_rest = memory(server.pid)
            share = cpu_share(server.pid, children)
            begin = time.perf_counter()
            until = loop.time() + phase_s
            offsets = random.Random(sessions).sample(range(200), sessions)
            await asyncio.gather(
                *(type_keys(lr, o / 1000, until) for lr, o in zip(learners, offsets, strict=True))
            )
            await asyncio.sleep(1.0)  # answers still on their way
            typing = share(time.perf_counter() - begin)
            used = memory(server.pid)
            counted = [
                lat for lr in learners for sent, lat in lr.latencies if sent - begin >= WARMUP_S
            ]
            unanswered = sum(len(lr.sent) for lr in learners)
            for learner in [*learners, *idlers]:
                assert learner.conn is not None
                learner.conn.close()
        finally:
            await stopped(server)
    if not counted:
        raise RuntimeError(f"{sessions} sessions: no key was answered")
    return {
        "session_start": how,
        "sessions": sessions,
        "idle_sessions": idle,
        "setup_s": round(setup_s, 1),
        "keys_sent": sum(len(lr.latencies) for lr in learners) + unanswered,
        "keys_unanswered": unanswered,
        **summary_ms(counted),
        "cpu_share_typing": typing,
        "cpu_share_idle": idle_share,
        # everything under the server (itself, the template, the tutors) per learner
        "rss_mb_per_session": round(used["rss_mb"] / (sessions + idle), 1),
        "pss_mb_total_per_session": round(used["pss_mb"] / (sessions + idle), 1),
        "memory_idle": at_rest,
        "memory_after_typing": used,
    }


def serve(
    port: int, data_dir: str, *options: str, yardstick: str | None = None
) -> subprocess.Popen[str]:
    """`tutor serve --open` on loopback, its defaults unless `options` say otherwise, with
    the common open-file limit of 1,024 (this script raises its own for the floods).
    `yardstick`: its sessions run bare_session.py's entry of that name, not the tutor."""

    def common_limit() -> None:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(SERVER_FD_LIMIT, hard), hard))

    command = (
        [sys.executable, str(Path(__file__).with_name("bare_session.py")), yardstick]
        if yardstick
        else [sys.executable, "-m", "tutor"]
    )
    return subprocess.Popen(
        [*command, "serve", "--host", "127.0.0.1", "--port", str(port),
         "--open", "--data-dir", data_dir, *options],
        cwd=tutor_root(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=common_limit,
    )  # fmt: skip


async def wait_listening(server: subprocess.Popen[str]) -> None:
    assert server.stdout is not None
    banner = await asyncio.to_thread(server.stdout.readline)
    if "listening" not in banner:
        raise RuntimeError(f"tutor serve did not start: {banner!r}")


async def stopped(server: subprocess.Popen[str]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        await asyncio.to_thread(server.wait, 30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def connect(
    port: int, key: asyncssh.SSHKey, source: str = "127.0.0.1"
) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1",
        port,
        local_addr=(source, 0),
        username="learner",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=None,
        preferred_auth="publickey",
    )


async def first_screen(
    port: int, marks: dict[str, str], source: str = "127.0.0.1"
) -> tuple[float, asyncssh.SSHClientConnection, asyncssh.SSHClientProcess[bytes]]:
    """Seconds from connecting (a new key) to the lesson list on screen."""
    begin = time.perf_counter()
    conn = await connect(port, asyncssh.generate_private_key("ssh-ed25519"), source)
    process = await conn.create_process(
        term_type="xterm-256color", term_size=(COLS, ROWS), encoding=None
    )
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    async with asyncio.timeout(SETUP_TIMEOUT_S):
        while marks["home"] not in "\n".join(screen_lines(screen)):
            data = await process.stdout.read(65536)
            if not data:
                raise RuntimeError("the session closed before the first screen")
            stream.feed(data)
    return time.perf_counter() - begin, conn, process


async def first_screens(
    marks: dict[str, str], how: str, at_once: int, rounds: int, yardstick: str | None = None
) -> dict[str, object]:
    """Time to the lesson list while `at_once` learners connect together, `rounds` times;
    with a `yardstick`, sessions show only its title (bare_session.py)."""
    port = free_port()

    async def sessions_ended() -> None:
        while len(process_tree(server.pid)) > (2 if how == "fork" else 1):
            await asyncio.sleep(0.1)

    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        options = ("--session-start", how, *many_learners(at_once))
        server = serve(port, data_dir, *options, yardstick=yardstick)
        try:
            await wait_listening(server)
            # the progress database of a fresh data dir is created by a first session
            _, conn, _ = await first_screen(port, marks)
            conn.close()
            await conn.wait_closed()
            await sessions_ended()  # else it may count against the first round's room
            times: list[float] = []
            cpu: list[float] = []
            for _ in range(rounds):
                opened = await asyncio.gather(*(first_screen(port, marks) for _ in range(at_once)))
                times += [seconds for seconds, _, _ in opened]
                cpu += sessions_cpu_ms(server.pid)
                for _, conn, _ in opened:
                    conn.close()
                    await conn.wait_closed()
                await sessions_ended()
        finally:
            await stopped(server)
    session = {"session": yardstick or "tutor", "session_start": how}
    return {
        **session,
        "at_once": at_once,
        "rounds": rounds,
        **summary_ms(times),
        # less noisy than the p95: what each session had cost once its round was drawn
        "session_cpu_ms": {"n": len(cpu), "median": round(statistics.median(cpu), 1)},
    }


def sessions_cpu_ms(server: int) -> list[float]:
    """The CPU each learner's session under `server` has used so far, every thread's
    (/proc/PID/task/*/schedstat, in nanoseconds)."""
    used = []
    for pid in process_tree(server):
        with contextlib.suppress(OSError, ValueError):
            if is_session(pid):
                tasks = Path(f"/proc/{pid}/task").iterdir()
                used.append(sum(int((t / "schedstat").read_text().split()[0]) for t in tasks) / 1e6)
    return used


async def input_flood(marks: dict[str, str], total: int, seconds: float) -> list[dict[str, object]]:
    """Server memory while one client floods its session, tutor reading and stopped."""
    results = []
    for stalled in (False, True):
        port = free_port()
        with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
            server = serve(port, data_dir)
            try:
                await wait_listening(server)
                _, conn, process = await first_screen(port, marks)
                drain_output = asyncio.create_task(process.stdout.read(-1))
                (child,) = [pid for pid in process_tree(server.pid) if is_session(pid)]
                if stalled:
                    os.kill(child, signal.SIGSTOP)
                await asyncio.sleep(1.0)
                before = proc_status(server.pid)["VmRSS"]
                Path(f"/proc/{server.pid}/clear_refs").write_text("5")
                chunk = b"x" * CHUNK
                sent = 0
                begin = time.perf_counter()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(seconds):
                        while sent < total:
                            process.stdin.write(chunk)
                            await process.stdin.drain()
                            sent += CHUNK
                elapsed = time.perf_counter() - begin
                held = process.channel.get_write_buffer_size()
                status = proc_status(server.pid)
                if stalled:
                    os.kill(child, signal.SIGKILL)
                drain_output.cancel()
                conn.abort()
            finally:
                await stopped(server)
        results.append(
            {
                "tutor": "stopped (SIGSTOP)" if stalled else "reading",
                "offered_mb": round(total / MB, 1),
                "seconds": round(elapsed, 1),
                "accepted_by_server_mb": round((sent - held) / MB, 2),
                "server_rss_before_mb": mb(before),
                "server_rss_peak_mb": mb(status["VmHWM"]),
                "server_rss_after_mb": mb(status["VmRSS"]),
                "server_rss_growth_mb": mb(status["VmHWM"] - before),
            }
        )
    return results


class SilentFlood:
    """Clients that connect and say nothing (or, `speaking`, their SSH version and then
    nothing), each from its own 127.x.y.z address, and connect again as soon as the server
    closes them."""

    def __init__(self, port: int, clients: int, speaking: bool = False) -> None:
        self.port = port
        self.speaking = speaking
        self.connects = 0
        self.connected: set[int] = set()
        self._tasks = [asyncio.create_task(self._client(n)) for n in range(clients)]

    async def _client(self, n: int) -> None:
        source = f"127.1.{n // 250}.{n % 250 + 1}"
        while True:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(source, 0)
                )
            except OSError:
                await asyncio.sleep(0.1)
                continue
            self.connects += 1
            self.connected.add(n)
            try:
                if self.speaking:
                    writer.write(b"SSH-2.0-stalling\r\n")
                await reader.read()  # until the server closes it
            finally:
                writer.close()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def silent_flood(
    marks: dict[str, str], clients: int, learners: int, speaking: bool = False
) -> dict[str, object]:
    """Learners' time to first screen with no flood, then while `clients` silent ones (or,
    `speaking`, ones that send their SSH version and stall) run."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        server = serve(port, data_dir)
        try:
            await wait_listening(server)

            async def one_learner(n: int) -> float | None:
                try:
                    seconds, conn, _ = await first_screen(
                        port, marks, f"127.0.{n // 250}.{n % 250 + 2}"
                    )
                except (OSError, asyncssh.Error, RuntimeError, TimeoutError):
                    return None
                conn.close()
                await conn.wait_closed()
                return seconds

            calm = [await one_learner(n) for n in range(learners)]
            flood = SilentFlood(port, clients, speaking)
            async with asyncio.timeout(SETUP_TIMEOUT_S):
                while len(flood.connected) < clients:
                    await asyncio.sleep(0.2)
            counted_from = flood.connects
            begin = time.perf_counter()
            fds_during = len(os.listdir(f"/proc/{server.pid}/fd"))
            flooded = [await one_learner(learners + n) for n in range(learners)]
            rate = (flood.connects - counted_from) / (time.perf_counter() - begin)
            await flood.stop()
        finally:
            await stopped(server)
    served = [s for s in flooded if s is not None]
    calm_served = [s for s in calm if s is not None]
    return {
        "flood_clients_say": "their SSH version, then nothing" if speaking else "nothing",
        "silent_clients": clients,
        "silent_clients_connected_at_least_once": len(flood.connected),
        "silent_connects_per_s_during": round(rate, 1),
        "server_open_fds_during": fds_during,
        "learners_tried": learners,
        "learners_served_without_flood": len(calm_served),
        "learners_served_during_flood": len(served),
        "first_screen_without_flood": summary_ms(calm_served) if calm_served else None,
        "first_screen_during_flood": summary_ms(served) if served else None,
    }


async def size_claim(marks: dict[str, str], seconds: float) -> dict[str, object]:
    """A learner claims a 10,000 x 10,000 window through the input: what it costs."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        server = serve(port, data_dir)
        try:
            await wait_listening(server)
            _, conn, process = await first_screen(port, marks)
            (child,) = [pid for pid in process_tree(server.pid) if is_session(pid)]
            await asyncio.sleep(1.0)
            before = proc_status(child)["VmHWM"]
            sent = 0

            async def count_output() -> None:
                nonlocal sent
                while data := await process.stdout.read(65536):
                    sent += len(data)

            counting = asyncio.create_task(count_output())
            process.stdin.write(SIZE_CLAIM)
            begin = time.perf_counter()
            other, other_conn, _ = await first_screen(port, marks, "127.0.0.2")
            await asyncio.sleep(max(0.0, seconds - (time.perf_counter() - begin)))
            status = proc_status(child)
            counting.cancel()
            for connection in (conn, other_conn):
                connection.abort()
        finally:
            await stopped(server)
    return {
        "claim": SIZE_CLAIM.decode().replace("\x1b", "ESC"),
        "terminal": f"{COLS}x{ROWS}",
        "seconds": seconds,
        "session_rss_peak_before_mb": mb(before),
        "session_rss_peak_after_mb": mb(status["VmHWM"]),
        "session_output_mb": round(sent / MB, 2),
        "other_learner_first_screen_ms": round(other * 1000),
    }


async def env_flood(requests: int, value_bytes: int) -> dict[str, object]:
    """Server memory while one session's client sends `requests` env requests of
    `value_bytes` each (one value shared by every name, so the client itself stays small)."""
    port = free_port()
    value = "v" * value_bytes
    # once the server has closed the connection, asyncio warns of every write still queued
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        server = serve(port, data_dir)
        try:
            await wait_listening(server)
            before = proc_status(server.pid)["VmRSS"]
            Path(f"/proc/{server.pid}/clear_refs").write_text("5")
            conn = await connect(port, asyncssh.generate_private_key("ssh-ed25519"))
            begin = time.perf_counter()
            with contextlib.suppress(asyncssh.Error, OSError):
                async with asyncio.timeout(SETUP_TIMEOUT_S):
                    await conn.create_session(
                        asyncssh.SSHClientSession,
                        term_type="xterm-256color",
                        env={f"FLOOD_{n}": value for n in range(requests)},
                    )
            closed_by_server = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(10):
                    await conn.wait_closed()
                    closed_by_server = True
            elapsed = time.perf_counter() - begin
            conn.abort()
            await asyncio.sleep(2.0)
            status = proc_status(server.pid)
        finally:
            await stopped(server)
    return {
        "requests_offered": requests,
        "value_bytes": value_bytes,
        "offered_mb": round(requests * value_bytes / MB, 1),
        "seconds": round(elapsed, 1),
        "connection_closed_by_server": closed_by_server,
        "server_rss_before_mb": mb(before),
        "server_rss_peak_mb": mb(status["VmHWM"]),
        "server_rss_after_client_left_mb": mb(status["VmRSS"]),
    }


async def abuse(quick: bool) -> dict[str, object]:
    marks = setup_marks()
    total, seconds = (8 * MB, 5.0) if quick else (FLOOD_BYTES, FLOOD_SECONDS)
    clients, learners = (50, 2) if quick else (SILENT_CLIENTS, FIRST_SCREENS)
    return {
        "input_flood": await input_flood(marks, total, seconds),
        "silent_flood": await silent_flood(marks, clients, learners),
        "stalling_flood": await silent_flood(marks, clients, learners, speaking=True),
        "env_flood": await env_flood(*((500, 1024) if quick else (ENV_REQUESTS, ENV_VALUE_BYTES))),
        "size_claim": await size_claim(marks, 3.0 if quick else SIZE_CLAIM_SECONDS),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--sessions", type=int, nargs="+", help="levels (default 10 25 50)")
    parser.add_argument("--seconds", type=float, help="typing phase per level (default 30)")
    parser.add_argument(
        "--abuse", action="store_true", help="an input flood and a silent-connection flood"
    )
    parser.add_argument(
        "--session-start",
        nargs="+",
        choices=("fork", "spawn"),
        default=["fork", "spawn"],
        help="how the server starts sessions; each is measured in turn (default: both)",
    )
    parser.add_argument(
        "--idle", type=int, default=0, metavar="N", help="idle learners beside the typing ones"
    )
    parser.add_argument(
        "--first-screens",
        action="store_true",
        help="time to the first screen while 10 learners connect at once",
    )
    args = parser.parse_args(argv)
    info = machine()
    if args.abuse:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # 1,000 clients' sockets
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        emit(
            {
                "benchmark": "ssh-abuse",
                "machine": info,
                "quick": args.quick,
                "server_open_file_limit": SERVER_FD_LIMIT,
                **asyncio.run(abuse(args.quick)),
            }
        )
        return
    marks = setup_marks()
    if args.first_screens:
        at_once, rounds = (3, 1) if args.quick else (FIRST_SCREENS, 3)
        tutors = [
            asyncio.run(first_screens(marks, how, at_once, rounds)) for how in args.session_start
        ]
        # the same server and clients with forked sessions that draw less: what is left is
        # SSH, the fork and the relay, then Textual's own share
        yardsticks = [
            asyncio.run(first_screens(marks, "fork", at_once, rounds, yardstick))
            for yardstick in YARDSTICKS
        ]
        bare = next(y for y in yardsticks if y["session"] == "bare_app")
        ratios = {
            str(t["session_start"]): round(t["p95_ms"] / bare["p95_ms"], 2)  # type: ignore[operator]
            for t in tutors
        }
        emit(
            {
                "benchmark": "ssh-first-screen",
                "machine": info,
                "quick": args.quick,
                "method": f"{at_once} new learners connect at once to one tutor serve, "
                f"{rounds} rounds; connect -> the lesson list on a pyte screen",
                "by_session_start": tutors,
                "yardsticks": yardsticks,
                # the tutor's p95 over the bare app's, measured in the same run (issue 24)
                "p95_ratio_to_bare_app": ratios,
                "target": {"at_once": 10, "p95_ratio_to_bare_app": 1.3},
                "target_met": ratios.get("fork", float("inf")) <= 1.3,
            }
        )
        return
    levels, phase_s = ([2], 2.0) if args.quick else ([10, 25, 50], 30.0)
    levels = args.sessions or levels
    phase_s = args.seconds or phase_s
    if args.idle:  # hundreds of sessions: more than the common open-file limit allows
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    results = [
        asyncio.run(level(n, phase_s, marks, how, args.idle))
        for n in levels
        for how in args.session_start
    ]
    emit(
        {
            "benchmark": "ssh",
            "machine": info,
            "quick": args.quick,
            "method": "tutor serve subprocess on loopback; asyncssh clients with ptys typing "
            "into page 2's text field every 200 ms (open loop); key -> first output bytes; "
            "idle learners on the lesson list beside them",
            "phase_s": phase_s,
            "warmup_s": WARMUP_S,
            "levels": results,
            "target": {
                "sessions": 50,
                "idle_sessions": 200,
                "p95_ms": 150,
                "idle_pss_mb_per_session": 15,
            },
            # each only where the run measured it: 50 typing (beside 200 idle, for the
            # memory target, which is for sessions forked from the template)
            "target_met": {
                "p95_ms": any(r["sessions"] == 50 and r["p95_ms"] <= 150 for r in results),  # type: ignore[operator]
                "idle_pss_mb_per_session": any(
                    r["session_start"] == "fork"
                    and r["idle_sessions"] >= 200  # type: ignore[operator]
                    and r["memory_idle"]["pss_mb_session_median"] <= 15  # type: ignore[index]
                    for r in results
                ),
            },
        }
    )


if __name__ == "__main__":
    main()
