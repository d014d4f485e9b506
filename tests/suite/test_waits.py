"""The test suite's waits (tests/waits.py) end: a condition that never holds fails, naming
what was waited for, and a process that ended fails the wait at once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.waits import block_until, wait_until


def test_a_wait_that_never_holds_fails_naming_it() -> None:
    with pytest.raises(AssertionError, match="waited 0 s for the thing"):
        block_until(lambda: False, "the thing", timeout=0.1)


async def test_a_coroutines_wait_fails_the_same_way() -> None:
    with pytest.raises(AssertionError, match="for the state: 3"):
        await wait_until(lambda: False, lambda: "the state: 3", timeout=0.1)


def test_a_wait_on_a_process_that_ended_fails_at_once() -> None:
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(4)"])
    process.wait(timeout=60)
    with pytest.raises(AssertionError, match=r"the process ended \(4\): its window"):
        block_until(lambda: False, "its window", process=process)
