"""Where a crash's details went, said in the learner's language even when they could not
be saved: the reason in their words, not the system's English."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from textual.worker import WorkerFailed

from tutor.crash import EXIT_CRASH, MEMORY_VARIABLE, record, report_crash


@pytest.mark.parametrize(
    ("lang", "reason"),
    [("zh", "不是文件夹"), ("en", "is not a folder")],
)
def test_details_that_cannot_be_saved_say_why_in_the_learners_language(
    tmp_path: Path, lang: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TUTOR_CRASH_FD", raising=False)
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    try:
        raise RuntimeError("a bug")
    except RuntimeError as exc:
        incident = record(exc, blocker, lang)
    assert reason in incident.where
    if lang == "zh":
        assert re.search(r"[A-Za-z]{3,}", incident.where.replace(str(blocker), "")) is None


OUT_OF_MEMORY = {
    "zh": "这次会话用到了服务器给每个会话的内存上限（1,024 MB），已经停止",
    "en": "This session reached the memory limit the server gives each session (1,024 MB)",
}


@pytest.mark.parametrize("lang", OUT_OF_MEMORY)
def test_a_session_out_of_memory_is_told_so_in_its_language(
    tmp_path: Path,
    lang: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A served session past its ceiling (tutor.serve.child) hears why it ended, not that
    the tutor has a fault; a failed worker wraps the MemoryError, and that counts too."""
    monkeypatch.delenv("TUTOR_CRASH_FD", raising=False)
    monkeypatch.setenv(MEMORY_VARIABLE, "1024")
    try:
        try:
            raise MemoryError
        except MemoryError as exc:
            raise WorkerFailed(exc) from exc
    except WorkerFailed as failed:
        assert report_crash(failed, tmp_path, lang) == EXIT_CRASH
    said = capsys.readouterr().err
    assert OUT_OF_MEMORY[lang] in said
    monkeypatch.delenv(MEMORY_VARIABLE)  # a local tutor has no ceiling: the apology
    report_crash(MemoryError(), tmp_path, lang)
    assert OUT_OF_MEMORY[lang] not in capsys.readouterr().err


def test_the_crash_report_of_a_served_session_has_room_past_its_ceiling(tmp_path: Path) -> None:
    """The ceiling was met: the report and the apology get the memory back that the
    session's soft limit took, so that they can be written at all."""
    import subprocess
    import sys

    script = (
        "import resource, os\n"
        "from pathlib import Path\n"
        "from tutor.crash import report_crash\n"
        "_, hard = resource.getrlimit(resource.RLIMIT_DATA)\n"
        "resource.setrlimit(resource.RLIMIT_DATA, (400 * 2**20, hard))\n"
        f"report_crash(MemoryError(), Path({str(tmp_path)!r}), 'en')\n"
        "print(resource.getrlimit(resource.RLIMIT_DATA) == (hard, hard))\n"
    )
    env = {**os.environ, MEMORY_VARIABLE: "400"}
    env.pop("TUTOR_CRASH_FD", None)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "True", done.stderr
    assert "memory limit the server gives each session (400 MB)" in done.stderr
