"""Line breaking that treats each Chinese character as a word, for Textual and Rich.

Why: both wrappers split a line into "words" at whitespace only, so a run of Chinese
without spaces is one word. In mixed prose ("ID 只是行号；embedding 就是拿这个行号，去一张
…") the line breaks after "embedding", leaving it mostly empty, and the Chinese run is
then folded wherever the width runs out, even before a "，".

Here a chunk is one CJK character with the closing punctuation and spaces after it (so
"，" never starts a line) and the opening brackets before it (so "「" never ends one); a
dash ("——") is a chunk of its own; a run of anything else (Latin words, numbers) stays
one chunk, broken only at spaces or next to CJK text, as before.

The hook is private, two module-level patterns read on every call:
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

import rich._wrap
import textual._wrap

# Characters that may sit alone on either side of a line break.
CJK = (
    "\u2e80-\u2fdf"  # CJK and Kangxi radicals
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f\u31a0-\u31bf"  # bopomofo
    "\u31f0-\u31ff"  # katakana extension
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"  # fullwidth digits and letters
    "\U00020000-\U0003134f"  # CJK extensions B to H
)
# May not end a line: they belong to the character after them.
CJK_OPENING = "「『（《〈【〔〖〘〚“［｛｟｢"
# May not start a line: they belong to the character before them.
CJK_CLOSING = "、。，．：；？！」』）》〉】〕〗〙〛”］｝｠｣％…⋯"
# A dash ("——") is never split, but a line may break before or after it.
DASHES = "—―"
# ASCII brackets and punctuation join a CJK neighbour the same way; next to Latin text
# they are already part of the word.
OPENING = CJK_OPENING + "([{"
CLOSING = CJK_CLOSING + ",.;:!?)]}%"

_opening, _closing, _dashes = re.escape(OPENING), re.escape(CLOSING), re.escape(DASHES)
_not_other = CJK + re.escape(CJK_OPENING + CJK_CLOSING + DASHES)
_chunk = rf"(?=\S)[{_opening}]*(?:[{CJK}]|[{_dashes}]+|[^\s{_not_other}]+)?[{_closing}]*\s*"
# Every non-space character is CJK, CJK punctuation, a dash or "other", so after the
# lookahead a chunk is never empty (an empty match would loop the wrappers forever).

RICH_WORD = re.compile(rf"\s*{_chunk}")
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


TEXTUAL_CHUNK = CompiledOnFirstUse(rf"{_chunk}|\s+")
"""Replaces `textual._wrap.re_chunk` (`\\S+\\s*|\\s+`): a chunk, or a run of spaces."""


def install() -> None:
    """Make every wrapper in this process break CJK text per character; safe to repeat."""
    rich._wrap.re_word = RICH_WORD
    textual._wrap.re_chunk = TEXTUAL_CHUNK
