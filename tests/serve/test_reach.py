"""A session reaches nothing outside the lesson: no file written, no browser started."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import asyncssh
import pytest
from textual.widgets import Markdown

from tests.serve.conftest import Terminal
from tests.tui.conftest import LESSON, app_for
from tests.tui.test_quiz_summary import summary_page
from tests.waits import settle, wait_until
from tutor.serve.server import TutorServer
from tutor.words.i18n import t

HOME_WORDS = ("embedding", "lesson")


@pytest.mark.asyncio(loop_scope="module")
async def test_the_served_palette_offers_no_screenshot(
    reaped: TutorServer, keys: dict[str, asyncssh.SSHKey]
) -> None:
    term = await Terminal.open(reaped.port, keys["alice"], size=(100, 30))
    await term.wait_for(*HOME_WORDS)
    home = await term.settled()
    term.press("\x10")  # ctrl+p
    await term.wait_for_change(home)
    term.press("theme")
    await term.wait_for(t("palette.theme_help", "en"))  # system commands are searched...
    term.press("\x1b")
    await wait_until(lambda: term.text == home, "the home screen again")
    term.press("\x10")
    await term.wait_for_change(home)
    term.press("screenshot")
    await term.wait_for("screenshot")
    await term.settled()
    assert "svg" not in term.text.lower()  # ...but "Save an SVG 'screenshot'" is gone
    term.press("\x1b")
    await wait_until(lambda: term.text == home, "the home screen again")
    term.press("q")
    assert await term.closed() == 0


@pytest.mark.asyncio
async def test_links_never_start_a_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url))
    app = app_for(tmp_path, start_lesson=LESSON, start_page=summary_page(), lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        markdowns = list(app.screen.query(Markdown))
        assert markdowns and not any(markdown._open_links for markdown in markdowns)
        app.open_url("https://example.com/embeddings")
        await pilot.pause()
        notes = [note.message for note in app._notifications]
        assert any("https://example.com/embeddings" in note for note in notes)
    assert opened == []
