"""The real tutor on a terminal, fed a few thousand escape sequences no terminal would send
(seeded, so a failure can be replayed): broken CSI, SS3, OSC and DCS strings, kitty key
reports, mouse reports, size reports, bracketed pastes left open and bytes that are not
UTF-8. It reads on through all of them: no traceback, no crash report, and `q` after them
quits it normally.

The sequences stay clear of the keys that would end or steer the session for real (`q`, a
click on the key line, Tab into a field where `q` is typed): Textual hands a sequence it
does not know to the app as keys, so their characters are digits, punctuation and capital
letters.
"""

from __future__ import annotations

import os
import random
import select
import threading
import time
from pathlib import Path

import pytest

from tests.tui.conftest import LEARNER, tutor_on_pty
from tests.waits import block_until

SEED = 22
SEQUENCES = 2000
# printable characters no screen binds (bindings are lower-case letters, ?, space, Tab)
SAFE = "0123456789;:<=>!\"#$%&'()*+,-./@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`{|}~"
# parameters of every size: none, zero, past Unicode, past 64 bits, negative
NUMBERS = ("", "0", "1", "65", "1114112", "99999999999999999999", "-1", "4294967296")
ESC = "\x1b"


def _number(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(NUMBERS)
    return str(rng.randrange(0, 10 ** rng.randrange(1, 25)))


def _params(rng: random.Random) -> str:
    return "".join(_number(rng) + rng.choice(";;;:") for _ in range(rng.randrange(0, 5)))


def _text(rng: random.Random, longest: int = 12) -> str:
    return "".join(rng.choice(SAFE) for _ in range(rng.randrange(0, longest)))


def _csi(rng: random.Random) -> str:
    private = rng.choice(["", "", "<", "=", ">", "?"])
    middle = rng.choice(["", "", "", " ", "$", "!", '"'])
    final = rng.choice("@ABCDEFGHIJKLMNOPQRSTUVWXYZ`acdefgijklmuyz{|}~")
    return f"{ESC}[{private}{_params(rng)}{middle}{final}"


def _kitty(rng: random.Random) -> str:
    code = rng.choice([_number(rng), "57441", "57399", "1114111", "55296", "13", "27"])
    fields = [code, f"{_number(rng)}:{_number(rng)}", ":".join(_number(rng) for _ in range(3))]
    return f"{ESC}[{';'.join(fields[: rng.randrange(1, 4)])}{rng.choice('u~ABCDEFHPQRS')}"


def _mouse(rng: random.Random) -> str:
    """Moves, scrolls and releases anywhere, and presses off the screen: never a click on
    something the learner could click."""
    if rng.random() < 0.3:  # X10: three raw characters, any of them out of range
        return f"{ESC}[M" + "".join(
            chr(rng.choice([32 + 35, 96, 97, 0, 255, 0x10FFFF])) for _ in "xyz"
        )
    kind = rng.choice(["35", "64", "65", "66", "67", "0", "2"])
    x, y = _number(rng), _number(rng)
    if kind in ("0", "2"):
        x, y = rng.choice([("0", "0"), ("-5", "3"), ("100000", "7"), ("3", "99999999999")])
    return f"{ESC}[<{kind};{x};{y}{rng.choice('Mm')}"


def _size(rng: random.Random) -> str:
    return f"{ESC}[48;{_number(rng)};{_number(rng)};{_number(rng)};{_number(rng)}t"


def _string(rng: random.Random) -> str:
    """OSC and DCS strings, ended by BEL, by ST or not at all."""
    opener = rng.choice(["]", "P", "_", "^", "X"])
    return f"{ESC}{opener}{_text(rng, 24)}{rng.choice([chr(7), ESC + chr(92), ''])}"


def _paste(rng: random.Random) -> str:
    end = rng.choice([f"{ESC}[201~", "", f"{ESC}[201"])
    return f"{ESC}[200~{_text(rng, 60)}{end}"


def _other(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{ESC}O{rng.choice('ABCDHFPQRS@~ ')}",  # SS3
            f"{ESC}[?{_number(rng)};{_number(rng)}$y",  # a mode report (2048: in-band sizes)
            f"{ESC}[?2048;{rng.choice('0123')}$y",
            f"{ESC}[{_number(rng)};{_number(rng)}R",  # a cursor position report
            f"{ESC}[I",
            f"{ESC}[O",
            ESC * rng.randrange(1, 4),
        ]
    )


