"""asyncssh's private hooks the server relies on, each with the reason; a test checks every
target in HOOKS still exists (tests/unit/test_private_hooks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tutor.hooks import Hook

if TYPE_CHECKING:
    import asyncssh
    from asyncssh.packet import SSHPacket

HOOKS = (
    # env requests without limit (handle_env_requests)
    Hook(
        "asyncssh.channel:SSHServerChannel._process_env_request",
        "tutor.serve.compat",
        ("self", "packet"),
    ),
)


def handle_env_requests(
    chan: asyncssh.SSHServerChannel[bytes], handler: Callable[[bytes, bytes], bool]
) -> None:
    """Every `env` request on `chan` goes to `handler(name, value)`, whose answer is the
    client's reply. asyncssh keeps every one a client sends, without limit, in the channel's
    `_env` (10,000 requests of 30 KB grew the server by 575 MB, kept after the client left)
    and offers no public hook; it finds a request's handler by this attribute name."""

    def process(packet: SSHPacket) -> bool:
        name = packet.get_string()
        value = packet.get_string()
        packet.check_end()
        return handler(name, value)

    chan._process_env_request = process  # type: ignore[attr-defined]
