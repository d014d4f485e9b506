"""The SSH listener: authentication, per-connection limits, and the sessions it owns."""

from __future__ import annotations

import asyncio
import logging
import select
import shutil
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncssh

from tutor.progress.sessions import Claim, ServedSessions
from tutor.progress.store import StoreError
from tutor.serve.child import ChildTerminal
from tutor.serve.config import ServeConfig
from tutor.serve.hostkey import fingerprint, load_or_create_host_key
from tutor.serve.identity import GUEST, Identity, KeyPolicy
from tutor.serve.limits import (
    ACCEPT_BATCH,
    ConnectionCaps,
    RateLimiter,
    Refusal,
    SessionCaps,
    count,
    fit_to_fd_limit,
    kept_for_keys,
    needed_fds,
)
from tutor.serve.session import TutorSession, format_duration
from tutor.serve.template import SessionTemplate

_STOP_GRACE_SECONDS = 5.0
CHANNEL_WINDOW = 256 * 1024
# a refused client still reads why, but holds its socket no longer than this
_REFUSED_LOGIN_SECONDS = 10.0
# repeated log lines (refusals in a flood, EMFILE) are written at most this often
LOG_INTERVAL_SECONDS = 10.0
# when the server is full, a logged-in connection with no tutor session for this long makes
# way for a newcomer (after silent ones and ones still logging in); a learner's client asks
# for its session as soon as it has logged in
LINGER_SECONDS = 10.0


class ThrottledLog:
    """Log lines that a flood would repeat thousands of times: the first one of a kind,
    then at most one per interval saying how many were left out."""

    def __init__(self, log: logging.Logger, interval: float = LOG_INTERVAL_SECONDS) -> None:
        self._log = log
        self._interval = interval
        self._last: dict[str, float] = {}
        self._skipped: dict[str, int] = {}

    def info(self, kind: str, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, -self._interval) < self._interval:
            self._skipped[kind] = self._skipped.get(kind, 0) + 1
            return
        self._last[kind] = now
        skipped = self._skipped.pop(kind, 0)
        if skipped:
            message += f" (and {skipped} more like it in the last %.0fs)"
            args = (*args, self._interval)
        self._log.info(message, *args)


