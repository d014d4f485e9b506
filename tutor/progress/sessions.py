"""What `tutor serve` keeps in the progress database about sessions.

- A log of sessions (who, which server, from when to when): `tutor report` counts guests
  from it without naming them.
- On PostgreSQL, the per-key session cap across every server on the database. A session
  holds one of its learner's `cap` slots as a session-level advisory lock on its
  server's connection, so a server that dies (killed, power lost) gives its slots back
  the moment PostgreSQL sees its connection close: no timeouts, no stale rows.
  The locks die with a connection that merely broke, too (a database restart, a network
  cut), while the server's sessions go on: so on its new connection the server takes
  every slot it holds again before anything else. A slot another server gave away in
  between stays with that server's session; the session here is not ended (its learner
  did nothing wrong) and stays counted here, so that learner may briefly have one
  session over the cap; the log says so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.progress.opening import open_store
from tutor.progress.sql import SqlProgressStore
from tutor.progress.store import StoreError

if TYPE_CHECKING:
    import psycopg

# the store's learner id for the server's own connection; it writes no learner rows
_SERVER = "(tutor serve)"


@dataclass(frozen=True, slots=True)
class Claim:
    """A session the log knows; `slot` is its place under the per-key cap (PostgreSQL)."""

    id: str
    learner: str
    slot: int | None


@contextlib.contextmanager
def _reported() -> Iterator[None]:
    """Whatever the database raised, as the StoreError the server logs and explains."""
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"served sessions: {exc}") from exc


def node_name() -> str:
    """This server in the log: host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


class ServedSessions:
    """The session log and the cap across servers, through one connection of the server."""

    def __init__(self, data_dir: Path | None = None, *, database: str | None = None) -> None:
        store = open_store(_SERVER, data_dir, database=database, bounded=True)
        assert isinstance(store, SqlProgressStore)
        self._store = store
        self.node = node_name()
        self.across_servers = database is not None
        self._held: set[tuple[str, int]] = set()
        if self.across_servers:
            from tutor.progress.postgres import PostgresStore

            assert isinstance(store, PostgresStore)
            store.on_reconnect = self._take_back

    def _take_back(self, conn: psycopg.Connection[Any]) -> None:
        """On a new connection, the slots of the sessions this server still runs."""
        for learner, slot in sorted(self._held):
            (taken,) = conn.execute(  # type: ignore[misc]
                "SELECT pg_try_advisory_lock(hashtext(%s), %s)", (learner, slot)
            ).fetchone()
            if not taken:
                logging.getLogger("tutor.serve").warning(
                    "progress database: the connection broke and another server gave "
                    "slot %d of learner=%s to a new session meanwhile; the session here "
                    "goes on and is still counted here, so this learner may have one "
                    "session over the cap until one ends",
                    slot,
                    learner,
                )

    def start(self, learner: str, *, guest: bool, cap: int) -> Claim | None:
        """Log a new session, or None when the learner already holds `cap` sessions on
        the servers of this database (guests have no cap)."""
        with _reported():
            return self._start(learner, guest, cap)

    def _start(self, learner: str, guest: bool, cap: int) -> Claim | None:
        slot = None
        if self.across_servers and not guest:
            slot = self._take_slot(learner, cap)
            if slot is None:
                return None
        claim = Claim(uuid.uuid4().hex, learner, slot)
        self._store.write(
            (
                "INSERT INTO served_sessions (id, node, learner, guest, started_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (claim.id, self.node, learner, int(guest), time.time()),
            )
        )
        return claim

    def _take_slot(self, learner: str, cap: int) -> int | None:
        for slot in range(cap):
            if (learner, slot) in self._held:
                continue  # locks stack within one connection: a slot this server holds
            (taken,) = self._store.read_one(
                "SELECT pg_try_advisory_lock(hashtext(?), ?)", (learner, slot)
            )
            if taken:
                self._held.add((learner, slot))
                return slot
        return None

    def end(self, claim: Claim) -> None:
        with _reported():
            self._end(claim)

    def _end(self, claim: Claim) -> None:
        if claim.slot is not None:
            self._held.discard((claim.learner, claim.slot))
            self._store.read_one(
                "SELECT pg_advisory_unlock(hashtext(?), ?)", (claim.learner, claim.slot)
            )
        self._store.write(
            ("UPDATE served_sessions SET ended_at = ? WHERE id = ?", (time.time(), claim.id))
        )

    def close(self) -> None:
        """Sessions this server never saw end (it is stopping) end now."""
        with _reported(), contextlib.closing(self._store):
            self._store.write(
                (
                    "UPDATE served_sessions SET ended_at = ? WHERE node = ? AND ended_at IS NULL",
                    (time.time(), self.node),
                )
            )
