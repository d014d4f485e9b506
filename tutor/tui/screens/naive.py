"""The naive scheme: the most direct representation, tried before it is judged."""

from __future__ import annotations

from tutor.tui.screens.page import PageScreen


class NaiveScreen(PageScreen):
    KIND = "naive"
