"""What the teacher chose when starting `tutor serve`: one frozen record the server, its
sessions and the command line share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tutor.serve.child import DEFAULT_SESSION_MEMORY_MB


@dataclass(frozen=True, slots=True)
class ServeConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 2222
    authorized_keys: Path | None = None
    open: bool = False
    max_sessions: int = 50
    max_sessions_per_key: int = 3
    max_sessions_per_connection: int = 3
    max_sessions_per_address: int = 10
    # with --open: the share of --max-sessions (percent) guests may not take
    keep_for_keys: float = 20.0
    max_connections: int = 200
    max_connections_per_address: int = 20
    # a logged-in connection must start a tutor session within this time
    session_open_timeout: float = 20.0
    idle_timeout: float = 1800.0
    max_session_length: float = 4 * 3600.0
    # each session's memory ceiling (child.py)
    session_memory_mb: int = DEFAULT_SESSION_MEMORY_MB
    login_timeout: float = 60.0
    rate: float = 1.0
    burst: int = 10
    # global options every child gets (--lang, --model, --content), as the admin gave them
    app_args: tuple[str, ...] = ()
    # a postgresql:// URL: progress in that database (shared by every server on it), not
    # in the data dir, which then keeps only the host key
    database: str | None = None
    # how long admitting a session waits for that database before the learner is told to
    # tell the teacher: one reconnect (CONNECT_TIMEOUT_SECONDS) plus one bounded statement
    database_wait: float = 15.0
    # "fork": sessions are forks of a pre-loaded template process (template.py), a fraction
    # of the memory and start time; "spawn": each starts a fresh Python
    session_start: str = "fork"
    # what a forked session runs instead of the tutor, `module:function` (template.py);
    # benchmarks measure the server's own share with a yardstick here
    session_entry: str | None = None