class _Connection(asyncssh.SSHServer):
    """One client connection: caps, rate limit, login and session-open timers, and who
    authenticated."""

    def __init__(self, server: TutorServer) -> None:
        self._server = server
        self._conn: asyncssh.SSHServerConnection | None = None
        self._ip = "?"
        self._counted = False
        self._lost = False
        self._sessionless_since = time.monotonic()
        self._login_timer: asyncio.TimerHandle | None = None
        self._session_timer: asyncio.TimerHandle | None = None
        # the last identity a successful auth step named; auth_completed follows the
        # final (signed) step with no other packet in between, so this is who logged in
        self._candidate: Identity | None = None
        self.identity: Identity | None = None
        # its open session channels, shell or not: each holds a session's state here
        self.channels: set[TutorSession] = set()
        # set when the rate limit refuses this connection; said at the first auth request,
        # once keys are exchanged, because a client still sending its own key exchange
        # never reads a disconnect sent earlier (OpenSSH reports a broken pipe)
        self._refusal: str | None = None

    @property
    def silent(self) -> bool:
        """Not a word from the client yet, not even its SSH version, nor a byte waiting
        to be read: the first to go. (A learner's client speaks at once.)"""
        if self._conn is None or self._conn.get_extra_info("client_version"):
            return False
        sock = self._conn.get_extra_info("socket")
        if sock is None:
            return False
        waiting = select.poll()
        waiting.register(sock.fileno(), select.POLLIN)
        return not waiting.poll(0)

    @property
    def logging_in(self) -> bool:
        return self.identity is None

    @property
    def lingering(self) -> bool:
        """Logged in, and no tutor session for LINGER_SECONDS."""
        return (
            self.identity is not None
            and self._server.caps.held_by(self) == 0
            and time.monotonic() - self._sessionless_since >= LINGER_SECONDS
        )

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._ip = str(conn.get_extra_info("peername", ("?", 0))[0])
        self._server.connections.add(self)
        loop = asyncio.get_running_loop()
        refusal = self._server.admit(self, self._ip)
        if refusal is not None:
            self._server.throttled.info(
                refusal.reason, "connection refused ip=%s reason=%s", self._ip, refusal.reason
            )
            # after asyncssh has sent its version, so the client can read the reason
            loop.call_soon(conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal.message)
            return
        self._counted = True
        login_timeout = self._server.config.login_timeout
        wait = self._server.rate.take(self._ip)
        if wait > 0:
            self._server.throttled.info(
                "rate-limit", "connection refused ip=%s reason=rate-limit", self._ip
            )
            self._refusal = (
                f"Too many connections from {self._ip}; wait {format_duration(wait)} and try again."
            )
            login_timeout = min(login_timeout, _REFUSED_LOGIN_SECONDS)
        self._login_timer = loop.call_later(login_timeout, self._login_expired, login_timeout)

    def evict(self, reason: str, message: str) -> None:
        """Closed to make room for a new connection (the caps released it already)."""
        self._counted = False
        self.close_for(reason, message, asyncssh.DISC_TOO_MANY_CONNECTIONS)

    def close_for(
        self, reason: str, message: str, code: int = asyncssh.DISC_BY_APPLICATION
    ) -> None:
        """Closed by the server, logged by `reason`; `message` is the client's to read."""
        self._server.throttled.info(reason, "connection closed ip=%s reason=%s", self._ip, reason)
        self._end(code, message)

    def _end(self, code: int, message: str) -> None:
        for timer in (self._login_timer, self._session_timer):
            if timer is not None:
                timer.cancel()
        if self._conn is not None:
            self._conn.disconnect(code, message)

    def _login_expired(self, timeout: float) -> None:
        self._server.throttled.info(
            "login-timeout", "connection refused ip=%s reason=login-timeout", self._ip
        )
        self._end(
            asyncssh.DISC_BY_APPLICATION,
            f"Login took longer than {format_duration(timeout)}; connect again.",
        )

    def _no_session(self) -> None:
        timeout = self._server.config.session_open_timeout
        self._server.throttled.info(
            "no-session", "connection closed ip=%s reason=no-session", self._ip
        )
        self._end(
            asyncssh.DISC_BY_APPLICATION,
            f"No tutor session was started within {format_duration(timeout)} of logging in; "
            "connect again.",
        )

    def session_began(self) -> None:
        if self._session_timer is not None:
            self._session_timer.cancel()
            self._session_timer = None

    def session_ended(self) -> None:
        """A connection left without a session gets the session-open time again."""
        if self._lost or self._session_timer is not None:
            return
        if self._server.caps.held_by(self) == 0:
            self._sessionless_since = time.monotonic()
            self._start_session_timer()

    def _start_session_timer(self) -> None:
        loop = asyncio.get_running_loop()
        self._session_timer = loop.call_later(
            self._server.config.session_open_timeout, self._no_session
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        for timer in (self._login_timer, self._session_timer):
            if timer is not None:
                timer.cancel()
        if self._counted:
            self._server.connection_caps.release(self)
        self._server.connections.discard(self)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "The tutor server is stopping.")

    def begin_auth(self, username: str) -> bool:
        if self._refusal is not None and self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self._refusal)
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allowed = self._server.policy.allows(key)
        self._candidate = Identity.for_key(key) if allowed else None
        return allowed

    def kbdint_auth_supported(self) -> bool:
        return self._server.policy.guests_allowed

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> tuple[str, str, str, list[tuple[str, bool]]]:
        self._candidate = None
        return (
            "Guest",
            "No SSH key was offered, so you can enter as a guest. Guest progress is not "
            "saved; connect with an SSH key to keep yours.",
            "en",
            [("Press Enter to continue as a guest: ", True)],
        )

    def validate_kbdint_response(self, username: str, responses: list[str]) -> bool:
        self._candidate = GUEST
        return True

    def auth_completed(self) -> None:
        if self._login_timer is not None:
            self._login_timer.cancel()
            self._login_timer = None
        self.identity = self._candidate
        self._start_session_timer()

    def session_requested(self) -> TutorSession | bool:
        if self.identity is None or self._conn is None:
            return False
        # one more than its sessions: a session past the cap still opens, to read why not
        cap = self._server.config.max_sessions_per_connection + 1
        if len(self.channels) >= cap:
            raise asyncssh.ChannelOpenError(
                asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED,
                f"This connection already has {count(len(self.channels), 'session channel')}"
                f" open (the limit is {cap}). Close one first.",
            )
        client = str(self._conn.get_extra_info("client_version", "?"))
        session = TutorSession(self._server, self, self.identity, self._ip, client)
        self.channels.add(session)
        return session


