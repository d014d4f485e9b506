"""Line breaking that treats each Chinese character as a word, for Textual and Rich.

Why: both wrappers split a line into "words" at whitespace only, so a run of Chinese
without spaces is one word. In mixed prose ("ID 只是行号；embedding 就是拿这个行号，去一张
…") the line breaks after "embedding", leaving it mostly empty, and the Chinese run is
then folded wherever the width runs out, even before a "，".

Where a line may break is tutor.cjk's, shared with the command line's help.

The hook is private (tutor.tui.compat), two module-level patterns read on every call:
- `rich._wrap.re_word`, read by `rich._wrap.divide_line`, which Textual's `Content` (so
  Static, Label, Markdown, OptionList) and Rich's `Text.wrap` use;
- `textual._wrap.re_chunk`, read by `textual._wrap.chunks`, which TextArea's soft wrap uses.
Textual is pinned exactly (==8.2.8) in pyproject.toml; tests/tui/test_cjk_wrap.py asserts
the wrap offsets through the public entry points, so an upgrade that moves these fails
the tests instead of quietly going back to the old breaking.
"""

from __future__ import annotations

import re
from functools import cached_property

from tutor.cjk import CHUNK
from tutor.tui import compat

RICH_WORD = re.compile(rf"\s*{CHUNK}")
"""Replaces `rich._wrap.re_word` (`\\s*\\S+\\s*`): leading spaces, a chunk, trailing spaces."""


class CompiledOnFirstUse:
    """A pattern compiled when first matched, standing in for a compiled one.

    Why: a CJK character class costs about a millisecond to compile, and TextArea's soft
    wrap (the only reader of `textual._wrap.re_chunk`, which calls `match`) first runs on
    a lesson page, never on the first screen, whose start-up has better uses for it.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)


TEXTUAL_CHUNK = CompiledOnFirstUse(rf"{CHUNK}|\s+")
"""Replaces `textual._wrap.re_chunk` (`\\S+\\s*|\\s+`): a chunk, or a run of spaces."""


def install() -> None:
    """Make every wrapper in this process break CJK text per character; safe to repeat."""
    compat.install_wrap_patterns(RICH_WORD, TEXTUAL_CHUNK)
