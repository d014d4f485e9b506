"""Where a crash's details went, said in the learner's language even when they could not
be saved: the reason in their words, not the system's English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tutor.crash import record


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
