"""The process tuning (tutor/tuning.py) as the tutor applies it: collection off while
Textual loads, on again however the app ends, Python's own schedule given back."""

from __future__ import annotations

from pathlib import Path

from tests.tui.test_startup import run

CRASH_BEFORE_READY = """
    import gc, json
    from tutor.cli import main
    from tutor.tui.app import TutorApp

    python_schedule = gc.get_threshold()

    def fault(self):
        raise RuntimeError("a fault before the first screen is ready")

    TutorApp.on_ready = fault
    run = TutorApp.run
    TutorApp.run = lambda app: run(app, headless=True, size=(80, 24))
    status = main(["--learner", "ada", "--lang", "en"])
    print(json.dumps({
        "status": status,
        "collecting": gc.isenabled(),
        "schedule_kept": gc.get_threshold() == python_schedule,
    }))
"""


def test_a_crash_before_the_first_screen_leaves_collection_on(tmp_path: Path) -> None:
    """`tutor` turns collection off while Textual loads and the app turns it on once its
    first screen is up: an app that never got there must not leave the process without
    it (a preview or a test going on would grow for ever)."""
    seen = run(CRASH_BEFORE_READY, tmp_path / "cache", tmp_path / "data")
    assert seen["status"] != 0  # it did crash, through the crash path
    assert seen["collecting"] is True
    assert seen["schedule_kept"] is True
