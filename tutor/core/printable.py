"""Learner text made safe to show on someone else's terminal.

Answers, summaries, learner names and key comments are typed by learners, and a teacher
reads them in `tutor report` and `tutor review`. A terminal acts on some characters
instead of showing them: C0 and C1 controls (ESC, U+009B CSI) move the cursor, clear the
screen or set a title; bidi controls (U+202E) reverse what follows; zero-width characters
hide text or make two names look alike. `printable` shows each one as a visible stand-in,
so the teacher sees that it was typed and the terminal never acts on it.
"""

from __future__ import annotations

import json
import re
import unicodedata

# What a spreadsheet reads as the start of a formula (and tab/CR, which some strip first).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Categories a terminal does not draw as a glyph: controls, format characters (bidi,
# zero-width, soft hyphen, BOM), line and paragraph separators, lone surrogates.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_MAYBE_HIDDEN = re.compile(r"[^\x20-\x7e\u00a0-\u00ac\u00ae-\u05ff\u3000-\ud7ff\ue000-\ufefe]")


def is_hidden(char: str, *, keep_newlines: bool = False) -> bool:
    """Whether a terminal would act on `char` (or draw nothing) rather than show it."""
    if keep_newlines and char == "\n":
        return False
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def stand_in(char: str) -> str:
    """The visible form of a hidden character: its control picture for C0 and DEL
    (␛ for ESC), else its code point in angle brackets (⟨U+202E⟩)."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"⟨U+{code:04X}⟩"


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every hidden character shown by its stand-in; with `keep_newlines`,
    line breaks stay (a multi-line answer shown as lines)."""
    if not _MAYBE_HIDDEN.search(text):  # the common case: nothing to look at twice
        return text
    return "".join(
        stand_in(char) if is_hidden(char, keep_newlines=keep_newlines) else char for char in text
    )


def spreadsheet_cell(text: str) -> str:
    """A printable CSV cell a spreadsheet shows as text: one that starts like a formula
    (= + - @, tab, CR) gets a leading apostrophe, so it cannot run as one."""
    text = printable(text)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def escaped_json(text: str) -> str:
    """JSON text with every hidden character in its strings written as a `\\u` escape: the
    same data for a tool that reads it, nothing a terminal acts on for a person who looks."""
    if not _MAYBE_HIDDEN.search(text):
        return text
    return "".join(
        json.dumps(char)[1:-1] if is_hidden(char, keep_newlines=True) else char for char in text
    )
