"""The core's refusals in the learner's language, quoting what they typed briefly.

The core (and the progress store, for its limits) raises errors whose message is English
(for the command line) and which carry a `code` and `values` (tutor.core.refusal); here
each code has a sentence per language, and long input (a 5,000-character paste) is quoted
by its first QUOTE_CHARS characters and its length.
"""

from __future__ import annotations

import errno
from pathlib import PurePath
from typing import Protocol

from tutor.core.refusal import Coded, Name, Refusal
from tutor.words import i18n


class Says(Protocol):
    """What says a sentence: the app's context, or an i18n.Speaker on the command line."""

    def t(self, key: str, **values: object) -> str: ...


PIECES_SHOWN = 8  # pieces named in a "splits into" sentence
QUOTE_CHARS = 40  # as tutor.core.tokenize quotes (not imported: it loads `tokenizers`)


def quote(ctx: Says, text: str) -> str:
    if len(text) <= QUOTE_CHARS:
        return text
    return text[:QUOTE_CHARS] + ctx.t("core.more_chars", count=f"{len(text):,}")


# Quotation marks inside a quotation become the inner kind, as Chinese and English write it.
_INNER_QUOTES = str.maketrans({"「": "『", "」": "』", "“": "‘", "”": "’", '"': "'"})


def inner_quotes(text: str) -> str:
    """`text` ready to go inside 「…」 or “…”: a learner's own quotes turn to 『…』 or ‘…’,
    so a quoted line never reads 「「…」」."""
    return text.translate(_INNER_QUOTES)


def _value(ctx: Says, value: object) -> str:
    if isinstance(value, PurePath):  # a served learner reads a file or folder by its name
        return value.name if getattr(ctx, "remote", False) else str(value)
    if isinstance(value, Name):  # a path or a tensor's name: whole
        return str(value)
    if isinstance(value, str):
        return quote(ctx, value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        shown = " + ".join(
            ctx.t("core.quoted", text=quote(ctx, str(piece))) for piece in value[:PIECES_SHOWN]
        )
        more = len(value) - PIECES_SHOWN
        return shown + (ctx.t("core.more_pieces", count=f"{len(value):,}") if more > 0 else "")
    return str(value)


def sentence_key(error: Exception, prefix: str = "core") -> str | None:
    """The strings.toml key for `error`'s code under `prefix`, if there is a sentence."""
    code = getattr(error, "code", "")
    return f"{prefix}.{code}" if code and i18n.has(f"{prefix}.{code}") else None


def say(ctx: Says, error: Exception, prefix: str = "core") -> str:
    """`error` as the learner reads it: translated if it carries a code (tutor.core.refusal)
    with a sentence under `prefix`."""
    key = sentence_key(error, prefix)
    if key is None:
        return str(error)
    values = getattr(error, "values", {})
    return ctx.t(key, **{name: _value(ctx, value) for name, value in values.items()})


def model_error(ctx: Says, error: Exception) -> str:
    """A model that cannot be opened or read (tutor.core.model.ModelError), and why."""
    return ctx.t("model.error", error=say(ctx, error))


def disagreement(ctx: Says, field: str, config: int, weights: int) -> str:
    """A config.json size the weights do not have (tutor.core.model.Disagreement)."""
    return ctx.t("model.disagrees", field=field, config=f"{config:,}", weights=f"{weights:,}")


def say_or_model_error(ctx: Says, error: Exception) -> str:
    """A refusal of what the learner asked, as `say` puts it; any other error (a missing
    or broken model) says the model cannot be opened."""
    if isinstance(error, Refusal) and sentence_key(error) is not None:
        return say(ctx, error)
    return model_error(ctx, error)


LIMITS = "store.why.limit"  # strings.toml: a sentence per StoreLimitError code


def why_not_saved(ctx: Says, error: Exception) -> str:
    """Why the store refused (or could not be opened or read), in the interface's language,
    from the code tutor.progress.trouble gives; a cause nobody can name is quoted as the
    system's own words, labelled as such."""
    from tutor.progress.store import StoreLimitError
    from tutor.progress.trouble import detail, trouble

    if isinstance(error, StoreLimitError) and sentence_key(error, LIMITS) is not None:
        return say(ctx, error, LIMITS)
    code = trouble(error)
    if code == "other" or not i18n.has(f"store.why.{code}"):
        return ctx.t("store.why.other", error=detail(error))
    values = getattr(error, "values", {}) if getattr(error, "code", "") == code else {}
    return say(ctx, Coded("", code, **values), "store.why")


_FILE_WHY = {
    errno.ENOENT: "missing",
    errno.EACCES: "no_permission",
    errno.EPERM: "no_permission",
    errno.EISDIR: "is_folder",
}


def why_unreadable(ctx: Says, error: OSError) -> str:
    """Why a file named on the command line cannot be read, in the interface's language."""
    code = _FILE_WHY.get(error.errno or 0)
    if code is None:
        return ctx.t("file.why.other", error=error.strerror or error)
    return ctx.t(f"file.why.{code}")


def why_unwritable(ctx: Says, error: OSError) -> str:
    """Why a file or folder named on the command line cannot be written, in the interface's
    language."""
    from tutor.progress.trouble import trouble

    code = "no_folder" if error.errno == errno.ENOENT else trouble(error)
    key = f"file.write_why.{code}"
    return ctx.t(key) if i18n.has(key) else ctx.t("file.why.other", error=error.strerror or error)
