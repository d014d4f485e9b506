"""The host key survives restarts; `tutor serve` prints how to connect and stops cleanly."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import stat
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import Terminal, own_child_pids, session_pids_of, start_cli
from tests.waits import wait_until
from tutor.cli import main
from tutor.serve.hostkey import HostKeyError, host_key_path, load_or_create_host_key


def test_host_key_is_made_once_with_private_modes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = load_or_create_host_key(data)
    path = host_key_path(data)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert first.algorithm == b"ssh-ed25519"
    again = load_or_create_host_key(data)
    assert again.get_fingerprint("sha256") == first.get_fingerprint("sha256")


def test_a_host_key_others_can_read_is_refused(tmp_path: Path) -> None:
    load_or_create_host_key(tmp_path)
    host_key_path(tmp_path).chmod(0o644)
    with pytest.raises(HostKeyError, match="chmod 600"):
        load_or_create_host_key(tmp_path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve"], "say who may connect"),
        (["serve", "--open", "--authorized-keys", "k"], "exclude each other"),
        (["serve", "--authorized-keys", "/nonexistent/keys"], "no such file"),
        (["serve", "--open", "--max-sessions", "0"], "--max-sessions must be at least 1"),
        (["serve", "--open", "--idle-timeout", "0"], "--idle-timeout must be more than 0"),
        (["serve", "--open", "--max-connections", "0"], "--max-connections must be at least 1"),
        (["serve", "--open", "--keep-for-keys", "101"], "--keep-for-keys must be 0 to 100"),
    ],
)
def test_serve_refuses_unclear_options(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.asyncio(loop_scope="module")
async def test_cli_prints_the_same_fingerprint_after_a_restart_and_reaps_on_stop(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    proc, port, printed = await start_cli(tmp_path)
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        client_keys=[keys["alice"]],
        known_hosts=None,
        agent_path=None,
        config=None,
        username="x",
    )
    # what the learner's ssh sees is what the admin was shown
    assert conn.get_server_host_key().get_fingerprint("sha256") == printed  # type: ignore[union-attr]
    conn.close()
    await conn.wait_closed()

    term = await Terminal.open(port, keys["alice"])
    await term.wait_for("embedding", "lesson")
    (child,) = session_pids_of(proc.pid)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(proc.wait, 30) == 0
    assert await term.closed() == 1
    await term.wait_for("The tutor server is shutting down.")
    assert not Path(f"/proc/{child}").exists()
    log = proc.stderr.read()  # type: ignore[union-attr]
    assert re.search(
        r"session end learner=SHA256:\S+ ip=127\.0\.0\.1 size=80x24 .*reason=server-stop", log
    )

    again, _, reprinted = await start_cli(tmp_path)
    again.send_signal(signal.SIGINT)
    assert await asyncio.to_thread(again.wait, 30) == 0
    assert reprinted == printed
    assert stat.S_IMODE(os.stat(host_key_path(tmp_path)).st_mode) == 0o600
    await wait_until(lambda: own_child_pids() == [], "no child processes")
