"""Light sessions: one pre-loaded template process that forks each learner's tutor.

A session started the plain way (child.py: posix_spawn of `python -m tutor.serve.child`)
imports Python, Textual, the tutor and its lessons again, and keeps its own copy of all of
it: 37-45 MB per learner. The template does that once. It imports the app, reads the
lesson index, opens the model, collects and freezes what it made (gc.freeze(), so no later
collection writes to those pages), and waits. Each session is a fork of it: the pages stay
shared copy-on-write, and a session pays only for what it changes. A crash or a leak in one
session still cannot touch another, since each is its own process after the fork.

Both sides live here:
- `python -m tutor.serve.template SERVER_PID ENTRY PRELOAD` is the template: it dies with the server
  (PR_SET_PDEATHSIG), and its sessions die with it in turn, so no session outlives the
  server however it ends. It is single-threaded whenever it forks.
- `SessionTemplate` is the server's side: it starts the template, asks it for sessions and
  restarts it if it dies (or, after repeated failures, lets sessions start the plain way).

They talk over a Unix socket pair (fd 3 in the template), one JSON message a datagram:
- template -> server: {"ready": true} once everything is loaded;
- server -> template: {"start": N, "args": [...], "env": {...}} with the session's pty end
  and crash-report pipe end attached (SCM_RIGHTS);
- template -> server: {"started": N, "pid": PID} (or {"started": N, "error": "..."});
- template -> server: {"exited": PID, "code": CODE} when a session ends (the template, its
  parent, reaps it; CODE as os.waitstatus_to_exitcode gives it).

A forked session gets what a spawned one gets: exactly the environment the server chose,
the pty as stdin, stdout, stderr and controlling terminal in a session of its own, the
crash pipe on fd 3, every signal as a freshly started Python has it and none blocked, death
with its parent, and the server's resource limits (the template inherits them). What
/proc/PID/environ and cmdline show differ: the kernel keeps the template's there.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import io
import json
import logging
import os
import select
import signal
import socket
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tutor import tuning
from tutor.lazy import load
from tutor.serve.process import (
    CHILD_ARGS_FROM,
    CRASH_FD,
    base_environment,
    die_with_server,
    end_session,
    limit_memory,
    reap,
)

CONTROL_FD = 3  # the template's end of the socket pair
_MAX_MESSAGE = 256 * 1024
READY_TIMEOUT_SECONDS = 60.0  # importing everything, on a busy machine
START_TIMEOUT_SECONDS = 5.0  # one fork: milliseconds when all is well
# a template that dies this many times is not started again: sessions start the plain way
MAX_FAILURES = 3

SessionEntry = Callable[[Sequence[str]], int]  # a session's `tutor ARGS...`
ExitCallback = Callable[[int], None]
StartCallback = Callable[[int | None], None]


class TemplateUnavailable(Exception):
    """The template cannot start this session; the caller starts it the plain way."""


# -- the template process ---------------------------------------------------------------


def _single_threaded() -> bool:
    return len(os.listdir("/proc/self/task")) == 1


def _send(sock: socket.socket, message: Mapping[str, Any]) -> None:
    sock.send(json.dumps(message).encode())


class _Template:
    """The template's loop: fork on request, reap and report exits."""

    def __init__(
        self, control: socket.socket, fresh_signals: dict[int, Any], entry: SessionEntry
    ) -> None:
        self.control = control
        self.entry = entry  # what each forked session runs
        self.fresh_signals = fresh_signals
        self.poller = select.poll()
        self.poller.register(control, select.POLLIN)
        self.sessions: dict[int, int] = {}  # pidfd -> pid
        # its sessions compare their parent with this (a template that died before a
        # session asked to die with it has left it an orphan)
        self.pid = os.getpid()

    def run(self) -> int:
        try:
            while True:
                for fd, _ in self.poller.poll():
                    if fd == self.control.fileno():
                        if not self._request():
                            return 0
                    else:
                        self._reap(fd)
        except (BrokenPipeError, ConnectionResetError):  # the server has gone
            return 0

    def _request(self) -> bool:
        fds = array.array("i")
        try:
            data, ancdata, _, _ = self.control.recvmsg(
                _MAX_MESSAGE, socket.CMSG_SPACE(2 * fds.itemsize)
            )
        except ConnectionResetError:
            return False
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        if not data:  # the server closed its end: it is stopping
            return False
        request = json.loads(data)
        try:
            if len(fds) != 2:
                reply = {"error": "no pty"}
            elif not _single_threaded():
                reply = {"error": "threads"}
            else:
                reply = self._fork(request["args"], request["env"], fds[0], fds[1])
        except OSError as exc:  # out of processes or files: this session, not the others
            reply = {"error": str(exc)}
        finally:
            for fd in fds:
                os.close(fd)
        _send(self.control, {"started": request["start"], **reply})
        return True

    def _fork(self, args: list[str], env: dict[str, str], tty: int, crash: int) -> dict[str, Any]:
        settled, settled_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(settled)
            os.close(settled_end)
            raise
        if pid == 0:
            os.close(settled)
            self._become_session(args, env, tty, crash, settled_end, self.pid)
        os.close(settled_end)
        # once the session leads its own process group the server may signal it
        os.read(settled, 1)
        os.close(settled)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # it could never be reaped and reported: end it now
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        self.sessions[pidfd] = pid
        self.poller.register(pidfd, select.POLLIN)
        return {"pid": pid}

    def _reap(self, pidfd: int) -> None:
        pid = self.sessions.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        _send(self.control, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})

    def _become_session(
        self, args: list[str], env: dict[str, str], tty: int, crash: int, settled: int,
        template: int,
    ) -> None:  # fmt: skip
        """In the fork: become the learner's tutor, as a spawned child would. Never returns.
        A byte on `settled` tells the template the terminal and signals are set up."""
        code = 127
        try:
            os.setsid()
            fcntl.ioctl(tty, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(tty, fd)
            os.dup2(crash, CRASH_FD)
            for signum, handler in self.fresh_signals.items():
                signal.signal(signum, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            die_with_server(template)
            os.write(settled, b"1")
            os.closerange(CRASH_FD + 1, os.sysconf("SC_OPEN_MAX"))
            _fresh_stdio()
            os.environ.clear()
            os.environ.update(env)
            limit_memory()
            tuning.restore_collection()
            code = end_session(args, self.entry)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # setting up failed: nothing may escape into the template's loop
            code = 127
        finally:
            with contextlib.suppress(BaseException):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)


def _fresh_stdio() -> None:
    """stdin, stdout and stderr on the pty, buffered as Python buffers them on a terminal
    (the template's own were /dev/null)."""

    def reopen(fd: int, old: io.TextIOWrapper, errors: str | None = None) -> io.TextIOWrapper:
        # they live as long as the process, like the ones Python opens at start
        return open(
            fd,
            "w" if fd else "r",
            buffering=1 if fd else -1,  # stdout and stderr: line by line, as on a tty
            encoding=old.encoding,
            errors=errors or old.errors,
            closefd=False,
        )

    sys.stdin = sys.__stdin__ = reopen(0, sys.stdin)  # type: ignore[arg-type]
    sys.stdout = sys.__stdout__ = reopen(1, sys.stdout)  # type: ignore[arg-type]
    sys.stderr = sys.__stderr__ = reopen(2, sys.stderr, "backslashreplace")  # type: ignore[arg-type]


def fresh_signal_handlers() -> dict[int, Any]:
    """Every signal's handler as this (freshly started) interpreter has it."""
    handlers = {}
    for signum in signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}:
        with contextlib.suppress(OSError, ValueError):
            handler = signal.getsignal(signum)
            if handler is not None:
                handlers[signum] = handler
    return handlers


