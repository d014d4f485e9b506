"""How a figure is written for a learner: to its significant digits, never to a fixed
number of decimals, so that 0.026% does not read 0.0% and a mean of 669 rows does not
read 669.0."""

from __future__ import annotations

import math
from decimal import Decimal


def significant(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant digits: no exponent, thousands grouped, trailing
    zeros dropped, never -0; an integer part is never cut (12,345.6 reads 12,346)."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def carried_digits(value: float) -> int:
    """How many significant digits a stored figure carries (0.026: 2, 669.0: 3, 1.7275:
    5): the precision its measurement was rounded to, which prose keeps."""
    return max(1, len(Decimal(repr(value)).normalize().as_tuple().digits))


_NICE = (1.0, 2.0, 2.5, 5.0)


def axis_ticks(low: float, high: float, rows: int) -> list[float]:
    """Ticks for an axis `rows` text rows tall covering low..high: evenly spaced nice
    values (1, 2, 2.5 or 5 times a power of ten), the first and last at the axis's ends,
    as many intervals as divide rows - 1 so that every tick sits exactly on a row; of
    those, the tightest span (more ticks on a tie)."""
    if high <= low:
        pad = abs(low) * 0.01 or 0.01
        low, high = low - pad, high + pad
    divisors = [k for k in range(2, rows) if (rows - 1) % k == 0] or [1]
    best: list[float] = []
    for k in divisors:
        step = _nice_step(low, high, k)
        first = math.floor(low / step + 1e-9)
        ticks = [(first + i) * step for i in range(k + 1)]
        if not best or (ticks[-1] - ticks[0], -len(ticks)) < (best[-1] - best[0], -len(best)):
            best = ticks
    return best


def _nice_step(low: float, high: float, intervals: int) -> float:
    """The smallest nice step whose `intervals` steps from a multiple below `low` reach `high`."""
    exponent = math.floor(math.log10((high - low) / intervals))
    while True:
        for mantissa in _NICE:
            step = mantissa * 10.0**exponent
            if (math.floor(low / step + 1e-9) + intervals) * step >= high - 1e-12:
                return step
        exponent += 1


def tick_labels(ticks: list[float]) -> list[str]:
    """Ticks written with the decimals their step needs, the same for all: 0.0 0.2 0.4."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else abs(ticks[0]) or 1.0
    decimals = 0
    while abs(round(step, decimals) - step) > step * 1e-6:
        decimals += 1
    labels = [f"{tick:.{decimals}f}" for tick in ticks]
    return [label[1:] if label[0] == "-" and float(label) == 0 else label for label in labels]
