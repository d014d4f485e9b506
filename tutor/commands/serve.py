"""`tutor serve`: learners connect with ssh and each get their own tutor session."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor.serve.config import ServeConfig

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def _app_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The global options the admin gave, passed on to every learner's tutor."""
    out: list[str] = []
    for flag, value in (("--model", args.model), ("--content", args.content)):
        if value is not None:
            out += [flag, str(Path(value).resolve())]
    if args.lang is not None:
        out += ["--lang", args.lang]
    return tuple(out)


def _connect_host(host: str) -> str:
    return socket.gethostname() if host in ("", "0.0.0.0", "::") else host


def _banner(config: ServeConfig, port: int, fingerprint: str, key_count: int) -> str:
    from tutor.progress.store import redact
    from tutor.serve.limits import count

    host = _connect_host(config.host)
    if config.open:
        who = "any SSH key (its fingerprint is the learner id); without a key, as a guest"
    else:
        who = f"only the {count(key_count, 'key')} listed in {config.authorized_keys}"
    reach = (
        "this machine only (loopback); use --host 0.0.0.0 to accept other machines"
        if config.host in _LOOPBACK
        else f"address {config.host}"
    )
    return "\n".join(
        [
            f"tutor serve: listening on {config.host} port {port}, {reach}",
            f"host key fingerprint: {fingerprint}",
            f"learners connect with: ssh -p {port} {host}",
            f"who may connect: {who}",
            f"data: {config.data_dir}",
            *([f"progress database: {redact(config.database)}"] if config.database else []),
            "stop with Ctrl-C",
        ]
    )


async def _serve(config: ServeConfig) -> int:
    from tutor.progress.store import StoreError
    from tutor.serve.server import TutorServer

    server = TutorServer(config)
    try:
        await server.start()
    except OSError as exc:
        print(
            f"tutor serve: cannot listen on {config.host} port {config.port}: {exc}",
            file=sys.stderr,
        )
        return 1
    except StoreError as exc:
        print(f"tutor serve: {exc}", file=sys.stderr)
        return 1
    # Before the banner: whoever reads it (an admin, systemd, a script) may stop the
    # server at once, and that stop must end the sessions cleanly too.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    print(_banner(config, server.port, server.fingerprint, server.policy.key_count), flush=True)
    await stop.wait()
    print("tutor serve: stopping; ending every session", file=sys.stderr, flush=True)
    await server.stop()
    return 0


def config_from(args: argparse.Namespace, session_entry: str | None = None) -> ServeConfig | str:
    """The server's settings from `tutor serve`'s options (one per ServeConfig field that
    says it is one), or why they cannot be."""
    from tutor.commands.session import ENTRY, PRELOAD
    from tutor.progress.store import (
        StoreError,
        check_database_url,
        default_data_dir,
        default_database,
    )
    from tutor.serve.config import ServeConfig, options, refusal

    if args.open and args.authorized_keys is not None:
        return "--open and --authorized-keys exclude each other: --open lets every key in"
    if not args.open and args.authorized_keys is None:
        return (
            "say who may connect: --authorized-keys FILE (only the keys listed there) or "
            "--open (any key, and guests without one)"
        )
    if args.authorized_keys is not None and not args.authorized_keys.is_file():
        return f"{args.authorized_keys}: no such file"
    given = {option.name: getattr(args, option.name) for option in options()}
    for option in options():
        if (wrong := refusal(option, given[option.name])) is not None:
            return wrong
    given["data_dir"] = (args.data_dir or default_data_dir()).expanduser().resolve()
    given["database"] = args.database or default_database()
    if given["database"] is not None:
        try:
            check_database_url(given["database"])
        except StoreError as exc:
            return f"--database: {exc}"
    return ServeConfig(
        **given,
        app_args=_app_args(args),
        session_entry=session_entry or ENTRY,
        session_preload=PRELOAD,
    )


def run(args: argparse.Namespace, session_entry: str | None = None) -> int:
    """`tutor serve`; `session_entry` (benchmarks only) replaces the tutor in forked sessions."""
    from tutor.serve.hostkey import HostKeyError

    config = config_from(args, session_entry)
    if isinstance(config, str):
        print(f"tutor serve: {config}", file=sys.stderr)
        return 2
    if config.live_training:  # the sessions inherit these (tutor/core/live.py reads them)
        os.environ["TUTOR_LIVE_TRAINING"] = str(config.live_training)
        os.environ["TUTOR_LIVE_SLOTS"] = str(config.data_dir / "live-training")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr
    )
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        return asyncio.run(_serve(config))
    except HostKeyError as exc:
        print(f"tutor serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"tutor serve: {exc}", file=sys.stderr)
        return 1