def main(argv: Sequence[str]) -> int:
    """`python -m tutor.serve.template SERVER_PID ENTRY PRELOAD -- TUTOR_OPTIONS...`: each
    session runs ENTRY(its arguments); PRELOAD(TUTOR_OPTIONS) loads, once, what they all
    use (both `module:function`, given by the command that serves: tutor.commands.session)."""
    die_with_server(int(argv[0]))
    fresh = fresh_signal_handlers()
    control = socket.socket(fileno=CONTROL_FD)
    entry, preload, dashes, *options = argv[1:]
    assert dashes == "--", argv
    tuning.pause_collection()
    run_session = load(entry)
    load(preload)(options)
    tuning.share_with_forks()
    _send(control, {"ready": True})
    return _Template(control, fresh, run_session).run()


# -- the server's side ------------------------------------------------------------------


class SessionTemplate:
    """The template process as the server sees it: start it, fork sessions, restart it.

    `request` sends a session's request and returns: the server goes on serving others
    while the template forks (a few milliseconds, more while sessions start in numbers);
    answers and exits arrive on the event loop and go to the callbacks each session gave.
    """

    def __init__(
        self, log: logging.Logger, app_args: Sequence[str] = (), *, entry: str, preload: str
    ) -> None:
        self.log = log
        self._app_args = tuple(app_args)
        self._entry = entry  # what each session runs, `module:function`
        self._preload = preload  # what the template loads first, `module:function`
        self._loop: asyncio.AbstractEventLoop | None = None
        self.pid: int | None = None
        self._pidfd: int | None = None
        self._sock: socket.socket | None = None
        self.ready = False
        self.gave_up = False
        self.failures = 0
        self._ready_waiter: asyncio.Future[None] | None = None
        self._next_request = 0
        self._sessions: dict[int, ExitCallback] = {}
        self._asked: dict[int, tuple[StartCallback, ExitCallback, asyncio.TimerHandle]] = {}
        self._restart: asyncio.Task[None] | None = None
        self.stopping = False

    @property
    def usable(self) -> bool:
        return self.ready and self._sock is not None

    async def start(self, timeout: float = READY_TIMEOUT_SECONDS) -> bool:
        """Start the template and wait until it is loaded; False (and logged) if it could
        not be: sessions then start the plain way."""
        self._loop = asyncio.get_running_loop()
        begin = time.monotonic()
        server_end, template_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [
            *(sys.executable, "-P", "-m", "tutor.serve.template", str(os.getpid())),
            *(self._entry, self._preload),
        ]
        try:
            self.pid = os.posix_spawn(
                argv[0],
                [*argv, "--", *self._app_args],
                base_environment(),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, template_end.fileno(), CONTROL_FD),
                ],
                # out of the server's terminal's reach: Ctrl-C there is for the server
                setsid=True,
                setsigdef=signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP},
                setsigmask=set(),
            )
            self._pidfd = os.pidfd_open(self.pid)
        except OSError as exc:
            server_end.close()
            self._failed(f"cannot start: {exc}")
            return False
        finally:
            template_end.close()
        server_end.setblocking(False)
        self._sock = server_end
        self._ready_waiter = self._loop.create_future()
        self._loop.add_reader(self._pidfd, self._template_exited)
        self._loop.add_reader(server_end, self._receive)
        try:
            await asyncio.wait_for(asyncio.shield(self._ready_waiter), timeout)
        except TimeoutError:
            self._kill()
            return False
        except TemplateUnavailable:
            return False
        self.log.info("session template ready pid=%d in %.1fs", self.pid, time.monotonic() - begin)
        return True

    def request(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        tty: int,
        crash: int,
        on_started: StartCallback,
        on_exit: ExitCallback,
    ) -> None:
        """Ask for a new session on pty end `tty`; `argv` is the plain child's command line
        (child.child_argv): the template runs what it runs. The answer comes later, on the
        event loop: on_started(pid), or on_started(None) if the template could not (the
        caller then starts the session the plain way), then on_exit(code) when it ends.
        TemplateUnavailable: no template to ask now."""
        if not self.usable:
            raise TemplateUnavailable("the session template is not running")
        assert self._sock is not None and self._loop is not None
        self._next_request += 1
        number = self._next_request
        request = {"start": number, "args": list(argv[CHILD_ARGS_FROM:]), "env": dict(env)}
        fds = array.array("i", [tty, crash])
        try:
            self._sock.sendmsg(
                [json.dumps(request).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)]
            )
        except OSError as exc:
            self.log.error("session template cannot be reached (%s); restarting it", exc)
            self._kill()
            raise TemplateUnavailable(str(exc)) from exc
        late = self._loop.call_later(START_TIMEOUT_SECONDS, self._late, number)
        self._asked[number] = (on_started, on_exit, late)

    def _late(self, number: int) -> None:
        if number in self._asked:
            self.log.error("session template does not answer; restarting it")
            self._kill()  # its end answers every open request (_template_exited)

    def _read(self) -> dict[str, Any] | None:
        """One message; None at end of stream."""
        assert self._sock is not None
        data = self._sock.recv(_MAX_MESSAGE)
        return json.loads(data) if data else None

    def _receive(self) -> None:
        while self._sock is not None:
            try:
                message = self._read()
            except BlockingIOError:
                return
            except OSError:
                message = None
            if message is None:
                if self._sock is not None:
                    self._loop.remove_reader(self._sock)  # type: ignore[union-attr]
                return
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("ready") and self._ready_waiter is not None:
            self.ready = True
            self.failures = 0
            if not self._ready_waiter.done():
                self._ready_waiter.set_result(None)
        elif "started" in message:
            asked = self._asked.pop(int(message["started"]), None)
            if asked is None:
                return
            on_started, on_exit, late = asked
            late.cancel()
            if "pid" in message:
                self._sessions[int(message["pid"])] = on_exit
                on_started(int(message["pid"]))
            else:
                self.log.error("session template refused a session: %s", message.get("error"))
                on_started(None)
        elif "exited" in message:
            on_exit = self._sessions.pop(int(message["exited"]), None)
            if on_exit is not None:
                on_exit(int(message["code"]))

    def _template_exited(self) -> None:
        assert self._loop is not None and self._pidfd is not None and self.pid is not None
        code = reap(self._loop, self.pid, self._pidfd)
        if code is None:
            return
        self._pidfd = None
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._receive()  # the exits it reported before it went
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_reader(self._sock)
            self._sock.close()
            self._sock = None
        self.ready = False
        self.pid = None
        # its sessions died with it (PR_SET_PDEATHSIG): see that they did, and say so
        unanswered, self._asked = self._asked, {}
        for on_started, _, late in unanswered.values():
            late.cancel()
            on_started(None)
        orphans, self._sessions = self._sessions, {}
        for session_pid, on_exit in orphans.items():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(session_pid, signal.SIGKILL)
            on_exit(-signal.SIGKILL)
        if self._ready_waiter is not None and not self._ready_waiter.done():
            self._ready_waiter.set_exception(TemplateUnavailable("exited while loading"))
            self._ready_waiter.exception()  # retrieved: start() may have given up already
        if self.stopping:
            return
        self._failed(
            f"exited with status {code}" + (f", ending {len(orphans)} sessions" if orphans else ""),
        )

    def _failed(self, what: str) -> None:
        self.failures += 1
        if self.failures >= MAX_FAILURES:
            self.gave_up = True
            self.log.error(
                "session template %s; it failed %d times, so sessions start the plain way "
                "from now on",
                what,
                self.failures,
            )
            return
        self.log.error("session template %s; restarting it (sessions start the plain way "
                       "until it is ready)", what)  # fmt: skip
        if self._loop is not None and not self.stopping:
            self._restart = self._loop.create_task(self.start())

    def _kill(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    async def stop(self) -> None:
        """End the template (the server has ended its sessions) and reap it."""
        self.stopping = True
        if self._restart is not None:
            self._restart.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._restart
        if self._sock is not None:
            self._sock.shutdown(socket.SHUT_RDWR)  # the template reads the end and exits
        deadline = time.monotonic() + 5.0
        while self._pidfd is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self._pidfd is not None:
            self._kill()
            while self._pidfd is not None:
                await asyncio.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
