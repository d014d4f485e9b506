"""`--database` and TUTOR_DATABASE: a wrong URL is refused with a sentence, before anything
starts; a learner whose database cannot be reached gets the error screen, not a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutor.cli import main


@pytest.mark.parametrize("command", [["serve", "--open"], ["report"]])
def test_a_url_that_is_not_postgresql_is_refused(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*command, "--database", "sqlite:///tmp/x.db"])
    assert code in (1, 2)
    err = capsys.readouterr().err
    assert "a progress database is a postgresql://user@host/dbname URL" in err


def test_serve_stops_with_a_message_when_the_database_cannot_be_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://tutor:secret@/nodb?host={tmp_path}"  # no server on that socket
    code = main(["serve", "--open", "--port", "0", "--data-dir", str(tmp_path), "--database", url])
    assert code == 1
    err = capsys.readouterr().err
    assert "cannot open the progress database" in err
    assert "secret" not in err


async def test_an_unreachable_database_shows_the_error_screen(tmp_path: Path) -> None:
    from tests.tui.conftest import app_for
    from tests.waits import settle
    from tutor.progress.opening import open_in_background
    from tutor.tui.screens.error import ErrorScreen

    url = f"postgresql://tutor:secret@/nodb?host={tmp_path}"
    app = app_for(tmp_path, opening_store=open_in_background("ada", database=url))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        assert shown.splitlines()[0] == "原因：连不上进度数据库的服务器。"
        assert "cannot open" not in shown  # the driver's English is not the learner's
        assert "secret" not in shown
        await pilot.press("q")
    assert app.return_code == 0
