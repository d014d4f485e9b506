"""A quiz question's options, by keyboard as the help says: ↑↓ move between them, space
picks or ticks, Enter submits (Textual's radio set and checkboxes take Enter as space).

Both post Chosen; the question they belong to judges the answer.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Checkbox, RadioButton, RadioSet


class Chosen(Message):
    """Enter on the options: submit. `index`: the single choice Enter was pressed on."""

    def __init__(self, index: int | None = None) -> None:
        super().__init__()
        self.index = index


PICKED = {"single": ("●", "○"), "multiple": ("☑", "☐")}  # (picked, not) in plain text


class Option(RadioButton):
    """A single choice's option: a dot only when picked, so it shows without colour too
    (Textual draws the dot on every option and greys the unpicked ones)."""

    @property
    def BUTTON_INNER(self) -> str:  # Textual draws this between the brackets
        return "●" if self.value else " "


class SingleChoice(RadioSet, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,right", "next_button", "key.choice", show=False),
        Binding("up,left", "previous_button", "key.choice", show=False),
        Binding("space", "toggle_button", "key.pick", show=False),
        Binding("enter", "choose", "key.submit"),
    ]

    def action_choose(self) -> None:
        """The option the arrows reached is picked (if it was not) and submitted; the set
        learns of the pick a message later, so the index travels with Chosen."""
        buttons = list(self.query(RadioButton))
        reached = next((n for n, b in enumerate(buttons) if b.has_class("-selected")), None)
        if reached is not None:
            buttons[reached].value = True
        self.post_message(Chosen(reached))


class MultipleChoice(Checkbox, inherit_bindings=False):
    """One option of a multiple choice; the arrows go to the one above or below; an X
    only when ticked."""

    @property
    def BUTTON_INNER(self) -> str:
        return "X" if self.value else " "

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "step(1)", "key.choice", show=False),
        Binding("up", "step(-1)", "key.choice", show=False),
        Binding("space", "toggle_button", "key.tick", show=False),
        Binding("enter", "choose", "key.submit"),
    ]

    def action_step(self, step: int) -> None:
        options = list(self.parent.query_children(MultipleChoice)) if self.parent else [self]
        options[(options.index(self) + step) % len(options)].focus()

    def action_choose(self) -> None:
        self.post_message(Chosen())
