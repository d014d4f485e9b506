"""{{fact:key}} references in lesson text: finding them, checking them, splitting prose.

Numbers in prose are never typed by hand; a reference names a fact from the core's
registry (tutor.core.facts) and the TUI renders its value and shows its evidence.
`tutor check` and the TUI both find references here, so what check accepts is what a page
renders: `{{fact:key}}`, with spaces allowed around each part, on one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# `{{...}}` on one line; whether it is a reference is decided in Python (`_key`), since a
# pattern that also splits the blanks around `fact`, `:` and the key between its parts
# backtracks over every way to share them: a line of 4,000 blanks after `{{fact:` took 36 s
BRACES = re.compile(r"\{\{([^{}\n]*)\}\}")
# the start of something meant as a reference, to catch the ones BRACES cannot read
FACT_REF_START = re.compile(r"\{\{[ \t]*fact\b")
BLANKS = " \t"


@dataclass(frozen=True, slots=True)
class FactRef:
    """A reference to a fact inside prose; `start` is its offset in the text."""

    key: str
    start: int
    end: int


def _key(inside: str) -> str | None:
    """The key of `{{ fact : key }}` from what is between the braces; None if not a fact."""
    head, colon, key = inside.partition(":")
    return key.strip(BLANKS) if colon and head.strip(BLANKS) == "fact" else None


def find_fact_refs(text: str) -> list[FactRef]:
    refs = []
    for match in BRACES.finditer(text):
        key = _key(match[1])
        if key is not None:
            refs.append(FactRef(key, match.start(), match.end()))
    return refs


def unreadable_fact_refs(text: str) -> list[int]:
    """Offsets of `{{fact` that begin no reference (unclosed, or broken over lines): the
    page would show them as typed."""
    read = {ref.start for ref in find_fact_refs(text)}
    return [match.start() for match in FACT_REF_START.finditer(text) if match.start() not in read]


def fact_keys(text: str) -> list[str]:
    """Fact keys in order of first appearance."""
    return list(dict.fromkeys(ref.key for ref in find_fact_refs(text)))


def fill_fact_refs(text: str, value: Callable[[str], str]) -> str:
    """text with every reference replaced by value(key)."""
    return "".join(
        part if isinstance(part, str) else value(part.key) for part in split_fact_refs(text)
    )


def split_fact_refs(text: str) -> list[str | FactRef]:
    """Prose cut into plain strings and fact references, in order, for rendering."""
    parts: list[str | FactRef] = []
    position = 0
    for ref in find_fact_refs(text):
        if ref.start > position:
            parts.append(text[position : ref.start])
        parts.append(ref)
        position = ref.end
    if position < len(text):
        parts.append(text[position:])
    return parts
