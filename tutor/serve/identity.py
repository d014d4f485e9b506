"""Who a learner is: the SHA-256 fingerprint of the key they proved they hold.

The SSH username is chosen freely by the client, so it never names a learner.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import asyncssh

log = logging.getLogger("tutor.serve")

# an authorized_keys line may start with options (which may quote spaces); the key itself
# is "<type> <base64>", found by its type prefix
_KEY_IN_LINE = re.compile(r"(?:^|\s)((?:ssh|ecdsa|sk)-\S+\s+[A-Za-z0-9+/]+={0,3})(?:\s|$)")


@dataclass(frozen=True, slots=True)
class Identity:
    learner_id: str
    guest: bool = False

    @classmethod
    def for_key(cls, key: asyncssh.SSHKey) -> Identity:
        return cls(key.get_fingerprint("sha256"))


GUEST = Identity("guest", guest=True)


def parse_authorized_keys(text: str, source: str) -> tuple[set[str], list[str]]:
    """Fingerprints of the keys in an authorized_keys text, and one problem per bad line.

    Options such as `from=` or `command=` are not honoured: a listed key is simply a
    learner who may connect.
    """
    found: set[str] = set()
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _KEY_IN_LINE.search(line)
        try:
            if match is None:
                raise asyncssh.KeyImportError("no public key on this line")
            key = asyncssh.import_public_key(match.group(1))
        except (asyncssh.KeyImportError, ValueError) as exc:
            problems.append(f"{source}:{number}: {exc}")
            continue
        found.add(key.get_fingerprint("sha256"))
    return found, problems


def key_comments(text: str) -> dict[str, str]:
    """Fingerprint -> the comment after the key (`ssh-ed25519 AAAA... Ada Lovelace`): the
    names a teacher gave learners' keys, which `tutor report` shows. Bad lines are skipped
    here; the server reports them."""
    names: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        match = _KEY_IN_LINE.search(line)
        comment = line[match.end() :].strip() if match else ""
        if match is None or not comment or line.startswith("#"):
            continue
        try:
            key = asyncssh.import_public_key(match.group(1))
        except (asyncssh.KeyImportError, ValueError):
            continue
        names[key.get_fingerprint("sha256")] = comment
    return names


class KeyPolicy:
    """Decides which keys get in; an authorized_keys file is re-read when it changes.

    Re-reading means a teacher adds a learner by editing the file, without a restart.
    """

    def __init__(self, authorized_keys: Path | None, open_: bool) -> None:
        self.authorized_keys = authorized_keys
        self.open = open_
        self._stamp: tuple[int, int] | None = None
        self._fingerprints: set[str] = set()
        if authorized_keys is not None:
            self.reload()

    @property
    def guests_allowed(self) -> bool:
        return self.open

    @property
    def key_count(self) -> int:
        return len(self._fingerprints)

    def reload(self) -> list[str]:
        """Re-read the authorized_keys file if it changed; returns its problems."""
        assert self.authorized_keys is not None
        stat = self.authorized_keys.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return []
        text = self.authorized_keys.read_text(encoding="utf-8", errors="replace")
        self._fingerprints, problems = parse_authorized_keys(text, str(self.authorized_keys))
        self._stamp = stamp
        for problem in problems:
            log.warning("authorized keys: %s", problem)
        return problems

    def allows(self, key: asyncssh.SSHKey) -> bool:
        if self.open:
            return True
        try:
            self.reload()
        except OSError as exc:
            # keep the last good list: a file being rewritten must not lock everyone out
            log.warning("authorized keys: cannot re-read %s: %s", self.authorized_keys, exc)
        return key.get_fingerprint("sha256") in self._fingerprints
