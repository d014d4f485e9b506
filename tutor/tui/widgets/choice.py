"""A row of options: the compact switcher the widgets share (schemes, tokens, scale).

Radio sets take a line per option; at 80x24 a lesson page cannot spare that. The chosen
option is drawn reversed *and* in brackets, so it still shows under NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tutor.tui.widgets.flow import Flow


class ChoiceBar(Widget, can_focus=True):
    """Left/right (or space) moves the choice; posts `ChoiceBar.Changed`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "key.choice"),
        Binding("right", "move(1)", "key.choice"),
        Binding("space", "move(1)", "key.choice", show=False),
    ]

    DEFAULT_CSS = """
    ChoiceBar { height: auto; width: 1fr; }
    """

    index: reactive[int] = reactive(0)

    class Changed(Message):
        def __init__(self, bar: ChoiceBar, index: int, value: str) -> None:
            super().__init__()
            self.bar = bar
            self.index = index
            self.value = value

        @property
        def control(self) -> ChoiceBar:
            return self.bar

    def __init__(
        self,
        values: Sequence[str],
        labels: Sequence[str] | None = None,
        *,
        caption: str = "",
        index: int = 0,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.values = list(values)
        self.labels = list(labels) if labels is not None else list(values)
        self.caption = caption
        self.set_reactive(ChoiceBar.index, index)

    @property
    def value(self) -> str:
        return self.values[self.index]

    def action_move(self, step: int) -> None:
        self.index = (self.index + step) % len(self.values)

    def set_options(self, values: Sequence[str], labels: Sequence[str] | None = None) -> None:
        """New options (e.g. once a worker has tokenized them); the first is chosen."""
        self.values = list(values)
        self.labels = list(labels) if labels is not None else list(values)
        self.set_reactive(ChoiceBar.index, 0)
        self.refresh(layout=True)

    def select(self, value: str) -> None:
        if value in self.values:
            self.index = self.values.index(value)

    def watch_index(self, index: int) -> None:
        self.post_message(self.Changed(self, index, self.values[index]))

    def render(self) -> Flow:
        items = [
            Content.styled(f"[{label}]", "reverse bold") if number == self.index else f" {label} "
            for number, label in enumerate(self.labels)
        ]
        if self.caption:  # the caption stays on the line of the first option
            items[0] = Content.assemble((f"{self.caption} ", "bold"), items[0])
        return Flow(items, gap=1)

    def on_click(self, event: Click) -> None:
        """Mouse users click an option; the offsets follow the rendered rows."""
        flow = self.render()
        caption = cell_len(self.caption) + 1 if self.caption else 0
        for y, row in enumerate(flow.rows(self.size.width)):
            x = 0
            for number in row:
                start, x = x + (caption if number == 0 else 0), x + flow.items[number].cell_length
                if y == event.y and start <= event.x < x:
                    self.index = number
                    return
                x += flow.gap

    def plain_text(self) -> str:
        shown = " / ".join(
            f"[{label}]" if n == self.index else label for n, label in enumerate(self.labels)
        )
        return f"{self.caption} {shown}".strip()
