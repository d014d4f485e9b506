"""The garbage collector's schedule as tutor/tuning.py sets it for the app, and given back;
the test gives the process back the collector it found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tutor import tuning


@pytest.fixture
def collector_kept() -> Iterator[None]:
    enabled, threshold = gc.isenabled(), gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


@pytest.mark.usefixtures("collector_kept")
def test_the_apps_schedule_and_back() -> None:
    young, middle, full = tuning.PYTHON_GC_THRESHOLD
    tuning.pause_collection()
    assert gc.isenabled() is False
    tuning.collect_from_now()
    assert gc.isenabled() is True
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (young, middle, full * tuning.FULL_COLLECTIONS_DEFERRED)
    tuning.pause_collection()  # a crash with it paused
    tuning.restore_collection()
    assert (gc.isenabled(), gc.get_threshold()) == (True, tuning.PYTHON_GC_THRESHOLD)
