"""A real, throwaway PostgreSQL for the tests: a new cluster in a temporary folder,
reachable only through a Unix socket there (no TCP port), stopped at the end.

PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
The tests that need it are skipped only when PostgreSQL is not installed; `.ci/run`
installs it.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SUPERUSER = "tutor"


def postgres_bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: on PATH, else Debian's versioned folder."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return None


@dataclass
class PostgresServer:
    socket_dir: Path
    _numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    def new_database(self) -> str:
        """A fresh, empty database on this server; its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def scalar(url: str, sql: str, params: tuple[object, ...] = ()) -> Any:
    """The one value a query returns, on a connection of its own."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchone()[0]  # type: ignore[index]


def _as_server_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (no initdb/pg_ctl); .ci/run installs it")
    root = Path(tempfile.mkdtemp(prefix="tutor-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    run = dict(check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        subprocess.run(
            _as_server_user(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(data),
                    f"--username={SUPERUSER}",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-sync",
                ]
            ),
            **run,
        )
        options = f"-c listen_addresses='' -k {root} -c fsync=off -c max_connections=200"
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w"]
        subprocess.run(_as_server_user([*pg_ctl, "-o", options, "start"]), **run)
    except subprocess.CalledProcessError as exc:
        log = root / "log"
        detail = log.read_text() if log.exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {exc.stdout}{detail}") from exc
    try:
        yield PostgresServer(root)
    finally:
        subprocess.run(
            _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]),
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)