# who makes way for a newcomer when the server is full, in this order, and what they read
_MAKE_WAY: tuple[tuple[str, Callable[[_Connection], bool], str], ...] = (
    (
        "silent",
        lambda connection: connection.silent,
        "The tutor server is busy and closed this silent connection; connect again.",
    ),
    (
        # a flood that says its SSH version and stops: its addresses collect strikes and
        # go first, so a learner's login in progress is safe while any of them is open
        "stalled",
        lambda connection: connection.logging_in,
        "The tutor server is busy and closed this connection before it logged in; connect again.",
    ),
    (
        "lingering",
        lambda connection: connection.lingering,
        "The tutor server is busy and closed this connection, which had no tutor session "
        "open; connect again.",
    ),
)


class TutorServer:
    """Owns the listener, the limits and every live session and child process."""

    def __init__(self, config: ServeConfig) -> None:
        if not (config.session_entry and config.session_preload):
            raise ValueError("ServeConfig: say what sessions run (tutor.commands.session)")
        self.config = config
        self.log = logging.getLogger("tutor.serve")
        self.policy = KeyPolicy(config.authorized_keys, config.open)
        self.rate = RateLimiter(config.rate, config.burst)
        self.throttled = ThrottledLog(self.log)
        self.budget = fit_to_fd_limit(config.max_connections, config.max_sessions)
        if (self.budget.max_connections, self.budget.max_sessions) != (
            config.max_connections,
            config.max_sessions,
        ):
            self.log.warning(
                "the open-file limit (%d) fits only %d connections and %d sessions; "
                "raise it to %d (systemd: LimitNOFILE=) for --max-connections %d and "
                "--max-sessions %d",
                self.budget.limit,
                self.budget.max_connections,
                self.budget.max_sessions,
                needed_fds(config.max_connections, config.max_sessions),
                config.max_connections,
                config.max_sessions,
            )
        self.connection_caps = ConnectionCaps(
            self.budget.max_connections, config.max_connections_per_address
        )
        self.caps = SessionCaps(
            self.budget.max_sessions,
            config.max_sessions_per_key,
            config.max_sessions_per_connection,
            config.max_sessions_per_address,
            max_guests=self.budget.max_sessions
            - kept_for_keys(self.budget.max_sessions, config.keep_for_keys),
        )
        self.host_key = load_or_create_host_key(config.data_dir)
        self.fingerprint = fingerprint(self.host_key)
        self.sessions: set[TutorSession] = set()
        self.connections: set[_Connection] = set()
        self.closing: set[asyncio.Task[None]] = set()
        # pid -> child, from spawn until reaped: what tests and shutdown check
        self.children: dict[int, ChildTerminal] = {}
        self._listener: asyncssh.SSHAcceptor | None = None
        self.port = config.port
        self.served: ServedSessions | None = None
        # every call on the server's one database connection runs here, one at a time, so
        # a database that hangs stalls only admissions, never the sessions already open
        self._database = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tutor-database")
        self.template: SessionTemplate | None = None

    async def admit_session(
        self, session: TutorSession, connection: Hashable, ip: str
    ) -> Refusal | None:
        """A slot for a new session on this server and, on a shared database, under the
        learner's cap across every server; or why not (the message is the learner's).
        The database is asked in its own thread and waited for at most `database_wait`."""
        served = self.served
        assert served is not None
        identity = session.identity
        refusal = self.caps.acquire(identity, connection, ip)
        if refusal is not None:
            return refusal
        cap = self.config.max_sessions_per_key
        started = asyncio.wrap_future(
            self._database.submit(served.start, identity.learner_id, guest=identity.guest, cap=cap)
        )
        done, _ = await asyncio.wait({started}, timeout=self.config.database_wait)
        if not done:
            started.add_done_callback(self._give_back_late)
            self.log.error(
                "progress database: no answer within %.0f s; session refused learner=%s",
                self.config.database_wait,
                identity.learner_id,
            )
        elif started.exception() is not None:
            self.log.error("progress database: %s", started.exception())
        else:
            session.claim = started.result()
            if session.claim is None:
                self.caps.release(identity, connection, ip)
                return self.caps.key_limit(cap, " on this tutor's servers")
            return None
        self.caps.release(identity, connection, ip)
        return Refusal(
            "database", "The tutor cannot reach its progress database; please tell the teacher."
        )

    def _give_back_late(self, started: asyncio.Future[Claim | None]) -> None:
        """A claim the database granted after its session was refused ends at once."""
        if not started.cancelled() and started.exception() is None:
            claim = started.result()
            if claim is not None:
                self._end_claim(claim)

    def _end_claim(self, claim: Claim) -> None:
        served = self.served
        assert served is not None

        def end() -> None:
            try:
                served.end(claim)
            except StoreError as exc:
                self.log.error("progress database: %s", exc)

        self._database.submit(end)

    def leave_session(self, session: TutorSession, connection: Hashable, ip: str) -> None:
        self.caps.release(session.identity, connection, ip)
        if session.claim is not None and self.served is not None:
            self._end_claim(session.claim)
            session.claim = None

    def admit(self, connection: _Connection, ip: str) -> Refusal | None:
        """Count a new connection in; when the server is full, a connection that has not
        said a word makes room, else one that has not logged in, else one logged in with
        no session for LINGER_SECONDS (a flood of connects that never log in, or log in and
        ask for nothing, cannot lock learners out, whose clients log in and ask for their
        session at once)."""
        refusal = self.connection_caps.admit(connection, ip)
        if refusal is None or refusal.reason != "server-busy":
            return refusal
        for reason, may_go, message in _MAKE_WAY:
            other = self.connection_caps.make_way(
                lambda o, may_go=may_go: isinstance(o, _Connection) and may_go(o)
            )
            if isinstance(other, _Connection):
                other.evict(reason, message)
                return self.connection_caps.admit(connection, ip)
        return refusal

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Out of file descriptors, asyncio stops accepting for a second and retries; say so
        once per interval, without a traceback each time."""
        if str(context.get("message", "")).startswith("socket.accept() out of system"):
            self.throttled.info(
                "accept-failed",
                "cannot accept connections: %s (open-file limit %d); retrying every second",
                context.get("exception"),
                self.budget.limit,
            )
            return
        loop.default_exception_handler(context)

    async def start(self) -> None:
        # a crash may have left guests' scratch data behind; guests never keep data
        shutil.rmtree(self.config.data_dir / "guests", ignore_errors=True)
        self.served = await asyncio.get_running_loop().run_in_executor(
            self._database,
            lambda: ServedSessions(self.config.data_dir, database=self.config.database),
        )
        asyncio.get_running_loop().set_exception_handler(self._loop_exception)
        if self.config.session_start == "fork":
            # before listening: the first learner's session comes from it already
            self.template = SessionTemplate(
                self.log,
                self.config.app_args,
                entry=self.config.session_entry,
                preload=self.config.session_preload,
            )
            await self.template.start()
        self._listener = await asyncssh.create_server(
            lambda: _Connection(self),
            self.config.host,
            self.config.port,
            backlog=ACCEPT_BATCH,
            server_host_keys=[self.host_key],
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            password_auth=False,
            kbdint_auth=self.config.open,
            gss_host=None,
            login_timeout=0,
            # what one session's input may queue in the server while its tutor is busy
            window=CHANNEL_WINDOW,
            keepalive_interval=30,
            keepalive_count_max=3,
        )
        self.port = self._listener.get_port()

    async def stop(self) -> None:
        """Stop listening, end every session with a message, reap every child."""
        if self._listener is not None:
            self._listener.close()
        for session in list(self.sessions):
            session.close("server-stop", "The tutor server is shutting down.")
        if self.closing:
            await asyncio.wait(self.closing)
        for connection in list(self.connections):
            connection.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _STOP_GRACE_SECONDS
        while self.connections and loop.time() < deadline:
            await asyncio.sleep(0.05)
        if self.closing:  # sessions whose connection the disconnects above just ended
            await asyncio.wait(self.closing)
        if self._listener is not None:
            await self._listener.wait_closed()
        if self.template is not None:
            await self.template.stop()
        if self.served is not None:
            # sessions' ends queued before it; a hung database delays stopping no longer
            closed = asyncio.wrap_future(self._database.submit(self.served.close))
            done, _ = await asyncio.wait({closed}, timeout=self.config.database_wait)
            if not done:
                self.log.error("progress database: no answer while stopping; sessions stay open")
            elif closed.exception() is not None:
                self.log.error("progress database: %s", closed.exception())
        self._database.shutdown(wait=False)
