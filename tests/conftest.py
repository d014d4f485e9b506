"""Fixtures every test folder may use, and the rules every test's child process follows."""

from __future__ import annotations

import signal

import pytest

from tests.postgres import postgres_server

__all__ = ["postgres_server"]

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
