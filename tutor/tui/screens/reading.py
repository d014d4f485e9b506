"""The current page as plain text: for screen readers, NO_COLOR terminals, and copying."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from tutor.tui.context import tutor_context
from tutor.tui.widgets.keybar import KeyBar


class ReadingScreen(ModalScreen[None]):
    CSS_PATH = "dialog.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,r", "dismiss", "key.close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(tutor_context(self).t("read.title"), classes="dialog-title")
            yield TextArea(self.text, read_only=True, soft_wrap=True, id="reading")
        yield KeyBar()
