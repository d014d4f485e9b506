"""What the tests of live runs share: a corpus small enough to train on in seconds, and a
wait with a deadline for a run's child process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def tiny_corpus(tmp_path: Path) -> Path:
    from tutor.core import corpus as corpus_mod

    corpus = corpus_mod.generate(zh_train=400, zh_valid=40, en_train=10, en_valid=10)
    path = tmp_path / "tiny.txt"
    path.write_text(corpus.zh_train, encoding="utf-8")
    return path


async def until(pilot, done: Callable[[], bool], limit: int = 6000) -> None:
    """Pause until `done()`; the bound only keeps a broken run from hanging the suite."""
    for _ in range(limit):
        if done():
            return
        await pilot.pause(0.1)
    raise AssertionError("the live run never got there")
