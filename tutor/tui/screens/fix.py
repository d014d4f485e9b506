"""The fix: a learnable V x d table where the ID only picks a row."""

from __future__ import annotations

from tutor.tui.screens.page import PageScreen


class FixScreen(PageScreen):
    KIND = "fix"
