"""A session the server ends (idle or length limit, the server stopping: the tutor gets
SIGHUP) keeps what the learner typed up to that moment, as the closing message says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from tests.serve.conftest import Terminal, make_config, serving
from tests.tui.test_quiz_summary import summary_page
from tests.tui.test_stop_signals import STOP_WITHIN_S, TYPED
from tutor.progress.sqlite import SqliteStore

pytestmark = pytest.mark.asyncio(loop_scope="module")

LESSON = "embedding"


async def test_keys_typed_just_before_the_idle_limit_are_saved(
    tmp_path: Path, keys: dict[str, asyncssh.SSHKey]
) -> None:
    learner = keys["alice"].get_fingerprint("sha256")
    store = SqliteStore(learner, tmp_path)
    store.visit_page(LESSON, summary_page())  # r resumes on the summary
    store.close()
    async with serving(make_config(tmp_path)) as server:
        term = await Terminal.open(server.port, keys["alice"], size=(100, 40))
        await term.wait_for("Resume")
        term.press("r")
        await term.wait_for("Your summary")
        term.press("\t")  # into the summary's first section
        await term.wait_for("Leave the field")
        for character in TYPED:
            term.press(character)
            await asyncio.sleep(0.005)
        await asyncio.sleep(STOP_WITHIN_S)
        (session,) = server.sessions
        session.close("idle", "Session closed after 30 minutes without input.")  # as its timer does
        assert await term.closed() == 1
        await term.wait_for("Your progress is saved")
    store = SqliteStore(learner, tmp_path)
    try:
        assert "".join(store.summary(LESSON).values()) == TYPED
    finally:
        store.close()
