"""The ed25519 host key: made once, then reused so learners' known_hosts entries stay valid."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import asyncssh

KEY_FILE = "ssh_host_ed25519_key"


class HostKeyError(RuntimeError):
    """The host key exists but cannot be trusted or read; the message says what to do."""


def host_key_path(data_dir: Path) -> Path:
    return data_dir / "ssh" / KEY_FILE


def load_or_create_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """Read the host key, creating it (0600, in a 0700 dir) on the first start.

    The key is written to a private temporary file and linked into place, so two servers
    starting at once never see a half-written key, and a lost race reads the winner's key.
    """
    path = host_key_path(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.parent.chmod(0o700)
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519", comment="tutor serve host key")
        tmp = path.with_name(f".{KEY_FILE}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(key.export_private_key())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise HostKeyError(
            f"{path} can be read by other users (mode {mode:o}); "
            f"run `chmod 600 {path}` or delete it to make a new key"
        )
    try:
        return asyncssh.read_private_key(path)
    except (OSError, asyncssh.KeyImportError) as exc:
        raise HostKeyError(f"{path}: cannot read the host key: {exc}") from exc


def fingerprint(key: asyncssh.SSHKey) -> str:
    """SHA-256 fingerprint in OpenSSH's own notation, so admins can compare it by eye."""
    return key.get_fingerprint("sha256")
