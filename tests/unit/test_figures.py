"""Figures keep their significant digits: a small share is not rounded away, a whole
number carries no stray decimal."""

from __future__ import annotations

import pytest

from tutor.core.figures import carried_digits, significant


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (0.02608, 2, "0.026"),
        (669.0, 3, "669"),
        (12345.6, 3, "12,346"),
        (1.7275, 3, "1.73"),
        (9.996, 3, "10"),
        (-0.0004, 1, "-0.0004"),
        (-0.0, 3, "0"),
        (-0.033, 2, "-0.033"),
        (0.0, 3, "0"),
        (0.15, 2, "0.15"),
        (100.0, 1, "100"),
    ],
)
def test_significant(value: float, digits: int, shown: str) -> None:
    assert significant(value, digits) == shown


@pytest.mark.parametrize(
    ("value", "digits"), [(0.026, 2), (669.0, 3), (1.7275, 5), (-0.12, 2), (100.0, 1)]
)
def test_carried_digits(value: float, digits: int) -> None:
    assert carried_digits(value) == digits
