"""A bug ends the tutor with an apology and an incident id, never a traceback, and a
failed save is a notification, not an end.

The crashes are real: a fault put into the running tutor (a sitecustomize.py that makes
its first screen raise), a progress file with a broken page, and SQLite's own "database
or disk is full" (its page limit set to the pages already used).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import TextArea

from tests.tui.conftest import LEARNER, LESSON, tutor_on_pty
from tests.tui.test_quiz_summary import summary_page
from tests.waits import settle, until
from tutor.crash import EXIT_CRASH
from tutor.progress.sqlite import DB_FILENAME, SqliteStore
from tutor.progress.store import StoreLimitError
from tutor.tui.app import TutorApp
from tutor.tui.context import TutorContext
from tutor.tui.screens.saving import SAVE_DELAY
from tutor.tui.widgets.summary import SummaryEditor
from tutor.words.refusals import why_not_saved

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

APOLOGY = re.compile(
    r"Sorry: the tutor stopped because of a fault in it \(incident ([0-9a-f]{8})\)"
)


# Python reads a sitecustomize.py on its path as it starts: this one makes the app's first
# screen raise, as a bug in it would
FAULT = """
import tutor.tui.app
import tutor.tui.review


def _fault(self):
    raise RuntimeError("a fault the test put in the first screen")


tutor.tui.app.TutorApp.on_ready = _fault
tutor.tui.review.ReviewApp.on_ready = _fault
"""


def run_on_pty(
    data_dir: Path,
    cols: int,
    rows: int,
    keys: bytes = b"",
    command: tuple[str, ...] = (),
    fault: str = "",
) -> tuple[int, str]:
    """`tutor --lang en [COMMAND]` on a terminal of this size: (exit status, everything it
    printed). `keys` are typed once it has drawn, and q after them if it is still running.
    `fault`: a sitecustomize.py that puts a fault in the tutor (FAULT: the first screen
    raises)."""
    args = ("--lang", "en", "--learner", LEARNER, *command)
    python_path = None
    if fault:
        python_path = data_dir.parent / f"{data_dir.name}-fault"
        python_path.mkdir()
        (python_path / "sitecustomize.py").write_text(fault)
    leader, child = tutor_on_pty(data_dir, cols, rows, *args, python_path=python_path)
    output = bytearray()
    typed = False
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the tutor closed the terminal
                break
            if not data:
                break
            output += data
            if not typed and b"\x1b[?1049h" in output and time.monotonic() < deadline:
                time.sleep(2)  # drawn, or about to be
                os.write(leader, keys + b"q")
                typed = True
        status = child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
        os.close(leader)
    text = re.sub(
        rb"\x1b\[[0-9;?<>=]*[A-Za-z~$]|\x1b[\]P][^\x07\x1b]*(\x07|\x1b\\\\)?", b"", output
    )
    return status, text.decode(errors="replace")


def assert_apology_and_crash_file(status: int, printed: str, data_dir: Path, error: str) -> None:
    assert status == EXIT_CRASH
    assert "Traceback" not in printed and 'File "' not in printed
    found = APOLOGY.search(printed)
    assert found, printed[-2000:]
    (crash_file,) = (data_dir / "crashes").iterdir()
    assert found[1] in crash_file.name and str(crash_file) in printed.replace("\r\n", "")
    report = crash_file.read_text()
    assert report.startswith(f"incident {found[1]}\nTraceback")
    assert error in report


@pytest.mark.pty
def test_a_fault_ends_with_an_apology_and_a_crash_file(tmp_path: Path) -> None:
    status, printed = run_on_pty(tmp_path, 80, 24, fault=FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "a fault the test put")


@pytest.mark.pty
def test_a_preview_that_breaks_ends_with_the_same_apology(tmp_path: Path) -> None:
    """`tutor preview` ends on a bug the way `tutor` does, not with a traceback."""
    status, printed = run_on_pty(tmp_path, 80, 24, command=("preview",), fault=FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "a fault the test put")


@pytest.mark.pty
def test_a_review_that_breaks_ends_with_the_same_apology(tmp_path: Path) -> None:
    """`tutor review` ends on a bug the way `tutor` does: the teacher sees no traceback."""
    SqliteStore("ada", tmp_path).record_attempt("embedding", "explain-embedding", "行号", False)
    status, printed = run_on_pty(tmp_path, 80, 24, command=("review",), fault=FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "a fault the test put")


# a fault in the thread that reads the terminal: the key Z makes its parser raise
INPUT_THREAD_FAULT = """
from textual._xterm_parser import XTermParser

