"""The server's parts on their own: key lists, token buckets, caps, the child's environment."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from tutor.serve.child import child_environment
from tutor.serve.identity import GUEST, Identity, KeyPolicy, parse_authorized_keys
from tutor.serve.limits import ConnectionCaps, RateLimiter, SessionCaps
from tutor.serve.session import (
    exit_status,
    fit_size,
    format_duration,
    loggable,
)


@pytest.fixture(scope="module")
def two_keys() -> list[asyncssh.SSHKey]:
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]


def test_authorized_keys_lines_with_options_comments_and_mistakes(
    two_keys: list[asyncssh.SSHKey],
) -> None:
    first, second = (k.export_public_key().decode().strip() for k in two_keys)
    text = "\n".join(
        [
            "# the class of 2026",
            "",
            f'no-pty,command="echo hi there" {first}',
            f"{second} bob@laptop",
            "ssh-ed25519 not-base64!",
            "just some words",
        ]
    )
    found, problems = parse_authorized_keys(text, "keys.txt")
    assert found == {k.get_fingerprint("sha256") for k in two_keys}
    assert [p.split(": ", 1)[0] for p in problems] == ["keys.txt:5", "keys.txt:6"]


def test_key_policy_rereads_a_changed_file(tmp_path: Path, two_keys: list[asyncssh.SSHKey]) -> None:
    listed = tmp_path / "authorized_keys"
    listed.write_bytes(two_keys[0].export_public_key())
    policy = KeyPolicy(listed, open_=False)
    assert policy.allows(two_keys[0]) and not policy.allows(two_keys[1])
    assert not policy.guests_allowed
    listed.write_bytes(two_keys[1].export_public_key() + b"\n# now only the second\n")
    assert policy.allows(two_keys[1]) and not policy.allows(two_keys[0])
    listed.unlink()  # a file being replaced: the last good list still holds
    assert policy.allows(two_keys[1])


def test_open_policy_takes_any_key_and_guests(two_keys: list[asyncssh.SSHKey]) -> None:
    policy = KeyPolicy(None, open_=True)
    assert policy.allows(two_keys[0]) and policy.guests_allowed
    assert Identity.for_key(two_keys[0]).learner_id.startswith("SHA256:")


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    now = [100.0]
    limiter = RateLimiter(rate=0.5, burst=3, clock=lambda: now[0])
    assert [limiter.take("10.0.0.1") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("10.0.0.1") == pytest.approx(2.0)
    assert limiter.take("10.0.0.2") == 0.0  # another address has its own bucket
    now[0] += 2.0
    assert limiter.take("10.0.0.1") == 0.0
    assert limiter.take("10.0.0.1") == pytest.approx(2.0)
    now[0] += 60.0  # refills to the burst, no further
    assert [limiter.take("10.0.0.1") for _ in range(4)][-1] == pytest.approx(2.0)


def test_rate_limiter_forgets_refilled_addresses() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=1.0, burst=1, clock=lambda: now[0])
    for n in range(5000):
        limiter.take(f"10.{n // 256}.{n % 256}.1")
        now[0] += 0.01
    assert len(limiter._buckets) < 5000


def test_session_caps_per_identity_and_total() -> None:
    caps = SessionCaps(max_total=3, max_per_identity=1)
    alice, bob = Identity("SHA256:alice"), Identity("SHA256:bob")
    assert caps.acquire(alice) is None
    refusal = caps.acquire(alice)
    assert refusal is not None and refusal.reason == "key-limit"
    assert caps.acquire(bob) is None
    assert caps.acquire(GUEST) is None  # guests count only towards the total
    full = caps.acquire(GUEST)
    assert full is not None and full.reason == "server-full"
    caps.release(alice)
    assert caps.acquire(alice) is None


def test_child_environment_sanitises_what_the_client_sends(tmp_path: Path) -> None:
    learner = Identity("SHA256:x")
    env = child_environment("xterm-direct", {"COLORTERM": "rainbow"}, tmp_path, learner)
    assert env["TERM"] == "xterm-direct" and env["COLORTERM"] == "truecolor"
    env = child_environment("$(reboot)", {"NO_COLOR": "1"}, tmp_path, learner)
    assert env["TERM"] == "xterm-256color" and env["NO_COLOR"] == "1"
    assert "COLORTERM" not in child_environment("xterm-256color", {}, tmp_path, learner)
    guest = child_environment("xterm", {}, tmp_path, GUEST)
    assert guest["TUTOR_GUEST"] == "1" and guest["TUTOR_LEARNER"] == "guest"


def test_small_helpers() -> None:
    assert fit_size(0, 0) == (80, 24)
    assert fit_size(100_000, 3) == (1000, 3)
    assert [format_duration(s) for s in (1, 2.4, 90, 1800, 3600, 4 * 3600, 5400)] == [
        "1 second",
        "2 seconds",
        "2 minutes",
        "30 minutes",
        "1 hour",
        "4 hours",
        "90 minutes",
    ]
    assert exit_status(0) == 0 and exit_status(3) == 3 and exit_status(-9) == 137
    assert loggable("xterm\nsession end learner=x") == "xterm_session_end_learner=x"
    assert loggable("") == "-"


@pytest.mark.parametrize(
    "sent",
    [
        {"NO_COLOR": "\x1b]0;owned\x07", "COLORTERM": "truecolor\x1b[2J"},
        {"NO_COLOR": "1" * 200_000, "COLORTERM": "truecolor" * 20_000},
        {"NO_COLOR": "yes please, no colour at all", "COLORTERM": "24bit "},
    ],
)
def test_client_colour_variables_must_be_short_and_printable(
    sent: dict[str, str], tmp_path: Path
) -> None:
    env = child_environment("xterm-256color", sent, tmp_path, Identity("SHA256:x"))
    assert "NO_COLOR" not in env and "COLORTERM" not in env


def test_client_colour_variables_that_are_kept(tmp_path: Path) -> None:
    sent = {"NO_COLOR": "", "COLORTERM": "24bit"}
    env = child_environment("xterm-256color", sent, tmp_path, Identity("SHA256:x"))
    assert env["NO_COLOR"] == "" and env["COLORTERM"] == "24bit"


def test_session_caps_per_connection_and_address_count_guests() -> None:
    caps = SessionCaps(max_total=10, max_per_identity=5, max_per_connection=2, max_per_address=3)
    assert caps.acquire(GUEST, "conn-1", "10.0.0.1") is None
    assert caps.acquire(GUEST, "conn-1", "10.0.0.1") is None
    refusal = caps.acquire(GUEST, "conn-1", "10.0.0.1")
    assert refusal is not None and refusal.reason == "connection-limit"
    assert caps.acquire(GUEST, "conn-2", "10.0.0.1") is None
    refusal = caps.acquire(Identity("SHA256:a"), "conn-3", "10.0.0.1")
    assert refusal is not None and refusal.reason == "address-limit"
    assert caps.acquire(Identity("SHA256:a"), "conn-4", "10.0.0.2") is None
    caps.release(GUEST, "conn-1", "10.0.0.1")
    assert caps.acquire(GUEST, "conn-1", "10.0.0.1") is None
    assert caps.held_by("conn-1") == 2 and caps.total == 4


def test_connection_caps_make_way_for_a_flooder_first() -> None:
    caps = ConnectionCaps(max_total=3, max_per_address=2)
    assert caps.admit("learner", "10.0.0.9") is None
    assert caps.admit("flood-a", "10.0.0.1") is None
    assert caps.admit("flood-b", "10.0.0.2") is None
    full = caps.admit("x", "10.0.0.3")
    assert full is not None and full.reason == "server-busy"
    # nobody has spoken: the oldest goes first while no address has a strike
    assert caps.make_way(lambda c: c != "flood-b") == "learner"
    assert caps.admit("learner-2", "10.0.0.8") is None
    assert caps.make_way(lambda c: True) == "flood-a"
    assert caps.admit("flood-a2", "10.0.0.1") is None
    # 10.0.0.1 was closed for silence before: its new connection goes before older ones
    assert caps.make_way(lambda c: True) == "flood-a2"
    assert caps.make_way(lambda c: False) is None
    assert caps.admit("y", "10.0.0.2") is None
    refusal = caps.admit("z", "10.0.0.2")
    assert refusal is not None and refusal.reason == "address-connections"
    caps.release("y")
    caps.release("y")  # twice: no harm
    assert caps.admit("z", "10.0.0.2") is None


def test_sessions_get_the_admins_live_training_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TUTOR_LIVE_TRAINING", raising=False)
    assert "TUTOR_LIVE_TRAINING" not in child_environment("xterm", {}, tmp_path, GUEST)
    monkeypatch.setenv("TUTOR_LIVE_TRAINING", "2")
    monkeypatch.setenv("TUTOR_LIVE_SLOTS", str(tmp_path / "slots"))
    env = child_environment("xterm", {"TUTOR_LIVE_TRAINING": "99"}, tmp_path, GUEST)
    assert env["TUTOR_LIVE_TRAINING"] == "2"  # the admin's, never the client's
    assert env["TUTOR_LIVE_SLOTS"] == str(tmp_path / "slots")
