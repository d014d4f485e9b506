"""The course map's lessons: each a few lines of text, one highlighted; ↑↓ (Home, End)
move, Enter or a click opens.

Why not Textual's OptionList: it renders each option as a visual of its own, with a line
cache and per-option styles, and on a served learner's first screen it was most of what
the tutor cost beyond a bare Textual app: ten learners connecting at once waited about
1.47× a bare app's p95 with it, a median 1.33× with this (bench/ssh.py --first-screens).
Focus and blur redraw it (Textual refreshes a widget on both), so the highlight's style
follows the focus.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

HIGHLIGHT = "bold $block-cursor-foreground on $block-cursor-background"
HIGHLIGHT_BLURRED = "$block-cursor-blurred-foreground on $block-cursor-blurred-background"


class LessonList(Widget, can_focus=True):
    DEFAULT_CSS = """
    LessonList {
        height: auto;
        color: $foreground;
        border: tall $border-blurred;
        padding: 0 1;
        background: $surface;
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
        Binding("enter", "open", show=False),
    ]

    class Opened(Message):
        """The learner opened a lesson (Enter or a click)."""

        def __init__(self, lesson_id: str) -> None:
            super().__init__()
            self.lesson_id = lesson_id

    def __init__(
        self, options: list[tuple[str, Content]], highlighted: int = 0, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.options = options
        self.highlighted = self._within(highlighted)

    @property
    def highlighted_id(self) -> str | None:
        return self.options[self.highlighted][0] if self.options else None

    def set_options(self, options: list[tuple[str, Content]], highlighted: int) -> None:
        self.options = options
        self.highlighted = self._within(highlighted)
        self.refresh(layout=True)

    def _within(self, index: int) -> int:
        return min(max(index, 0), max(len(self.options) - 1, 0))

    @property
    def _text_width(self) -> int:
        """Not content_region's: asked while the screen is laid out (for the list's
        height), that made the compositor lay the whole screen out again from inside."""
        return self.outer_size.width - self.styles.gutter.width

    def render(self) -> Content:
        width = self._text_width
        style = HIGHLIGHT if self.has_focus else HIGHLIGHT_BLURRED
        parts = []
        for index, (_, prompt) in enumerate(self.options):
            if index == self.highlighted:  # the whole row marked, under the prompt's styles
                lines = prompt.split("\n")
                padded = [line.pad_right(max(width - cell_len(line.plain), 0)) for line in lines]
                prompt = Content("\n").join(padded).stylize_before(style)
            parts.append(prompt)
        return Content("\n").join(parts)

    def action_move(self, step: int) -> None:
        self.action_move_to(self._within(self.highlighted + step))

    def action_move_to(self, index: int) -> None:
        if self.options:
            self.highlighted = index % len(self.options)
            self.refresh()

    def action_open(self) -> None:
        if self.options:
            self.post_message(self.Opened(self.options[self.highlighted][0]))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        width, top = max(self._text_width, 1), 0
        for index, (_, prompt) in enumerate(self.options):
            top += len(prompt.wrap(width))
            if offset.y < top:
                self.highlighted = index
                self.refresh()
                self.action_open()
                return
