"""Shared helpers: a TutorApp on the shipped lesson with its own progress dir, and waiting.

Animations and cursor blink are off (animate=False) so that screens are deterministic.
Every test has its own content cache (TUTOR_CACHE_DIR), so none reads another's: a copy of
one holding the shipped lessons, or an empty one for a test marked `cold_cache`.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual._compositor import Compositor

from tests.waits import POLL_SECONDS
from tutor.content import Lesson, load_lessons
from tutor.content.cache import LessonContent
from tutor.core.paths import assets_dir, content_dir
from tutor.core.runfacts import KEPT, runtime_facts
from tutor.tui.app import TutorApp

LESSON = "embedding"
LEARNER = "tester"
# a hang guard for waiting on another worker making the warm cache (30 s under load 9)
WARM_CACHE_SECONDS = 240.0


def shipped_lesson(lesson_id: str = LESSON) -> Lesson:
    lesson = load_lessons(content_dir()).lesson(lesson_id)
    assert lesson is not None
    return lesson


def page_with(widget: str, nth: int = 0, lesson_id: str = LESSON) -> int:
    """Number of the nth page of a shipped lesson holding a `widget` block."""
    numbers = [
        page.number
        for page in shipped_lesson(lesson_id).pages
        for block in page.body_blocks
        if getattr(block, "widget", None) == widget
    ]
    return numbers[nth]


@pytest.fixture(scope="session")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache dir holding what the tutor keeps about the shipped lessons and model, made
    once per run and shared by its pytest-xdist workers (the first makes it, under a lock,
    the others wait for it): the lessons' full load and the run-time facts (measured in a
    child process that tokenizes the corpus). Tests only copy it."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, or ours
    path = root / "warm-cache"
    with open(root / "warm-cache.lock", "w") as lock:
        deadline = time.monotonic() + WARM_CACHE_SECONDS
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, "another worker kept making the cache"
                time.sleep(POLL_SECONDS)
        if not (path / "complete").exists():
            shutil.rmtree(path, ignore_errors=True)  # a worker that failed half way
            path.mkdir()
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("TUTOR_CACHE_DIR", str(path))
                LessonContent(content_dir(), path).lesson_set  # noqa: B018 (the load keeps it)
                runtime_facts(assets_dir())
            assert list(path.glob("lessons-*.json")), "the full load kept nothing"
            assert (path / KEPT).is_file(), "the run-time facts were not kept"
            (path / "complete").touch()
    return path


@pytest.fixture(autouse=True)
def cache_dir(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """The test's own cache dir: a copy of `warm_cache` (what it holds costs seconds of CPU
    to make, paid once per run, not once per test), or empty for a test marked
    `cold_cache` (one about the cache itself or a first start). It is not in `tmp_path`,
    which holds only what the test makes."""
    path = tmp_path_factory.mktemp("cache") / "cache"
    if request.node.get_closest_marker("cold_cache") is None:
        warm = request.getfixturevalue("warm_cache")
        shutil.copytree(warm, path, ignore=shutil.ignore_patterns("complete"))
    monkeypatch.setenv("TUTOR_CACHE_DIR", str(path))
    return path


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def app_for(data_dir: Path, **options: object) -> TutorApp:
    """The shipped lesson in Chinese for the test learner, without animation."""
    settings: dict[str, object] = {
        "content_root": content_dir(),
        "lang": "zh",
        "learner": LEARNER,
        "data_dir": data_dir,
        "animate": False,
    }
    settings.update(options)
    return TutorApp(**settings)  # type: ignore[arg-type]


@pytest.fixture
def make_app(data_dir: Path) -> Callable[..., TutorApp]:
    return functools.partial(app_for, data_dir)


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every full layout of a screen, as it happens (the screen laid out, once each)."""
    done: list[object] = []
    own = Compositor.reflow

    def counted(self: Compositor, parent: object, size: object) -> object:
        done.append(parent)
        return own(self, parent, size)

    monkeypatch.setattr(Compositor, "reflow", counted)
    return done


def tutor_on_pty(
    data_dir: Path, columns: int, rows: int, *args: str, python_path: Path | None = None
) -> tuple[int, subprocess.Popen[bytes]]:
    """The real `tutor ARGS` on a new pseudo-terminal of this size, with its own progress
    and home in `data_dir`: (the terminal's other end, the process). `python_path`: a
    folder Python reads first (a test's sitecustomize.py)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "TUTOR_DATA_DIR": str(data_dir),
        "TUTOR_CACHE_DIR": os.environ["TUTOR_CACHE_DIR"],
        **({"PYTHONPATH": str(python_path)} if python_path else {}),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "tutor", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
    )
    os.close(follower)
    return leader, child
