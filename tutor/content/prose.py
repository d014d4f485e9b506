"""{{fact:key}} references in lesson text: finding them, checking them, splitting prose.

Numbers in prose are never typed by hand; a reference names a fact from the core's
registry (tutor.core.facts) and the TUI renders its value and shows its evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FACT_REF = re.compile(r"\{\{\s*fact\s*:\s*([^{}]*?)\s*\}\}")


@dataclass(frozen=True, slots=True)
class FactRef:
    """A reference to a fact inside prose; `start` is its offset in the text."""

    key: str
    start: int
    end: int


def find_fact_refs(text: str) -> list[FactRef]:
    return [FactRef(match[1], match.start(), match.end()) for match in FACT_REF.finditer(text)]


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
