"""How the widgets write a number a learner reads."""

from __future__ import annotations


def number(value: float) -> str:
    """Two decimals; a negative that rounds to zero reads 0.00, not -0.00."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text
