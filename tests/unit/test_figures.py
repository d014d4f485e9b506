"""Figures keep their significant digits: a small share is not rounded away, a whole
number carries no stray decimal."""

from __future__ import annotations

import pytest

from tutor.core.figures import axis_ticks, carried_digits, significant, tick_labels


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


@pytest.mark.parametrize(
    ("low", "high", "rows", "labels"),
    [
        (1.728, 8.496, 6, ["0", "2", "4", "6", "8", "10"]),
        (-0.002, 0.603, 6, ["-0.2", "0.0", "0.2", "0.4", "0.6", "0.8"]),
        (0.1, 0.9, 5, ["0.00", "0.25", "0.50", "0.75", "1.00"]),
        (
            -0.0021,
            -0.0019,
            6,
            ["-0.00210", "-0.00205", "-0.00200", "-0.00195", "-0.00190", "-0.00185"],
        ),
    ],
)
def test_axis_ticks_are_round_and_evenly_spaced(
    low: float, high: float, rows: int, labels: list[str]
) -> None:
    ticks = axis_ticks(low, high, rows)
    assert ticks[0] <= low and ticks[-1] >= high
    assert tick_labels(ticks) == labels
