"""A request refused, said twice: in English for the command line, and as a `code` with
`values` so that an interface can say it in its own language (tutor.words.refusals)."""

from __future__ import annotations

from typing import TypeVar


class Coded(Exception):
    """The message (English) is for the command line and logs; `code` and `values` let an
    interface say the same in its language. An interface keeps a sentence for every code."""

    def __init__(self, message: str, code: str = "", **values: object) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


C = TypeVar("C", bound="Coded")


class Name(str):
    """A value quoted whole, never shortened: a file's path, a tensor's name, a list of
    them. (Text the learner typed is quoted by its start when it is long.)"""


def recoded(kind: type[C], error: Exception) -> C:
    """`error` as a `kind`, with its message, code and values (to raise `from error`)."""
    return kind(str(error), getattr(error, "code", ""), **getattr(error, "values", {}))


class Refusal(Coded, ValueError):
    """A request the core refuses (a token that is not one, a k below 1, ...)."""
