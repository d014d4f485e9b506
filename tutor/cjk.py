"""Chinese, Japanese and Korean text, defined once: which characters are CJK, how many
terminal columns text takes, where a line may break, and tables whose columns line up.

Why one module: the CLI's help, the grader, the inspecting commands' tables, content
problems' carets and the TUI's wrappers (tutor.tui.cjk_wrap) must agree on what a Chinese
character is and where a line may break, or the same sentence folds two ways.

The build's own copy (tutor/core/measure.py counts Chinese word types by the unified
ideographs, IDEOGRAPHS here) is a build input and stays as it is until the next assets
build; tests/unit/test_cjk.py keeps the two equal.

A line breaks between chunks: one CJK character with the closing punctuation and spaces
after it (so "，" never starts a line) and the opening brackets before it (so "「" never
ends one); a dash ("——") is a chunk of its own; a run of anything else (Latin words,
numbers) stays one chunk, broken only at spaces or next to CJK text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import cache

IDEOGRAPHS = ("\u4e00", "\u9fff")
"""The CJK unified ideographs, first and last: what the build counts as a Chinese word."""

# Characters that may sit alone on either side of a line break.
CJK = (
    "\u2e80-\u2fdf"  # CJK and Kangxi radicals
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f\u31a0-\u31bf"  # bopomofo
    "\u31f0-\u31ff"  # katakana extension
    "\u3400-\u4dbf"  # CJK extension A
    f"{IDEOGRAPHS[0]}-{IDEOGRAPHS[1]}"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"  # fullwidth digits and letters
    "\U00020000-\U0003134f"  # CJK extensions B to H
)
"""A regular expression character class's ranges (without the brackets)."""
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
CHUNK = rf"(?=\S)[{_opening}]*(?:[{CJK}]|[{_dashes}]+|[^\s{_not_other}]+)?[{_closing}]*\s*"
"""One chunk and the spaces after it. Every non-space character is CJK, CJK punctuation,
a dash or "other", so after the lookahead a chunk is never empty (an empty match would
loop a wrapper for ever)."""


@cache
def _compiled() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Compiled on first use: a CJK character class costs about a millisecond to compile,
    which start-up has better uses for."""
    return re.compile(f"[{CJK}]"), re.compile(rf"{CHUNK}|\s+")


def has_cjk(text: str) -> bool:
    """Whether any character of `text` is CJK."""
    return _compiled()[0].search(text) is not None


def columns(text: str) -> int:
    """Terminal columns of `text`: wide and fullwidth characters take two, combining
    marks none."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def split_lines(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal columns (a chunk wider than that alone
    on its line), broken only between chunks, runs of spaces read as one space."""
    lines: list[str] = []
    line = ""
    for piece in _compiled()[1].findall(text.strip()):
        piece = re.sub(r"\s+", " ", piece)
        if line.strip() and columns((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    return [*lines, line.rstrip()] if line.strip() else lines


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows under a header, each column as wide as its widest cell in terminal columns
    (CJK takes two), two spaces between columns."""
    widths = [max(columns(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(
            cell + " " * (width - columns(cell)) for cell, width in zip(line, widths, strict=True)
        ).rstrip()
        for line in (header, *rows)
    ]
    return "\n".join(lines)
