"""Startup: process start to the first interactive screen, `tutor` against a bare Textual app.

Each run starts a fresh process on its own 80x24 pseudo-terminal, exactly as a learner's
shell would (`python -m tutor`; `python bench/bare_app.py`), and draws what it writes on
a pyte screen. The tutor is timed twice over: a learner's first start (a fresh
TUTOR_DATA_DIR each run, so the progress file is created) and a returning learner's
(one data dir kept between runs); the target is on the first start. The clock stops at
the read of the last byte of the first complete screen: for the tutor, the home screen's
lesson title, its "no progress yet" line and the key line on the bottom row; for the
bare app, its Static. All bytes waiting on the pty are read before pyte draws any (pyte
is slow, and its cost grows with the frame: it is the benchmark's, not the app's). Then
ctrl+q quits, and the time to exit is recorded too. Nothing in the product is patched or
subclassed. The apps take turns in rotating order, so drift in the machine's load hits
all alike."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pyte
from _common import REPO, emit, machine, parse_args, screen_lines, tutor_root

COLS, ROWS = 80, 24
TIMEOUT_S = 60.0
QUIT = b"\x11"  # ctrl+q: Textual's quit key in both apps
PTY_CHUNK = 4095  # a pty read this long means more of the frame is still coming
DRAIN_WAIT_S = 0.005  # after a full read, how long to wait for the rest of the frame


@dataclass(frozen=True, slots=True)
class Launch:
    name: str
    argv: list[str]
    markers: tuple[str, ...]  # all on screen = the first interactive screen is drawn
    bottom: tuple[str, ...] = ()  # ... and these on the last row
    data_dir: str | None = None  # kept between runs; None: a fresh one each run


@dataclass(frozen=True, slots=True)
class Run:
    first_screen_s: float
    exit_s: float


def launches(returning_data_dir: str) -> list[Launch]:
    """The apps and the text that proves each one's first screen is complete: the bare
    app, the tutor's first start (a new progress file each run) and a returning learner's
    start (the progress file there already)."""
    from bare_app import TEXT

    from tutor.content import load_lessons
    from tutor.core.paths import content_dir
    from tutor.words.i18n import t

    titles = tuple(lesson.card.title for lesson in load_lessons(content_dir()).lessons)
    tutor = Launch(
        "tutor",
        [sys.executable, "-m", "tutor"],
        (*titles, t("home.nothing", "zh")),
        (t("key.quit", "zh"), t("key.palette", "zh")),
    )
    return [
        Launch("bare", [sys.executable, str(REPO / "bench" / "bare_app.py")], (TEXT,)),
        tutor,
        replace(tutor, name="tutor_returning", data_dir=returning_data_dir),
    ]


def _take_terminal() -> None:
    # runs in the child after setsid: the pty on fd 0 becomes its controlling terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def run_once(launch: Launch) -> Run:
    """Start the app on a fresh pty, time its first complete screen, quit it, time the exit."""
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    master, slave = os.openpty()
    termios.tcsetwinsize(master, (ROWS, COLS))
    with contextlib.ExitStack() as cleanup:
        data_dir = launch.data_dir or cleanup.enter_context(
            tempfile.TemporaryDirectory(prefix="tutor-bench-")
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "TUTOR_"))}
        env.update(TERM="xterm-256color", TUTOR_DATA_DIR=data_dir, LANG="C.UTF-8")
        env.pop("NO_COLOR", None)
        start = time.perf_counter()
        proc = subprocess.Popen(
            launch.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=tutor_root(),
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        first_screen = exited = None
        try:
            while exited is None:
                if time.perf_counter() - start > TIMEOUT_S:
                    raise TimeoutError(f"{launch.name}: no first screen within {TIMEOUT_S} s")
                ready, _, _ = select.select([master], [], [], 0.05)
                data = b""
                if ready:
                    data, now = _drain(master)
                    stream.feed(data)
                    if first_screen is None and _shows(screen, launch):
                        first_screen = now - start
                        os.write(master, QUIT)
                if (ready and not data) or proc.poll() is not None:
                    proc.wait(TIMEOUT_S)
                    exited = time.perf_counter() - start
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(master)
    if first_screen is None:
        raise RuntimeError(f"{launch.name} exited (status {proc.returncode}) before its screen")
    return Run(first_screen, exited)


def _drain(master: int) -> tuple[bytes, float]:
    """Everything the app has written so far, and when its last byte was read.

    A frame larger than the pty's buffer arrives in several reads; they are all taken
    before any is drawn, so the time is when the app's bytes were there, not when pyte
    (slow, pure Python) finished drawing them: that cost grows with the frame and is the
    benchmark's, not the app's.
    """
    chunks: list[bytes] = []
    now = time.perf_counter()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            return b"".join(chunks), now
        chunks.append(chunk)
        now = time.perf_counter()
        # a full read may have split a frame the app is still writing: wait a moment
        wait = DRAIN_WAIT_S if len(chunk) >= PTY_CHUNK else 0
        more, _, _ = select.select([master], [], [], wait)
        if not more:
            return b"".join(chunks), now


def _shows(screen: pyte.Screen, launch: Launch) -> bool:
    # pyte keeps a wide character's second cell as "": joining the rows gives plain text
    lines = screen_lines(screen)
    text = "\n".join(lines)
    bottom = lines[-1]
    return all(m in text for m in launch.markers) and all(m in bottom for m in launch.bottom)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(__doc__, argv)
    runs_each = 2 if args.quick else 12
    info = machine()
    with tempfile.TemporaryDirectory(prefix="tutor-bench-returning-") as returning:
        apps = launches(returning)
        results: dict[str, list[Run]] = {launch.name: [] for launch in apps}
        for launch in apps:  # untimed: warms the OS file cache, creates the returning file
            run_once(launch)
        for round_ in range(runs_each):
            shift = round_ % len(apps)  # each app goes first, second and third in turn
            for launch in apps[shift:] + apps[:shift]:
                results[launch.name].append(run_once(launch))
    medians = {
        name: {
            "first_screen_median_s": round(statistics.median(r.first_screen_s for r in runs), 3),
            "exit_median_s": round(statistics.median(r.exit_s for r in runs), 3),
            "first_screen_s": [round(r.first_screen_s, 3) for r in runs],
        }
        for name, runs in results.items()
    }
    bare_s = medians["bare"]["first_screen_median_s"]
    ratio = medians["tutor"]["first_screen_median_s"] / bare_s
    returning_ratio = medians["tutor_returning"]["first_screen_median_s"] / bare_s
    emit(
        {
            "benchmark": "startup",
            "machine": info,
            "quick": args.quick,
            "method": "fresh process on an 80x24 pty until the first screen is complete "
            "(pyte), the apps in rotating order; then ctrl+q",
            "runs_each": runs_each,
            "bare": medians["bare"],
            "tutor": medians["tutor"],
            "tutor_returning": medians["tutor_returning"],
            "ratio_first_screen": round(ratio, 3),
            "ratio_first_screen_returning": round(returning_ratio, 3),
            "target_ratio": 1.25,
            "target_met": ratio <= 1.25,
        }
    )


if __name__ == "__main__":
    main()
