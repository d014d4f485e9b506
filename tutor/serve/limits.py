"""Limits that keep one server usable for a whole class: connection rate and session caps."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
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


class SessionCaps:
    """Concurrent sessions, globally and per learner; guests count only globally."""

    def __init__(self, max_total: int, max_per_identity: int) -> None:
        self.max_total = max_total
        self.max_per_identity = max_per_identity
        self.total = 0
        self._per_identity: Counter[str] = Counter()

    def acquire(self, identity: Identity) -> Refusal | None:
        """Take a slot, or say why not (the message is shown to the learner)."""
        if self.total >= self.max_total:
            return Refusal(
                "server-full",
                f"The tutor is full: {count(self.total, 'session')} open, the most this "
                "server allows. Please try again in a few minutes.",
            )
        held = 0 if identity.guest else self._per_identity[identity.learner_id]
        if held >= self.max_per_identity:
            return self.key_limit(held)
        self.total += 1
        if not identity.guest:
            self._per_identity[identity.learner_id] += 1
        return None

    def key_limit(self, held: int, where: str = "") -> Refusal:
        return Refusal(
            "key-limit",
            f"You already have {count(held, 'tutor session')} open with this key{where} "
            f"(the limit is {self.max_per_identity}). Close one, then connect again.",
        )

    def release(self, identity: Identity) -> None:
        self.total -= 1
        if not identity.guest:
            self._per_identity[identity.learner_id] -= 1
            if self._per_identity[identity.learner_id] <= 0:
                del self._per_identity[identity.learner_id]
