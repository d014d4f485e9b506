"""The garbage collector's schedule as tutor/tuning.py sets it for the app, and given back.

It runs in a child Python: freezing and unfreezing the test process's own heap (every
object the suite has made so far) cost a 55 s collection when the fast tier ran it late.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.waits import WAIT_SECONDS
from tutor import tuning

SCHEDULE = """
import gc, json
from tutor import tuning
seen = {"threshold": tuning.PYTHON_GC_THRESHOLD, "deferred": tuning.FULL_COLLECTIONS_DEFERRED}
tuning.pause_collection()
seen["paused"] = gc.isenabled()
tuning.collect_from_now()
seen["collecting"] = (gc.isenabled(), gc.get_freeze_count() > 0, gc.get_threshold())
tuning.pause_collection()  # a crash with it paused
tuning.restore_collection()
seen["restored"] = (gc.isenabled(), gc.get_threshold())
print(json.dumps(seen))
"""


def test_the_apps_schedule_and_back() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCHEDULE],
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
        check=True,
    )
    seen = json.loads(done.stdout)
    young, middle, full = seen["threshold"]
    assert seen["paused"] is False
    assert seen["collecting"] == [True, True, [young, middle, full * seen["deferred"]]]
    assert seen["restored"] == [True, seen["threshold"]]


def test_a_process_that_has_ssl_keeps_it() -> None:
    """The served template and a test run load asyncio (and so ssl) before any app: they
    are left whole, not left with half of OpenSSL marked absent."""
    import ssl

    assert tuning.without_openssl() is False
    assert sys.modules["ssl"] is ssl
    assert all(sys.modules.get(name) is not None for name in ("ssl", "_ssl"))


def test_a_process_whose_pydantic_has_looked_for_plugins_keeps_its_loader() -> None:
    """A test run (and the served template) built models before any app: pydantic's own
    loader stays, and its plugins with it."""
    import pydantic.plugin._loader as loader

    assert tuning.without_plugin_discovery() is False
    assert sys.modules["pydantic.plugin._loader"] is loader
