"""What the teacher chose when starting `tutor serve`: one frozen record the server, its
sessions and the command line share.

Each field that is an option of `tutor serve` says so in its metadata (OPTION): its flag,
its help's key in tutor/words/strings.toml, its metavar and the check its value must pass.
The command line's options (tutor.cli) and the record the command builds from them
(tutor.commands.serve) are both read from here, so an option cannot be in one and not in
the other; its default is the field's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

# The most memory one session's tutor may take (its data: heap and private mappings, not
# the shared model files it maps). A session measured 105 MB at the lesson list and at
# most 220 MB through every page; past the ceiling an allocation fails, and the tutor ends
# with the crash path's sentence for it (tutor.crash) instead of taking the server's memory.
DEFAULT_SESSION_MEMORY_MB = 1024

Check = Literal["at_least_1", "more_than_0", "percent", "not_negative"]


@dataclass(frozen=True, slots=True)
class Option:
    """How a ServeConfig field is given on the command line."""

    help: str  # its key in tutor/words/strings.toml
    metavar: str | None = None
    check: Check | None = None
    flag: str | None = None  # when not the field's name with dashes
    choices: tuple[str, ...] | None = None


def _option(help: str, **how: Any) -> dict[str, Option]:
    return {"option": Option(help, **how)}


@dataclass(frozen=True, slots=True)
class ServeConfig:
    data_dir: Path = field(metadata=_option("cli.opt.serve.data_dir", metavar="DIR"))
    host: str = field(default="127.0.0.1", metadata=_option("cli.opt.serve.host"))
    port: int = field(default=2222, metadata=_option("cli.opt.serve.port"))
    authorized_keys: Path | None = field(
        default=None, metadata=_option("cli.opt.serve.keys", metavar="FILE")
    )
    open: bool = field(default=False, metadata=_option("cli.opt.serve.open"))
    max_sessions: int = field(
        default=50, metadata=_option("cli.opt.serve.sessions", metavar="N", check="at_least_1")
    )
    max_sessions_per_key: int = field(
        default=3, metadata=_option("cli.opt.serve.per_key", metavar="N", check="at_least_1")
    )
    max_sessions_per_connection: int = field(
        default=3, metadata=_option("cli.opt.serve.per_connection", metavar="N", check="at_least_1")
    )
    max_sessions_per_address: int = field(
        default=10, metadata=_option("cli.opt.serve.per_address", metavar="N", check="at_least_1")
    )
    # with --open: the share of --max-sessions (percent) guests may not take
    keep_for_keys: float = field(
        default=20.0,
        metadata=_option("cli.opt.serve.keep_for_keys", metavar="PERCENT", check="percent"),
    )
    max_connections: int = field(
        default=200, metadata=_option("cli.opt.serve.connections", metavar="N", check="at_least_1")
    )
    max_connections_per_address: int = field(
        default=20,
        metadata=_option("cli.opt.serve.connections_per_address", metavar="N", check="at_least_1"),
    )
    # a logged-in connection must start a tutor session within this time
    session_open_timeout: float = field(
        default=20.0,
        metadata=_option("cli.opt.serve.open_timeout", metavar="SECONDS", check="more_than_0"),
    )
    idle_timeout: float = field(
        default=1800.0,
        metadata=_option("cli.opt.serve.idle", metavar="SECONDS", check="more_than_0"),
    )
    max_session_length: float = field(
        default=4 * 3600.0,
        metadata=_option("cli.opt.serve.length", metavar="SECONDS", check="more_than_0"),
    )
    # each session's memory ceiling (child.py)
    session_memory_mb: int = field(
        default=DEFAULT_SESSION_MEMORY_MB,
        metadata=_option(
            "cli.opt.serve.memory", metavar="MB", check="at_least_1", flag="--session-memory"
        ),
    )
    login_timeout: float = field(
        default=60.0,
        metadata=_option("cli.opt.serve.login", metavar="SECONDS", check="more_than_0"),
    )
    rate: float = field(
        default=1.0,
        metadata=_option("cli.opt.serve.rate", metavar="PER_SECOND", check="more_than_0"),
    )
    burst: int = field(
        default=10, metadata=_option("cli.opt.serve.burst", metavar="N", check="at_least_1")
    )
    # learners who may train a model live at once (0: none); sessions read it from their
    # environment (tutor/core/live.py)
    live_training: int = field(
        default=0,
        metadata=_option("cli.opt.serve.live_training", metavar="N", check="not_negative"),
    )
    # global options every child gets (--lang, --model, --content), as the admin gave them
    app_args: tuple[str, ...] = ()
    # a postgresql:// URL: progress in that database (shared by every server on it), not
    # in the data dir, which then keeps only the host key
    database: str | None = field(
        default=None, metadata=_option("cli.opt.serve.database", metavar="URL")
    )
    # how long admitting a session waits for that database before the learner is told to
    # tell the teacher: one reconnect (CONNECT_TIMEOUT_SECONDS) plus one bounded statement
    database_wait: float = 15.0
    # "fork": sessions are forks of a pre-loaded template process (template.py), a fraction
    # of the memory and start time; "spawn": each starts a fresh Python
    session_start: str = field(
        default="fork", metadata=_option("cli.opt.serve.session_start", choices=("fork", "spawn"))
    )
    # what a session runs with `tutor`'s arguments, and what its template loads first,
    # both `module:function` from the command that serves (tutor.commands.session: serve
    # imports nothing above it); benchmarks measure the server's own share with a
    # yardstick as the entry
    session_entry: str = ""
    session_preload: str = ""


@dataclass(frozen=True, slots=True)
class CommandLineOption:
    """One option of `tutor serve` as argparse takes it."""

    name: str  # the ServeConfig field, argparse's dest
    flag: str
    option: Option
    kind: type
    default: Any


_KINDS = {"int": int, "float": float, "str": str, "bool": bool, "Path": Path}


def options() -> Iterator[CommandLineOption]:
    """The fields of ServeConfig that are options of `tutor serve`, in their order."""
    for f in fields(ServeConfig):
        option = f.metadata.get("option")
        if option is None:
            continue
        kind = _KINDS[str(f.type).split(" | ")[0]]
        flag = option.flag or "--" + f.name.replace("_", "-")
        # no default of its own (the data dir): the command works it out
        default = None if f.default is MISSING else f.default
        yield CommandLineOption(f.name, flag, option, kind, default)


def refusal(option: CommandLineOption, value: Any) -> str | None:
    """What is wrong with `value` for `option` (the sentence the command prints), or None."""
    check = option.option.check
    if check == "at_least_1" and value < 1:
        return f"{option.flag} must be at least 1"
    if check == "more_than_0" and value <= 0:
        return f"{option.flag} must be more than 0"
    if check == "percent" and not 0 <= value <= 100:
        return f"{option.flag} must be 0 to 100 (percent)"
    if check == "not_negative" and value < 0:
        return f"{option.flag} must be 0 (off) or more"
    return None