_feed = XTermParser.feed


def _fault(self, data):
    if "Z" in data:
        raise RuntimeError("a fault the test put in the input thread")
    return _feed(self, data)


XTermParser.feed = _fault
"""

# a fault in a thread of the tutor's own (as the live training run's reader is)
BARE_THREAD_FAULT = """
import threading

import tutor.tui.app


def _fault(self):
    def fail():
        raise RuntimeError("a fault the test put in a thread")

    threading.Thread(target=fail).start()


tutor.tui.app.TutorApp.on_ready = _fault
"""


# a fault in a callback the app's loop runs (as asyncio reports a task's fault no one read)
LOOP_FAULT = """
import asyncio

import tutor.tui.app


def _fault(self):
    def fail():
        raise RuntimeError("a fault the test put in a loop callback")

    asyncio.get_running_loop().call_soon(fail)


tutor.tui.app.TutorApp.on_ready = _fault
"""


# a fault in a widget's thread worker (what the neighbours, the heatmap… compute in)
WORKER_FAULT = """
import tutor.tui.widgets.asking

_start = tutor.tui.widgets.asking.Asking._start_worker


def _in_the_worker():
    raise RuntimeError("a fault the test put in a worker")


def _fault(self, topic, state, question):
    question.compute = _in_the_worker
    return _start(self, topic, state, question)


tutor.tui.widgets.asking.Asking._start_worker = _fault
"""


@pytest.mark.pty
def test_a_fault_in_a_worker_ends_with_the_same_apology_and_its_traceback(
    tmp_path: Path,
) -> None:
    """Textual hands the app a worker's fault wrapped in a WorkerFailed it never raised:
    the report held only that one line, not where the fault was."""
    page = ("lesson", "embedding", "--page", "8")  # its neighbours ask in a worker
    status, printed = run_on_pty(tmp_path, 100, 40, command=page, fault=WORKER_FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "a fault the test put in a worker")
    (crash_file,) = (tmp_path / "crashes").iterdir()
    assert ", in _in_the_worker\n" in crash_file.read_text()


@pytest.mark.pty
def test_a_fault_in_the_input_thread_ends_with_the_same_apology(tmp_path: Path) -> None:
    """Textual's own input thread showed a fault as a traceback (App.panic) and ended with
    status 0, as after q; the tutor's ends it as every other bug."""
    status, printed = run_on_pty(tmp_path, 80, 24, keys=b"Z", fault=INPUT_THREAD_FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "put in the input thread")


@pytest.mark.pty
def test_a_fault_in_another_thread_ends_with_the_same_apology(tmp_path: Path) -> None:
    """Python printed the traceback of a thread's fault on the terminal and the app went on."""
    status, printed = run_on_pty(tmp_path, 80, 24, fault=BARE_THREAD_FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "a fault the test put in a thread")


@pytest.mark.pty
def test_a_fault_the_loop_reports_ends_with_the_same_apology(tmp_path: Path) -> None:
    """asyncio printed a callback's fault (or a task's no one read, as a worker's that failed
    again in Textual's own handler past a served session's memory ceiling) as a traceback
    over the learner's screen, and the app went on."""
    status, printed = run_on_pty(tmp_path, 80, 24, fault=LOOP_FAULT)
    assert_apology_and_crash_file(status, printed, tmp_path, "put in a loop callback")


@pytest.mark.pty
@pytest.mark.parametrize("size", [(1, 1), (5, 3)], ids=["1x1", "5x3"])
def test_a_tiny_terminal_at_start_is_no_crash(tmp_path: Path, size: tuple[int, int]) -> None:
    """Too small a window asks to be enlarged (a real terminal: the app sees its size
    before any screen exists, which a headless test never shows); q still quits."""
    status, printed = run_on_pty(tmp_path, *size, command=("lesson", "embedding", "--page", "2"))
    assert status == 0, printed[-2000:]
    assert "Traceback" not in printed and not (tmp_path / "crashes").exists()


