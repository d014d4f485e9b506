"""The suite ends however it is started: a test that stops a tutor by a signal must not wait
for ever because whatever started pytest ignored that signal (`nohup pytest`, a CI wrapper)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HANGUP_TEST = (
    "tests/tui/test_quiz_drafts.py::test_a_tutor_killed_on_the_quiz_keeps_the_drafts[hangup]"
)


def _ignore_hangup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.slow
def test_a_tutor_stopped_by_hangup_ends_under_nohup() -> None:
    pytest_run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", HANGUP_TEST],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_ignore_hangup,
        start_new_session=True,
    )
    try:
        output, _ = pytest_run.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(pytest_run.pid, signal.SIGKILL)  # pytest and the tutor it started
        pytest_run.communicate(timeout=30)
        pytest.fail("the hangup test under an ignored SIGHUP was still running after 240 s")
    assert pytest_run.returncode == 0, output[-3000:]
    assert "1 passed" in output
