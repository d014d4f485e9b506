"""The session template's warm-up (tutor/serve/template.py): what it fills once is what
every forked session would otherwise do again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest


def test_the_warm_up_does_the_css_work_a_first_screen_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session draws on a real terminal, so its screens carry Textual's tooltip and
    notification layers; a warm-up without them left their CSS to every session (two
    parses each, about a tenth of a first screen's CPU)."""
    from tests.tui.test_css_cache import count_colour_systems, count_parses
    from tutor.cli import build_parser
    from tutor.commands.app import build
    from tutor.commands.session import warm_up
    from tutor.tui import css_cache

    css_cache._parsed.clear()
    warm_up(build_parser().parse_args([]))
    parsed = count_parses(monkeypatch)
    coloured = count_colour_systems(monkeypatch)
    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path))

    async def first_screen() -> None:
        app = build(build_parser().parse_args([]))
        async with app.run_test(size=(80, 24), tooltips=True, notifications=True) as pilot:
            await pilot.pause()

    asyncio.run(first_screen())
    assert parsed == []
    assert coloured == []  # the theme's CSS variables too


def test_the_template_builds_the_parser_each_session_reads_its_options_with() -> None:
    from tutor.cli import globals_parser
    from tutor.commands.session import preload

    globals_parser.cache_clear()
    preload([])
    assert globals_parser.cache_info().currsize == 1
