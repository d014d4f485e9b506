"""The markdown parser of lesson prose, in a module of its own: the first screen is drawn
before markdown-it is imported (tests/tui/test_startup.py)."""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt


@cache
def markdown_parser(*, inline: bool = True) -> MarkdownIt:
    """The one parser of lesson prose, so `tutor check` cuts a page into prose and widget
    blocks where the page's reading finds its blocks (one parser per use: building one
    costs more than parsing a page). Without inline, only where each block starts and ends,
    in half the time."""
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return parser if inline else parser.disable("inline")
