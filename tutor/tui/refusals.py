"""The core's refusals in the learner's language, quoting what they typed briefly.

The core raises errors whose message is English (for the command line) and which carry a
`code` and `values`; here each code has a sentence per language, and long input (a
5,000-character paste) is quoted by its first QUOTE_CHARS characters and its length.
"""

from __future__ import annotations

from tutor.core.tokenize import QUOTE_CHARS
from tutor.tui import i18n
from tutor.tui.context import TutorContext

PIECES_SHOWN = 8  # pieces named in a "splits into" sentence


def quote(ctx: TutorContext, text: str) -> str:
    if len(text) <= QUOTE_CHARS:
        return text
    return text[:QUOTE_CHARS] + ctx.t("core.more_chars", count=f"{len(text):,}")


def _value(ctx: TutorContext, value: object) -> str:
    if isinstance(value, str):
        return quote(ctx, value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        shown = " + ".join(f"「{quote(ctx, str(piece))}」" for piece in value[:PIECES_SHOWN])
        more = len(value) - PIECES_SHOWN
        return shown + (ctx.t("core.more_pieces", count=f"{len(value):,}") if more > 0 else "")
    return str(value)


def say(ctx: TutorContext, error: Exception) -> str:
    """`error` as the learner reads it: translated if the core gave it a code."""
    code = getattr(error, "code", "")
    key = f"core.{code}"
    if not code or not i18n.has(key):
        return str(error)
    values = getattr(error, "values", {})
    return ctx.t(key, **{name: _value(ctx, value) for name, value in values.items()})
