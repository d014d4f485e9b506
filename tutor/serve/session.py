"""One SSH session = one child `tutor` process on its own pseudo-terminal (child.py).

This module copies bytes between that pty and the SSH channel, with flow control both
ways, and ends the session once, whichever limit or event asks first.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import asyncssh

from tutor.crash import EXIT_CRASH
from tutor.serve.child import ChildTerminal, child_environment, passed_on
from tutor.serve.compat import handle_env_requests
from tutor.serve.identity import Identity
from tutor.serve.process import child_argv

if TYPE_CHECKING:
    import logging

    from tutor.progress.sessions import Claim
    from tutor.serve.config import ServeConfig
    from tutor.serve.limits import Refusal
    from tutor.serve.template import SessionTemplate


class SessionHost(Protocol):
    """What a session asks of the server that admitted it (server.TutorServer): its
    settings and log, a slot, and the sets it keeps of sessions, children and closings."""

    config: ServeConfig
    log: logging.Logger
    closing: set[asyncio.Task[None]]
    sessions: set[TutorSession]
    children: dict[int, ChildTerminal]
    template: SessionTemplate | None

    async def admit_session(
        self, session: TutorSession, connection: Hashable, ip: str
    ) -> Refusal | None: ...

    def leave_session(self, session: TutorSession, connection: Hashable, ip: str) -> None: ...


class SessionConnection(Hashable, Protocol):
    """The SSH connection a session runs on (server._Connection), closed with a reason."""

    def close_for(self, reason: str, message: str) -> None: ...


# Undo whatever a killed app may have left on: mouse reporting (1000/1002/1003 with
# 1006/1015/1016 encodings), focus events, bracketed paste, in-band resize, the kitty
# keyboard flags (popped inside the alternate screen, whose flag stack is separate, so a
# clean exit that already popped never pops the learner's shell's flags), the alternate
# screen itself, then cursor, autowrap and attributes.
RESET_SEQUENCE = (
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1016l"
    b"\x1b[?1004l\x1b[?2004l\x1b[?2048l"
    b"\x1b[?1049h\x1b[<u\x1b[?1049l"
    b"\x1b[?25h\x1b[?7h\x1b[0m"
)

_MAX_COLS, _MAX_ROWS = 1000, 500
# `env` requests one session channel may send (a terminal sends a handful: LANG, LC_*);
# past either, the connection is closed
MAX_ENV_REQUESTS = 64
MAX_ENV_BYTES = 64 * 1024


def fit_size(cols: int, rows: int) -> tuple[int, int]:
    """A usable size: clients may send 0 (unknown) or absurd values."""
    cols = cols if cols > 0 else 80
    rows = rows if rows > 0 else 24
    return min(cols, _MAX_COLS), min(rows, _MAX_ROWS)


def loggable(text: str) -> str:
    """Client-chosen text made safe for a one-line, space-separated log record."""
    return re.sub(r"[^\x21-\x7e]", "_", text)[:100] or "-"


def exit_status(code: int) -> int:
    """A shell-style exit status: 128 + signal number for a child killed by a signal."""
    return 128 - code if code < 0 else code


def format_duration(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return f"{hours} hour" + ("s" if hours != 1 else "")
    if seconds >= 60:
        minutes = round(seconds / 60)
        return f"{minutes} minute" + ("s" if minutes != 1 else "")
    whole = max(1, round(seconds))
    return f"{whole} second" + ("s" if whole != 1 else "")


class TutorSession(asyncssh.SSHServerSession[bytes]):
    """Bridges one SSH session channel to one child tutor on its pty.

    Only an interactive shell with a PTY is accepted; exec and subsystem requests are
    refused, so an SSH login can never run anything but the tutor.
    """

    def __init__(
        self,
        server: SessionHost,
        connection: SessionConnection,
        identity: Identity,
        ip: str,
        client: str,
    ) -> None:
        self._server = server
        self._connection = connection
        self.identity = identity
        self.ip = ip
        self._client = client
        self._loop = asyncio.get_running_loop()
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._channel_open = False
        self._term: str | None = None
        self._size = (80, 24)
        self._child: ChildTerminal | None = None
        self._guest_dir: Path | None = None
        self._started = 0.0
        self._last_input = 0.0
        self._timers: list[asyncio.TimerHandle] = []
        self._ended = False
        self.claim: Claim | None = None  # this session in the progress database's log
        # the client's variables the tutor reads (child.passed_on); every other is dropped
        self.client_env: dict[str, str] = {}
        self._env_requests = self._env_bytes = 0
        self._flooded = False

    # -- asyncssh callbacks --------------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan
        self._channel_open = True
        handle_env_requests(chan, self._env_requested)

    def _env_requested(self, name: bytes, value: bytes) -> bool:
        """Keep a variable only if the tutor reads it; close a connection that floods."""
        self._env_requests += 1
        self._env_bytes += len(name) + len(value)
        if self._env_requests > MAX_ENV_REQUESTS or self._env_bytes > MAX_ENV_BYTES:
            if not self._flooded:  # requests already on their way come here too
                self._flooded = True
                self._connection.close_for(
                    "env-flood",
                    f"This session sent more than {MAX_ENV_REQUESTS} environment variables or "
                    f"{MAX_ENV_BYTES // 1024} KB of them, more than a terminal needs; connect "
                    "again with fewer (SendEnv or SetEnv in your ssh configuration).",
                )
            return False
        text_name = name.decode("utf-8", "replace")
        text_value = value.decode("utf-8", "replace")
        if not passed_on(text_name, text_value):
            return False
        self.client_env[text_name] = text_value
        return True

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: object
    ) -> bool:
        self._term = term_type
        self._size = fit_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        assert self._chan is not None
        if self._term is None:
            host, port = self._chan.get_extra_info("sockname")[:2]
            self._chan.write_stderr(
                f"tutor needs a terminal: connect with `ssh -t -p {port} {host}` "
                "and no command\n".encode()
            )
            self._refuse("no-pty")
            return
        # the progress database is asked off the event loop: other sessions go on meanwhile
        admitting = self._loop.create_task(self._admit_and_start())
        self._server.closing.add(admitting)
        admitting.add_done_callback(self._server.closing.discard)

    async def _admit_and_start(self) -> None:
        refusal = await self._server.admit_session(self, self._connection, self.ip)
        if self._ended:  # the learner left while the database answered
            if refusal is None:
                self._server.leave_session(self, self._connection, self.ip)
            return
        if refusal is not None:
            self._write_line(refusal.message)
            self._refuse(refusal.reason)
            return
        try:
            self._spawn()
        except OSError as exc:
            self._release()
            self._server.log.error("session cannot start the tutor: %s", exc)
            self._write_line("The tutor could not start here; please tell the teacher.")
            self._refuse("spawn-failed")
            return
        self._server.sessions.add(self)
        self._connection.session_began()
        self._started = self._last_input = time.monotonic()
        self._server.log.info(
            "session start learner=%s ip=%s term=%s size=%dx%d client=%s",
            self.identity.learner_id,
            self.ip,
            loggable(self._term),
            *self._size,
            loggable(self._client),
        )
        config = self._server.config
        self._timers.append(self._loop.call_later(config.idle_timeout, self._check_idle))
        self._timers.append(
            self._loop.call_later(
                config.max_session_length,
                self.close,
                "max-length",
                f"Session closed: it reached the {format_duration(config.max_session_length)}"
                " limit.",
            )
        )

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self._last_input = time.monotonic()
        if self._child is not None and not self._child.write(data) and self._chan is not None:
            # the child is not keeping up: let the client's SSH window close until it does
            self._chan.pause_reading()

    def _input_drained(self) -> None:
        if self._channel_open and self._chan is not None:
            self._chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._size = fit_size(width, height)
        if self._child is not None:
            self._child.resize(*self._size)

    def eof_received(self) -> bool:
        # keep sending: the idle timeout ends a session nobody types into
        return True

    def pause_writing(self) -> None:
        if self._child is not None:
            self._child.pause_output()

    def resume_writing(self) -> None:
        if self._child is not None:
            self._child.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._channel_open = False
        self._connection.channels.discard(self)
        self.close("disconnect")

    # -- the child -----------------------------------------------------------------------

    def _spawn(self) -> None:
        assert self._chan is not None
        config = self._server.config
        data_dir = config.data_dir
        if self.identity.guest:
            guests = config.data_dir / "guests"
            guests.mkdir(mode=0o700, exist_ok=True)
            self._guest_dir = Path(tempfile.mkdtemp(prefix="guest-", dir=guests))
            data_dir = self._guest_dir
        argv = child_argv(config.session_entry, config.app_args, self.identity.learner_id)
        env = child_environment(
            self._term,
            self.client_env,
            data_dir,
            self.identity,
            config.database,
            config.session_memory_mb,
        )
        try:
            self._child = ChildTerminal(
                argv,
                env,
                self._size,
                self._send,
                self._child_exited,
                self._input_drained,
                template=self._server.template,
                on_started=self._child_started,
            )
        except OSError:
            self._remove_guest_dir()
            raise

    def _child_started(self, child: ChildTerminal) -> None:
        assert child.pid is not None
        self._server.children[child.pid] = child

    def _send(self, data: bytes) -> None:
        if self._channel_open and self._chan is not None:
            self._chan.write(data)

    def _child_exited(self, code: int) -> None:
        assert self._child is not None
        self._server.children.pop(self._child.pid, None)
        if code == 0:
            self.close("quit")
        elif code < 0 and not self._child.crash_report:
            # killed by a signal nobody here sent (the C library's abort on a failed
            # allocation, a segfault): no handler of the tutor's ran to apologise
            name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
            limit = self._server.config.session_memory_mb
            self.close(
                "crash",
                f"The tutor stopped unexpectedly (signal {name}); it may have reached the"
                f" memory limit the server gives each session ({limit:,} MB).",
            )
        else:
            self.close("crash" if code == EXIT_CRASH or self._child.crash_report else "app-exit")

    def _check_idle(self) -> None:
        idle = self._server.config.idle_timeout
        due = self._last_input + idle
        if time.monotonic() + 0.01 >= due:
            self.close("idle", f"Session closed after {format_duration(idle)} without input.")
        else:
            self._timers.append(self._loop.call_later(due - time.monotonic(), self._check_idle))

    # -- ending --------------------------------------------------------------------------

    def _write_line(self, text: str) -> None:
        self._send(b"\r\n" + text.encode() + b"\r\n")

    def _refuse(self, reason: str) -> None:
        assert self._chan is not None
        self._server.log.info(
            "session refused learner=%s ip=%s reason=%s", self.identity.learner_id, self.ip, reason
        )
        self._ended = True
        self._chan.exit(1)

    def close(self, reason: str, message: str | None = None) -> None:
        """End the session once, whichever limit or event asks first."""
        if self._ended:
            return
        self._ended = True
        task = self._loop.create_task(self._finish(reason, message))
        self._server.closing.add(task)
        task.add_done_callback(self._server.closing.discard)

    async def _finish(self, reason: str, message: str | None) -> None:
        for timer in self._timers:
            timer.cancel()
        status = 1
        if self._child is not None:
            code = await self._child.terminate()
            self._server.children.pop(self._child.pid, None)
            if reason in ("quit", "app-exit", "crash"):
                status = exit_status(code)
            self._remove_guest_dir()
            self._release()
            self._server.sessions.discard(self)
            self._server.log.info(
                "session end learner=%s ip=%s size=%dx%d duration=%.1fs reason=%s status=%d",
                self.identity.learner_id,
                self.ip,
                *self._size,
                time.monotonic() - self._started,
                reason,
                status,
            )
            if self._child.crash_report:
                # the traceback the learner was spared, indented under its session
                report = self._child.crash_report.decode(errors="replace").rstrip()
                self._server.log.error(
                    "session crash learner=%s ip=%s\n%s",
                    self.identity.learner_id,
                    self.ip,
                    "\n".join("    " + line for line in report.splitlines()),
                )
        if self._channel_open and self._chan is not None:
            self._chan.write(RESET_SEQUENCE)
            if message is not None:
                kept = (
                    "Guest progress is not kept."
                    if self.identity.guest
                    else "Your progress is saved; connect again to continue."
                )
                self._write_line(f"{message} {kept}")
            self._chan.exit(status)

    def _release(self) -> None:
        self._server.leave_session(self, self._connection, self.ip)
        self._connection.session_ended()

    def _remove_guest_dir(self) -> None:
        if self._guest_dir is not None:
            shutil.rmtree(self._guest_dir, ignore_errors=True)
            self._guest_dir = None
