"""Where the naive schemes fail, and the path of fixes that led to the table."""

from __future__ import annotations

from tutor.tui.screens.page import PageScreen


class FailureScreen(PageScreen):
    KIND = "failure"
