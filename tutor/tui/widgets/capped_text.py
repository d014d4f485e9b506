"""A TextArea that holds at most `max_length` characters and shows how many it holds.

What learners type is stored (on a served tutor, in a database the whole class shares),
so every text has a limit. The count under the field shows it long before it is reached,
and the field stops there (a paste is cut to fit, and a notice says how much was left
out) rather than failing when it is saved.
"""

from __future__ import annotations

from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from tutor.progress.store import MAX_TEXT_CHARS
from tutor.tui.context import tutor_context


class CappedTextArea(TextArea):
    DEFAULT_CSS = """
    CappedTextArea, CappedTextArea.-textual-compact {
        border: none !important;
        border-bottom: hkey $foreground 20% !important;
        border-subtitle-align: right;
        border-subtitle-color: $text-muted;
    }
    CappedTextArea.-full { border-subtitle-color: $text-warning; }
    """

    def __init__(self, text: str = "", *, max_length: int = MAX_TEXT_CHARS, **options) -> None:
        super().__init__(text[:max_length], **options)
        self.max_length = max_length
        self._show_count()

    def edit(self, edit: Edit) -> EditResult:
        """Every change (typing, paste, delete, undo) passes here: cut what does not fit."""
        replaced = len(self.get_text_range(edit.top, edit.bottom))
        room = max(self.max_length - len(self.text) + replaced, 0)
        if len(edit.text) > room:
            left_out = len(edit.text) - room
            said = tutor_context(self).t(
                "text.cut", limit=f"{self.max_length:,}", count=f"{left_out:,}"
            )
            self.notify(said, severity="warning", timeout=10)
            edit = Edit(
                edit.text[:room],
                edit.from_location,
                edit.to_location,
                edit.maintain_selection_offset,
            )
        return super().edit(edit)

    def on_text_area_changed(self) -> None:
        self._show_count()

    def _show_count(self) -> None:
        length = len(self.text)
        self.border_subtitle = f"{length} / {self.max_length}"
        self.set_class(length >= self.max_length, "-full")