KINDS = (_csi, _kitty, _mouse, _size, _string, _paste, _other)


def hostile_input(seed: int, count: int) -> bytes:
    """`count` sequences, some cut short, with stray non-UTF-8 bytes between them."""
    rng = random.Random(seed)
    out = bytearray()
    for _ in range(count):
        sequence = rng.choice(KINDS)(rng)
        if rng.random() < 0.1:
            sequence = sequence[: rng.randrange(1, len(sequence) + 1)]
        out += sequence.encode("utf-8", "surrogatepass")
        if rng.random() < 0.05:
            out += bytes(rng.choice([0x80, 0xBF, 0xC0, 0xFE, 0xFF, 0xED]) for _ in range(3))
    # a paste left open would take the q as text
    return bytes(out) + f"{ESC}[201~".encode()


@pytest.mark.pty
def test_the_tutor_reads_on_through_thousands_of_malformed_sequences(tmp_path: Path) -> None:
    stream = hostile_input(SEED, SEQUENCES)
    leader, child = tutor_on_pty(tmp_path, 80, 24, "--lang", "en", "--learner", LEARNER)
    output = bytearray()
    reader = threading.Thread(target=_read_into, args=(leader, output), daemon=True)
    reader.start()
    try:
        block_until(lambda: b"\x1b[?1049h" in output, "the first frame", process=child)
        time.sleep(1)  # the first screen drawn
        _write_all(leader, stream, child)
        _wait_for_quiet(output)  # read to the end: an escape now is a key of its own
        os.write(leader, b"\x1b")  # closes what the sequences opened (the help)
        _wait_for_quiet(output)
        os.write(leader, b"q")
        status = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
        reader.join(timeout=10)
    printed = output.decode(errors="replace")
    crashes = list((tmp_path / "crashes").glob("*")) if (tmp_path / "crashes").exists() else []
    assert not crashes, crashes[0].read_text()
    assert status == 0, printed[-3000:]
    assert "Traceback" not in printed


def test_the_fuzzing_is_the_same_every_run() -> None:
    first = hostile_input(SEED, SEQUENCES)
    assert first == hostile_input(SEED, SEQUENCES) != hostile_input(SEED + 1, SEQUENCES)
    assert 20_000 < len(first) < 100_000
    assert b"q" not in first and b"\t" not in first


def _write_all(leader: int, data: bytes, child) -> None:  # type: ignore[no-untyped-def]
    """Write as fast as the tutor reads (the terminal holds a few KB), for at most a minute."""
    deadline = time.monotonic() + 60
    while data:
        assert child.poll() is None, f"the tutor ended: {child.returncode}"
        assert time.monotonic() < deadline, f"the tutor stopped reading; {len(data)} bytes left"
        _, ready, _ = select.select([], [leader], [], 0.1)
        if ready:
            data = data[os.write(leader, data[:512]) :]


def _read_into(leader: int, output: bytearray) -> None:
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            return
        if not data:
            return
        output += data


def _wait_for_quiet(output: bytearray) -> None:
    """Until the tutor has drawn nothing for half a second (at most a minute)."""
    deadline = time.monotonic() + 60
    seen = -1
    while len(output) != seen and time.monotonic() < deadline:
        seen = len(output)
        time.sleep(0.5)


@pytest.mark.pty
def test_a_character_split_across_reads_is_not_the_end_of_the_input(tmp_path: Path) -> None:
    """A read that holds only the first byte of a character (a slow link splits 中 between
    two packets) decodes to nothing yet: that is not a terminal that went away."""
    leader, child = tutor_on_pty(tmp_path, 80, 24, "--lang", "en", "--learner", LEARNER)
    output = bytearray()
    reader = threading.Thread(target=_read_into, args=(leader, output), daemon=True)
    reader.start()
    try:
        block_until(lambda: b"\x1b[?1049h" in output, "the first frame", process=child)
        time.sleep(1)
        os.write(leader, "中".encode()[:1])
        time.sleep(1)  # read alone
        assert child.poll() is None, "the tutor ended on half a character"
        os.write(leader, "中".encode()[1:] + b"q")
        status = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
        reader.join(timeout=10)
    assert status == 0
