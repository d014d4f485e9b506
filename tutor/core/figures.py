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
