"""One mark the teacher sets by key: a claim met / not met, a misconception held / fixed.

Space or Enter steps through the states (the first is "not marked yet"); the state is
said in words beside its sign, so it reads the same without colour. The grader's verdict
follows the wording, for the teacher to agree or not.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from tutor.tui.context import tutor_context

CLAIM_STATES = ("", "met", "not_met")
MISCONCEPTION_STATES = ("", "held", "fixed")
_STYLES = {"": "dim", "met": "$text-success", "fixed": "$text-success"}


class MarkToggle(Static, can_focus=True):
    DEFAULT_CSS = """
    MarkToggle { height: auto; padding: 0 1; }
    MarkToggle:focus { background: $boost; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,enter", "step", "key.mark"),
    ]

    class Changed(Message):
        def __init__(self, toggle: MarkToggle) -> None:
            super().__init__()
            self.toggle = toggle

    def __init__(
        self, key: str, states: tuple[str, ...], state: str, wording: str, grader: str
    ) -> None:
        super().__init__()
        self.key = key  # the claim's or misconception's id
        self.states = states
        self.state = state
        self.wording = wording
        self.grader = grader

    def on_mount(self) -> None:
        self._show()

    def action_step(self) -> None:
        self.state = self.states[(self.states.index(self.state) + 1) % len(self.states)]
        self._show()
        self.post_message(self.Changed(self))

    def label(self) -> str:
        return tutor_context(self).t(f"review.state.{self.state or 'unmarked'}")

    def _show(self) -> None:
        style = _STYLES.get(self.state, "$text-warning")
        self.update(
            Content.assemble(
                (f"[{self.label()}]", style), f" {self.wording} ", (f"({self.grader})", "dim")
            )
        )
