"""Limits that keep one server usable for a whole class: connection rate, connection and
session caps, and the file descriptors they need."""

from __future__ import annotations

import math
import resource
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from tutor.serve.identity import Identity


def count(n: int, noun: str) -> str:
    """`1 session`, `3 sessions`: messages to learners read as sentences."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class RateLimiter:
    """A token bucket per client IP: `burst` connections at once, then `rate` per second.

    Buckets that have refilled completely carry no information, so they are dropped when
    the table grows; memory stays bounded by the number of recently busy addresses.
    """

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("the connection rate must be > 0 and the burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def _level(self, ip: str, now: float) -> float:
        tokens, stamp = self._buckets.get(ip, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - stamp) * self.rate)

    def take(self, ip: str) -> float:
        """Spend one token for `ip`: 0.0 if allowed, else seconds until a token is back."""
        now = self._clock()
        tokens = self._level(ip, now)
        if tokens < 1.0:
            self._buckets[ip] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self._buckets[ip] = (tokens - 1.0, now)
        if len(self._buckets) > 4096:
            self._prune(now)
        return 0.0

    def _prune(self, now: float) -> None:
        full = [ip for ip in self._buckets if self._level(ip, now) >= self.burst]
        for ip in full:
            del self._buckets[ip]


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str
    message: str


class ConnectionCaps:
    """Open connections, in total and per client address, counted from the moment of
    accept (before authentication), so silent connections cannot pile up unseen.

    When the total is reached, a connection that waits for nothing (silent, or without a
    session for a while) may make way for a new one (make_way); addresses whose connections
    were closed to make way before go first.
    """

    def __init__(self, max_total: int, max_per_address: int) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.open: dict[Hashable, str] = {}  # oldest first
        self._per_address: Counter[str] = Counter()
        # connections closed to make way, per address: a flooder's addresses collect
        # them, a learner's do not (bounded like RateLimiter's table)
        self._strikes: Counter[str] = Counter()

    def admit(self, connection: Hashable, ip: str) -> Refusal | None:
        """Count a new connection in, or say why not (the message reaches the client)."""
        if self._per_address[ip] >= self.max_per_address:
            return Refusal(
                "address-connections",
                f"Too many connections from {ip}: {count(self._per_address[ip], 'connection')}"
                f" open, the limit is {self.max_per_address}. Close one and connect again.",
            )
        if len(self.open) >= self.max_total:
            return Refusal(
                "server-busy",
                "The tutor server has as many connections as it can take. "
                "Please try again in a minute.",
            )
        self.open[connection] = ip
        self._per_address[ip] += 1
        return None

    def make_way(self, may_go: Callable[[Hashable], bool]) -> Hashable | None:
        """Release and return the connection to close so that a new one fits: one that
        `may_go` picks, from the address with the most strikes, oldest first; None if it
        picks none.

        Oldest first alone is not enough: a flood that reconnects at once pushes a
        learner's new connection out before its first words arrive.
        """
        ranked = sorted(
            enumerate(self.open.items()), key=lambda item: (-self._strikes[item[1][1]], item[0])
        )
        for _, (connection, ip) in ranked:
            if may_go(connection):
                self._strikes[ip] += 1
                if len(self._strikes) > 4096:
                    self._strikes = Counter(dict(self._strikes.most_common(2048)))
                self.release(connection)
                return connection
        return None

    def release(self, connection: Hashable) -> None:
        """Forget a connection; a second call for the same one does nothing."""
        ip = self.open.pop(connection, None)
        if ip is not None:
            self._per_address[ip] -= 1
            if self._per_address[ip] <= 0:
                del self._per_address[ip]


def kept_for_keys(max_total: int, percent: float) -> int:
    """Slots guests may not take: `percent` of the total, rounded up, so a share above 0
    keeps at least one."""
    return min(max_total, math.ceil(max_total * percent / 100))


class SessionCaps:
    """Concurrent sessions: in total, per learner key, per connection and per client
    address, and guests' sessions together. Guests count towards every cap except the
    per-key one; the slots beyond `max_guests` are kept for learners with a key."""

    def __init__(
        self,
        max_total: int,
        max_per_identity: int,
        max_per_connection: int = 3,
        max_per_address: int = 10,
        max_guests: int | None = None,
    ) -> None:
        self.max_total = max_total
        self.max_per_identity = max_per_identity
        self.max_per_connection = max_per_connection
        self.max_per_address = max_per_address
        self.max_guests = max_total if max_guests is None else max_guests
        self.total = 0
        self.guests = 0
        self._per_identity: Counter[str] = Counter()
        self._per_connection: Counter[Hashable] = Counter()
        self._per_address: Counter[str] = Counter()

    def acquire(
        self, identity: Identity, connection: Hashable = None, ip: str = "?"
    ) -> Refusal | None:
        """Take a slot, or say why not (the message is shown to the learner)."""
        if self.total >= self.max_total:
            return Refusal(
                "server-full",
                f"The tutor is full: {count(self.total, 'session')} open, the most this "
                "server allows. Please try again in a few minutes.",
            )
        on_connection = self._per_connection[connection]
        if on_connection >= self.max_per_connection:
            return Refusal(
                "connection-limit",
                f"This connection already has {count(on_connection, 'tutor session')}"
                f" open (the limit is {self.max_per_connection}). Close one, then connect again.",
            )
        if self._per_address[ip] >= self.max_per_address:
            return Refusal(
                "address-limit",
                f"{count(self._per_address[ip], 'tutor session')} already open from {ip} "
                f"(the limit is {self.max_per_address}). Close one, then connect again.",
            )
        if identity.guest and self.guests >= self.max_guests:
            kept = self.max_total - self.max_guests
            return Refusal(
                "guests-full",
                f"All {count(self.max_guests, 'tutor session')} open to guests are taken "
                f"({kept} more {'is' if kept == 1 else 'are'} kept for learners with an SSH "
                "key). Connect with your SSH key, or try again in a few minutes.",
            )
        held = 0 if identity.guest else self._per_identity[identity.learner_id]
        if held >= self.max_per_identity:
            return self.key_limit(held)
        self.total += 1
        if identity.guest:
            self.guests += 1
        self._per_connection[connection] += 1
        self._per_address[ip] += 1
        if not identity.guest:
            self._per_identity[identity.learner_id] += 1
        return None

    def key_limit(self, held: int, where: str = "") -> Refusal:
        return Refusal(
            "key-limit",
            f"You already have {count(held, 'tutor session')} open with this key{where} "
            f"(the limit is {self.max_per_identity}). Close one, then connect again.",
        )

    def release(self, identity: Identity, connection: Hashable = None, ip: str = "?") -> None:
        self.total -= 1
        if identity.guest:
            self.guests -= 1
        _decrement(self._per_connection, connection)
        _decrement(self._per_address, ip)
        if not identity.guest:
            _decrement(self._per_identity, identity.learner_id)

    def held_by(self, connection: Hashable) -> int:
        return self._per_connection[connection]


def _decrement(counter: Counter[Hashable], key: Hashable) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


# what the server needs besides connections and sessions: stdio, the event loop, the
# listeners, files it opens for a moment (host key, authorized keys, logs)
FD_RESERVE = 32
# connections accepted in one turn of the event loop (the listen backlog); refused ones
# are closed two turns later, so three batches may be open on top of the admitted ones
ACCEPT_BATCH = 20
# the pty's master end, the pidfd that reaps the child and the pipe its crash report
# comes down, plus the pty's other end while the child starts
FDS_PER_SESSION = 4


@dataclass(frozen=True, slots=True)
class FdBudget:
    """How many connections and sessions the open-file limit allows (and what it is)."""

    limit: int
    max_connections: int
    max_sessions: int


def needed_fds(max_connections: int, max_sessions: int) -> int:
    """The open-file limit (`LimitNOFILE`) that fits these caps."""
    return FD_RESERVE + 3 * ACCEPT_BATCH + max_connections + FDS_PER_SESSION * max_sessions


def fit_to_fd_limit(max_connections: int, max_sessions: int) -> FdBudget:
    """Raise the soft open-file limit as far as the hard one allows, then shrink the caps
    to fit it: hitting the limit (EMFILE) would lock everyone out, a cap refuses one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed_fds(max_connections, max_sessions)
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if raised > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY or soft >= want:
        return FdBudget(max(soft, want), max_connections, max_sessions)
    room = max(soft - FD_RESERVE - 3 * ACCEPT_BATCH, 2)
    # every session needs its connection too; keep at least as many connections as sessions
    sessions = min(max_sessions, room // (FDS_PER_SESSION + 1))
    sessions = max(sessions, 1)
    connections = max(room - FDS_PER_SESSION * sessions, sessions)
    return FdBudget(int(soft), min(connections, max_connections), sessions)
