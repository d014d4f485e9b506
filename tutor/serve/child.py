"""Starting one learner's tutor: its command line, environment and pty, and how it ends.

Everything about a session's child process lives here, on both sides of the spawn: the
server side (ChildTerminal: spawn, copy bytes with flow control, reap) and the child's
first steps (`python -m tutor.serve.child SERVER_PID ARGS...`: tie its life to the
server's, then run `tutor ARGS...`).

Textual's driver owns the process's terminal, so sessions cannot share a process: each
learner gets a child whose controlling terminal is a fresh pty.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import re
import signal
import sys
import termios
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tutor.crash import CRASH_FD_VARIABLE, MAX_REPORT_BYTES, MEMORY_VARIABLE
from tutor.lazy import load
from tutor.serve.config import DEFAULT_SESSION_MEMORY_MB
from tutor.serve.identity import Identity
from tutor.serve.process import (
    CRASH_FD,
    base_environment,
    die_with_server,
    end_session,
    limit_memory,
    reap,
)
from tutor.serve.template import SessionTemplate, TemplateUnavailable

DEFAULT_TERM = "xterm-256color"
_SAFE_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
# Sent by the client (OpenSSH: -o SetEnv=NAME=value) and passed on because they only
# change how the app draws; anything else in them (escapes, 200 KB) is dropped.
_CLIENT_COLOUR_VARS = {
    "COLORTERM": re.compile(r"truecolor|24bit"),
    "NO_COLOR": re.compile(r"[!-~]{0,16}"),
}
_TERM_GRACE_SECONDS = 3.0

# Flow control toward the child: above HIGH_WATER queued bytes the session stops reading
# its SSH channel (the client's window closes), and reads again once the queue is empty.
# MAX_PENDING is the hard bound should a caller ignore write()'s answer.
HIGH_WATER = 64 * 1024
MAX_PENDING = 1024 * 1024

# every signal a child may have inherited as ignored or handled goes back to its default
# (SIGHUP ignored under nohup kept children looping on a dead pty)
_RESETTABLE_SIGNALS = signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}


def child_environment(
    term: str | None,
    client_env: Mapping[str, str],
    data_dir: Path,
    identity: Identity,
    database: str | None = None,
    memory_mb: int = DEFAULT_SESSION_MEMORY_MB,
) -> dict[str, str]:
    """The child's whole environment: nothing leaks in from the server's own.

    TERM comes from the client (sanitised, since it is client-controlled). OpenSSH never
    sends COLORTERM unless asked to, so a `*-direct` TERM also counts as truecolor.
    """
    term = term if term and _SAFE_TERM.fullmatch(term) else DEFAULT_TERM
    env = {
        "TERM": term,
        **base_environment(),
        "TUTOR_DATA_DIR": str(data_dir),
        "TUTOR_LEARNER": identity.learner_id,
        "TUTOR_REMOTE": "1",
        CRASH_FD_VARIABLE: str(CRASH_FD),
        MEMORY_VARIABLE: str(memory_mb),
    }
    env.update((name, value) for name, value in client_env.items() if passed_on(name, value))
    if "COLORTERM" not in env and term.endswith("-direct"):
        env["COLORTERM"] = "truecolor"
    if identity.guest:
        env["TUTOR_GUEST"] = "1"
    elif database is not None:
        env["TUTOR_DATABASE"] = database
    # the admin's `--live-training N` and its run counter (tutor/core/live.py)
    env.update({k: v for k, v in os.environ.items() if k.startswith("TUTOR_LIVE_")})
    return env


def passed_on(name: str, value: object) -> bool:
    """Whether a variable the client sent reaches the tutor (the only ones a session keeps)."""
    allowed = _CLIENT_COLOUR_VARS.get(name)
    return allowed is not None and isinstance(value, str) and allowed.fullmatch(value) is not None


class ChildTerminal:
    """A child process whose controlling terminal is a new pty, and the pty's master end.

    posix_spawn with setsid opens the pty slave as the new session leader, which makes it
    the controlling terminal, so window-size changes on the master raise SIGWINCH in the
    app. The child is reaped through a pidfd, without a SIGCHLD handler. A crash report,
    if the child writes one, arrives on a pipe (fd 3 in the child) and is kept in
    `crash_report`.

    With a session `template` (template.py) the child is a fork of it instead, set up the
    same way; the template reaps it and reports its exit. Should the template be unable
    to, the child is spawned after all.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        size: tuple[int, int],
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        on_drained: Callable[[], None] = lambda: None,
        template: SessionTemplate | None = None,
        on_started: Callable[[ChildTerminal], None] = lambda child: None,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._on_output = on_output
        self._on_exit = on_exit
        self._on_drained = on_drained
        self._on_started = on_started
        self._pending = bytearray()
        self._reading = False
        self._source_paused = False  # write() said stop; on_drained says go on
        self.dropped = 0  # input bytes beyond MAX_PENDING, thrown away
        self.returncode: int | None = None
        self.exited: asyncio.Future[int] = self._loop.create_future()
        self.crash_report = bytearray()
        self.argv = tuple(argv)
        self.env = dict(env)
        self.forked = False  # from the session template, not spawned
        # the child's pid: at once when spawned, when the template answers when forked
        # (input, output and resizes meanwhile go through the pty as usual); None if it
        # never started
        self.pid: int | None = None
        self.started: asyncio.Future[int | None] = self._loop.create_future()
        self._pidfd: int | None = None
        self.master, slave = os.openpty()
        self._crash_pipe, crash_end = os.pipe()
        asked = False  # the template has the pty's end and the crash pipe's until it answers
        try:
            termios.tcsetwinsize(self.master, (size[1], size[0]))
            if template is not None and template.usable:
                asked = self._ask(template, slave, crash_end)
            if not asked:
                self._spawn(slave, crash_end)
        except BaseException:
            os.close(self.master)
            os.close(self._crash_pipe)
            raise
        finally:
            if not asked:
                os.close(slave)
                os.close(crash_end)
        os.set_blocking(self.master, False)
        os.set_blocking(self._crash_pipe, False)
        self._loop.add_reader(self._crash_pipe, self._read_crash_report)
        self.resume_output()

    def _ask(self, template: SessionTemplate, slave: int, crash_end: int) -> bool:

        def answered(pid: int | None) -> None:
            try:
                if pid is not None:
                    self.forked = True
                    self._started(pid)
                else:
                    self._spawn_late(slave, crash_end)
            finally:
                os.close(slave)
                os.close(crash_end)

        try:
            template.request(self.argv, self.env, slave, crash_end, answered, self._ended)
        except TemplateUnavailable:
            return False
        return True

    def _spawn_late(self, slave: int, crash_end: int) -> None:
        """The template could not fork it after all: spawn it, or end as a child that
        could not start would."""
        try:
            self._spawn(slave, crash_end)
        except OSError:
            self.started.set_result(None)
            self._ended(127)

    def _spawn(self, slave: int, crash_end: int) -> None:
        pid = os.posix_spawn(
            self.argv[0],
            list(self.argv),
            self.env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.ttyname(slave), os.O_RDWR, 0),
                (os.POSIX_SPAWN_DUP2, 0, 1),
                (os.POSIX_SPAWN_DUP2, 0, 2),
                (os.POSIX_SPAWN_DUP2, crash_end, CRASH_FD),
            ],
            setsid=True,
            setsigdef=_RESETTABLE_SIGNALS,
            setsigmask=set(),
        )
        try:
            self._pidfd = os.pidfd_open(pid)
        except OSError:  # Linux < 5.3: no way to watch the child, so do not keep it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        self._loop.add_reader(self._pidfd, self._reap)
        self._started(pid)

    def _started(self, pid: int) -> None:
        self.pid = pid
        self.started.set_result(pid)
        self._on_started(self)

    @property
    def running(self) -> bool:
        return self.returncode is None

    @property
    def pending(self) -> int:
        return len(self._pending)

    def resize(self, cols: int, rows: int) -> None:
        if self.running:
            termios.tcsetwinsize(self.master, (rows, cols))

    def write(self, data: bytes) -> bool:
        """Queue the learner's input; a busy child never blocks the server.

        False means "stop sending until on_drained is called": the caller pauses its
        source. Whatever would go past MAX_PENDING is dropped.
        """
        if not self.running:
            return True
        room = MAX_PENDING - len(self._pending)
        if len(data) > room:
            self.dropped += len(data) - room
            data = data[:room]
        self._pending += data
        self._flush()
        self._source_paused = len(self._pending) >= HIGH_WATER
        return not self._source_paused

    def _flush(self) -> None:
        try:
            while self._pending:
                written = os.write(self.master, self._pending)
                del self._pending[:written]
        except BlockingIOError:
            self._loop.add_writer(self.master, self._flush)
            return
        except OSError:
            self._pending.clear()
        self._loop.remove_writer(self.master)
        if self._source_paused:
            self._source_paused = False
            self._on_drained()

    def pause_output(self) -> None:
        if self._reading:
            self._loop.remove_reader(self.master)
            self._reading = False

    def resume_output(self) -> None:
        if not self._reading and self.running:
            self._loop.add_reader(self.master, self._read)
            self._reading = True

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:  # EIO: every slave fd is closed
                raise
            data = b""
        if data:
            self._on_output(data)
        else:
            self.pause_output()

    def _read_crash_report(self) -> None:
        with contextlib.suppress(BlockingIOError):
            data = os.read(self._crash_pipe, 65536)
            if data:
                self.crash_report += data[: MAX_REPORT_BYTES - len(self.crash_report)]
            else:  # the child closed its end (it exits)
                self._loop.remove_reader(self._crash_pipe)

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self._on_output(data)

    def _reap(self) -> None:
        assert self._pidfd is not None and self.pid is not None
        code = reap(self._loop, self.pid, self._pidfd)
        if code is not None:
            self._pidfd = None
            self._ended(code)

    def _ended(self, code: int) -> None:
        """The child is gone (reaped here, or by the template that forked it)."""
        if not self.running:
            return
        self.pause_output()
        self._loop.remove_writer(self.master)
        self._pending.clear()
        self._drain()
        os.close(self.master)
        self._loop.remove_reader(self._crash_pipe)
        with contextlib.suppress(OSError):
            while data := os.read(self._crash_pipe, 65536):
                self.crash_report += data[: MAX_REPORT_BYTES - len(self.crash_report)]
        os.close(self._crash_pipe)
        self.returncode = code
        self.exited.set_result(self.returncode)
        self._on_exit(self.returncode)

    async def terminate(self) -> int:
        """Hang up on the child as a closing terminal would, then kill it if it lingers."""
        if self.running and not self.started.done():
            await asyncio.shield(self.started)  # the template answers, or dies trying
        if self.running:
            self._signal(signal.SIGHUP)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), _TERM_GRACE_SECONDS)
            except TimeoutError:
                self._signal(signal.SIGKILL)
        return await self.exited

    def _signal(self, signum: int) -> None:
        # the child leads its own session and process group; anything it started goes too
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signum)


def main(argv: Sequence[str]) -> int:
    """`python -m tutor.serve.child SERVER_PID ENTRY ARGS...`: the session, ENTRY(ARGS)
    (`module:function`, given by the command that serves: tutor.commands.session)."""
    die_with_server(int(argv[0]))
    limit_memory()
    return end_session(argv[2:], load(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
