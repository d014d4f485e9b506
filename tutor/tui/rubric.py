"""Which key claims a learner's text covers: a claim counts when one of its phrases appears.

Phrase matching is deliberately simple and explainable (the learner sees exactly which
claims were found); case and whitespace are ignored so "One-Hot" and "one hot" both count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tutor.content.models import RubricClaim

_IGNORED = re.compile(r"[\s\-_]+")


def _normalise(text: str) -> str:
    return _IGNORED.sub("", text.casefold())


@dataclass(frozen=True, slots=True)
class RubricResult:
    covered: list[RubricClaim]
    missing: list[RubricClaim]

    @property
    def complete(self) -> bool:
        return not self.missing


def grade(text: str, claims: Iterable[RubricClaim]) -> RubricResult:
    haystack = _normalise(text)
    covered, missing = [], []
    for claim in claims:
        phrases = [*claim.phrases_zh, *claim.phrases_en]
        hit = any(_normalise(phrase) and _normalise(phrase) in haystack for phrase in phrases)
        (covered if hit else missing).append(claim)
    return RubricResult(covered, missing)
