"""Fixtures every test folder may use, and the rules every test's child process follows."""

from __future__ import annotations

import os
import signal

import pytest

from tests.postgres import postgres_server

__all__ = ["postgres_server"]

# OpenBLAS picks its kernels by the CPU it finds (AVX-512 or only AVX2), and they round
# differently in the last bit. Page 10's widget bounds its rounding by its power of ten,
# but the page's prose cites the largest rounding over the fixed seeds as measured (6e-16
# with one kernel, 9e-16 with the other) and the snapshots show it. One kernel for the tests
# and every process they start (set before numpy loads) keeps them the same on any x86 CPU.
os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")

# A signal ignored by whatever started pytest (SIGHUP under `nohup`, SIGINT and SIGQUIT for a
# background job of a script) would stay ignored in every process a test starts, and a test
# that stops a tutor that way would wait for it for ever. Exec resets a *caught* signal to its
# default, so catching these here (and doing nothing, as ignoring did) gives every child the
# default while pytest itself keeps what it was asked for.
for _number in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
    if signal.getsignal(_number) == signal.SIG_IGN:
        signal.signal(_number, lambda _signum, _frame: None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests of `tutor serve` are marked `serve`, and every `serve` or `pty` test is `slow`,
    so that the fast tier (`pytest -m "not slow"`) leaves out every real process."""
    for item in items:
        if "tests/serve/" in item.nodeid:
            item.add_marker(pytest.mark.serve)
        if item.get_closest_marker("serve") or item.get_closest_marker("pty"):
            item.add_marker(pytest.mark.slow)
