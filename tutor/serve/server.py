"""The SSH listener: authentication, per-connection limits, and the sessions it owns."""

from __future__ import annotations

import asyncio
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from tutor.progress.sessions import ServedSessions
from tutor.progress.store import StoreError
from tutor.serve.hostkey import fingerprint, load_or_create_host_key
from tutor.serve.identity import GUEST, Identity, KeyPolicy
from tutor.serve.limits import RateLimiter, Refusal, SessionCaps
from tutor.serve.session import ChildTerminal, TutorSession, format_duration

_STOP_GRACE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class ServeConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 2222
    authorized_keys: Path | None = None
    open: bool = False
    max_sessions: int = 50
    max_sessions_per_key: int = 3
    idle_timeout: float = 1800.0
    max_session_length: float = 4 * 3600.0
    login_timeout: float = 60.0
    rate: float = 1.0
    burst: int = 10
    # global options every child gets (--lang, --model, --content), as the admin gave them
    app_args: tuple[str, ...] = ()
    # a postgresql:// URL: progress in that database (shared by every server on it), not
    # in the data dir, which then keeps only the host key
    database: str | None = None


class _Connection(asyncssh.SSHServer):
    """One client connection: rate limit, login timer, and who authenticated."""

    def __init__(self, server: TutorServer) -> None:
        self._server = server
        self._conn: asyncssh.SSHServerConnection | None = None
        self._ip = "?"
        self._login_timer: asyncio.TimerHandle | None = None
        # the last identity a successful auth step named; auth_completed follows the
        # final (signed) step with no other packet in between, so this is who logged in
        self._candidate: Identity | None = None
        self.identity: Identity | None = None
        # set when the rate limit refuses this connection; said at the first auth request,
        # once keys are exchanged, because a client still sending its own key exchange
        # never reads a disconnect sent earlier (OpenSSH reports a broken pipe)
        self._refusal: str | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._ip = str(conn.get_extra_info("peername", ("?", 0))[0])
        self._server.connections.add(self)
        wait = self._server.rate.take(self._ip)
        if wait > 0:
            self._server.log.info("connection refused ip=%s reason=rate-limit", self._ip)
            self._refusal = (
                f"Too many connections from {self._ip}; wait {format_duration(wait)} and try again."
            )
        loop = asyncio.get_running_loop()
        self._login_timer = loop.call_later(self._server.config.login_timeout, self._login_expired)

    def _login_expired(self) -> None:
        assert self._conn is not None
        self._server.log.info("connection refused ip=%s reason=login-timeout", self._ip)
        self._conn.disconnect(
            asyncssh.DISC_BY_APPLICATION,
            f"Login took longer than {format_duration(self._server.config.login_timeout)}; "
            "connect again.",
        )

    def connection_lost(self, exc: Exception | None) -> None:
        if self._login_timer is not None:
            self._login_timer.cancel()
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

    def session_requested(self) -> TutorSession | bool:
        if self.identity is None or self._conn is None:
            return False
        client = str(self._conn.get_extra_info("client_version", "?"))
        return TutorSession(self._server, self.identity, self._ip, client)


class TutorServer:
    """Owns the listener, the limits and every live session and child process."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.log = logging.getLogger("tutor.serve")
        self.policy = KeyPolicy(config.authorized_keys, config.open)
        self.rate = RateLimiter(config.rate, config.burst)
        self.caps = SessionCaps(config.max_sessions, config.max_sessions_per_key)
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

    def admit(self, session: TutorSession) -> Refusal | None:
        """A slot for a new session on this server and, on a shared database, under the
        learner's cap across every server; or why not (the message is the learner's)."""
        assert self.served is not None
        identity = session.identity
        refusal = self.caps.acquire(identity)
        if refusal is not None:
            return refusal
        try:
            session.claim = self.served.start(
                identity.learner_id, guest=identity.guest, cap=self.config.max_sessions_per_key
            )
        except StoreError as exc:
            self.caps.release(identity)
            self.log.error("progress database: %s", exc)
            return Refusal(
                "database",
                "The tutor cannot reach its progress database; please tell the teacher.",
            )
        if session.claim is None:
            self.caps.release(identity)
            return self.caps.key_limit(self.config.max_sessions_per_key, " on this tutor's servers")
        return None

    def leave(self, session: TutorSession) -> None:
        self.caps.release(session.identity)
        if session.claim is not None and self.served is not None:
            try:
                self.served.end(session.claim)
            except StoreError as exc:
                self.log.error("progress database: %s", exc)
            session.claim = None

    async def start(self) -> None:
        # a crash may have left guests' scratch data behind; guests never keep data
        shutil.rmtree(self.config.data_dir / "guests", ignore_errors=True)
        self.served = ServedSessions(self.config.data_dir, database=self.config.database)
        self._listener = await asyncssh.create_server(
            lambda: _Connection(self),
            self.config.host,
            self.config.port,
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
        if self.served is not None:
            self.served.close()
