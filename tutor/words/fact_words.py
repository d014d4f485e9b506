"""A fact's unit and source in the interface's language, for the fact strip and
`tutor facts` (no Textual here: the command line imports it)."""

from __future__ import annotations

from typing import Protocol

from tutor.core.facts import Fact, Lang
from tutor.words import i18n

# Units that format_value already shows, or that read badly after a number.
UNITS_IN_VALUE = frozenset({"", "%", "id", "year"})


class Speaks(Protocol):
    """The app's context or an i18n.Speaker: a language and its sentences."""

    @property
    def lang(self) -> Lang: ...

    def t(self, key: str, **values: object) -> str: ...


def with_unit(ctx: Speaks, fact: Fact, value: str) -> str:
    """`value` followed by the fact's unit as `ctx`'s language says it ("5 个", "5")."""
    if fact.unit in UNITS_IN_VALUE:
        return value
    key = f"unit.{fact.unit}"
    return ctx.t(key, value=value) if i18n.has(key) else f"{value} {fact.unit}"


def unit_word(ctx: Speaks, fact: Fact) -> str:
    """The unit alone, for a table's unit column ("个" in Chinese, nothing in English)."""
    if fact.unit in UNITS_IN_VALUE:
        return fact.unit
    return with_unit(ctx, fact, "").strip()


def detail_line(ctx: Speaks, fact: Fact, value: str) -> str:
    """The fact's label, value with unit, evidence and source."""
    return ctx.t(
        "fact.detail",
        label=fact.label_zh if ctx.lang == "zh" else fact.label_en,
        value=with_unit(ctx, fact, value),
        evidence=ctx.t(f"evidence.{fact.evidence}"),
        source=fact.source_in(ctx.lang),
    )
