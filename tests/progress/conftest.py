"""Every behaviour test of the store runs on both backends: the SQLite file and a real
PostgreSQL database (skipped only where PostgreSQL is not installed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.postgres import PostgresServer
from tutor.progress.opening import open_store
from tutor.progress.store import ProgressStore

OpenStore = Callable[[str], ProgressStore]


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, object]:
    """open_store's arguments for one fresh, empty progress store of each backend."""
    if request.param == "sqlite":
        return {"data_dir": tmp_path}
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return {"database": server.new_database()}


@pytest.fixture
def open_as(where: dict[str, object]) -> OpenStore:
    """Open the store as a learner; every store opened is closed after the test."""
    opened: list[ProgressStore] = []

    def open_for(learner: str) -> ProgressStore:
        store = open_store(learner, **where)  # type: ignore[arg-type]
        opened.append(store)
        return store

    yield open_for
    for store in opened:
        store.close()