@pytest.mark.pty
def test_a_progress_file_with_a_broken_page_ends_with_an_apology(tmp_path: Path) -> None:
    store = SqliteStore(LEARNER, tmp_path)
    for page in range(1, 200):  # enough rows for the table to span pages of its own
        store.visit_page(f"lesson-{page}", page)
    store.close()
    path = tmp_path / DB_FILENAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (root,) = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'positions'").fetchone()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with path.open("r+b") as file:  # the table's root page becomes garbage
        file.seek((root - 1) * page_size)
        file.write(b"\xff" * page_size)
    status, printed = run_on_pty(tmp_path, 100, 30)
    assert_apology_and_crash_file(status, printed, tmp_path, "malformed")


async def test_a_full_disk_mid_session_is_a_notification(
    make_app: Callable[..., TutorApp], data_dir: Path
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page(), lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        section = editor.summary.sections[0].id
        area = editor.query_one(f"#section-{section}", TextArea)
        area.focus()
        await pilot.press(*"kept")
        await until(
            pilot, lambda: app.ctx.store.summary(LESSON).get(section) == "kept", every=SAVE_DELAY
        )
        db = app.ctx.store._db  # the disk is full: no page beyond those in use, and those
        (pages,) = db.execute("PRAGMA page_count").fetchone()  # full too (a filler table)
        db.execute("CREATE TABLE filler (x BLOB)")
        db.execute(f"PRAGMA max_page_count = {pages + 1}")
        with contextlib.suppress(sqlite3.OperationalError):
            while True:
                db.execute("INSERT INTO filler VALUES (zeroblob(500))")
        area.text = "满" * 5000  # 2,000 characters are kept: 6,000 bytes, more than a page
        failed = "Your summary could not be saved: the disk is full; it is still on screen"
        await until(
            pilot,
            lambda: any(failed in str(n.message) for n in app._notifications),
            every=SAVE_DELAY,
        )
        # the app goes on: the next page opens
        await pilot.press("escape", "n")
        await settle(pilot)
        assert app.screen.query(SummaryEditor) == [] or app.is_running
        assert app.return_code is None and app.crashed is None
    saved = sqlite3.connect(data_dir / DB_FILENAME).execute(
        "SELECT text FROM summaries WHERE learner = ? AND section = ?", (LEARNER, section)
    )
    assert saved.fetchall() == [("kept",)]


REFUSED = {
    "zh": "这个答案存下来有 16,002 个字符，最多只能存 16,000 个",
    "en": "this answer is 16,002 characters long when stored; the most kept is 16,000",
}


@pytest.mark.parametrize("lang", REFUSED)
def test_a_refused_answer_is_said_in_the_learners_language(tmp_path: Path, lang: str) -> None:
    """What the page tells a learner whose answer the store refused (screens/saving.py)."""
    store = SqliteStore(LEARNER, tmp_path)
    store.record_attempt(LESSON, "q1", "x" * 16_000, False)  # cut, and stored
    with pytest.raises(StoreLimitError) as refused:
        store.record_attempt(LESSON, "q1", ["x" * 15_998], False)
    assert why_not_saved(TutorContext(lang, store), refused.value) == REFUSED[lang]
    assert len(store.attempts(LESSON, "q1")) == 1


@pytest.mark.pty
def test_a_terminal_that_goes_away_ends_the_tutor(tmp_path: Path) -> None:
    """The terminal's other end closed without a hangup signal reaching the tutor (it is not
    the terminal's controlling process, as under some multiplexers and test harnesses):
    its input ends. The tutor went on reading that end in a busy loop (a core each, for
    ever, nine of them on a shared machine); it now ends, as after `q`."""
    tmp_path.mkdir(exist_ok=True)
    leader, child = tutor_on_pty(tmp_path, 80, 24, "--learner", LEARNER, "lesson", LESSON)
    output = b""
    try:
        while b"\x1b[?1049h" not in output:
            output += os.read(leader, 65536)
    finally:
        os.close(leader)
    try:
        status = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
    assert status == 0
    assert not (tmp_path / "crashes").exists()
