"""A one-line text field whose typing repaints the field alone, and whose drawing costs
what is on screen, not what was pasted.

Why: Textual's Input records its text width as its virtual size on every change, and
that reactive asks for a layout of the whole screen, although a one-line field's size is
fixed by the stylesheet. On a lesson page that layout was half of a keystroke's CPU; with
fifty learners typing on two cores it decides the latency. The text still scrolls: the
field's own scrolling reads the virtual size, which is kept up to date.

Input also measures and renders its whole value on every frame and cursor move, then crops
what fits: after a 2,000-character paste that was most of a frame. A long value is drawn
here from the characters the field shows, with the cells of each character counted once
per value.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from rich.cells import get_character_cell_size
from rich.text import Text
from textual.geometry import Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

WINDOW_FROM_CHARS = 256  # shorter values are cheap to draw whole, as Input does


class TextField(Input):
    """Also: reaching it by Tab does not select its text, so the first key typed adds to
    the example instead of replacing it."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
        self._cells_for: tuple[str, list[int]] | None = None

    def _cell_ends(self) -> list[int] | None:
        """The cell just after each character of a long plain value; None where Input's
        own drawing is needed (short, tabs, a password, a highlighter, a suggestion)."""
        value = self.value
        if (
            len(value) < WINDOW_FROM_CHARS
            or "\t" in value
            or self.password
            or self.highlighter is not None
            or self._suggestion
        ):
            return None
        if self._cells_for is None or self._cells_for[0] is not value:
            self._cells_for = (value, list(accumulate(map(get_character_cell_size, value))))
        return self._cells_for[1]

    def _position_to_cell(self, position: int) -> int:
        ends = self._cell_ends()
        if ends is None:
            return super()._position_to_cell(position)
        return ends[position - 1] if position > 0 else 0

    @property
    def content_width(self) -> int:
        ends = self._cell_ends()
        return super().content_width if ends is None else ends[-1] + 1

    def render_line(self, y: int) -> Strip:
        ends = self._cell_ends()
        if y != 0 or ends is None:
            return super().render_line(y)
        value = self.value
        width = self.scrollable_content_region.width + 1
        scroll_x = self.scroll_offset.x
        first = bisect_right(ends, scroll_x)  # the character holding the first shown cell
        last = min(len(value), bisect_left(ends, scroll_x + width) + 1)
        skipped_cells = ends[first - 1] if first else 0
        shown = Text(value[first:last], no_wrap=True, overflow="ignore", end="")
        if self.has_focus:
            start, end = sorted(self.selection)
            if start != end and end > first and start < last:
                style = self.get_component_rich_style("input--selection")
                shown.stylize_before(style, max(start - first, 0), min(end, last) - first)
            if self._cursor_visible:
                cursor = self.cursor_position - first
                if self.cursor_at_end and last == len(value):
                    shown.pad_right(1)
                if 0 <= cursor < len(shown):
                    style = self.get_component_rich_style("input--cursor")
                    shown.stylize(style, cursor, cursor + 1)
        options = self.app.console_options.update_width(shown.cell_len + 1)
        strip = Strip(list(self.app.console.render(shown, options)))
        strip = strip.crop(scroll_x - skipped_cells, scroll_x - skipped_cells + width)
        return strip.extend_cell_length(width).apply_style(self.rich_style)


class TypedText:
    """What the learner typed into a page's text fields and chose on its option bars (and
    what a widget was asked, such as the token whose neighbours it shows), so that the page
    built again (the app keeps only its last few page screens) shows it, and the widgets'
    first answers are for it: a widget starts each field and bar with `started_text` or
    `started_choice`, never with the example first. Nothing is written to disk."""

    def __init__(self) -> None:
        self.before: dict[str, str] = {}  # "owner id/key" -> text, from the page's last build
        # (owner, key, example, how to read it: None for the owner's field or bar `#key`)
        self._fields: list[tuple[Widget, str, str, Callable[[], str] | None]] = []

    def start(
        self, owner: Widget, key: str, example: str, read: Callable[[], str] | None = None
    ) -> str:
        self._fields.append((owner, key, example, read))
        return self.before.get(f"{owner.id}/{key}", example) if self.before else example

    def now(self, longest: int) -> dict[str, str]:
        """What the fields hold where it is not their example, each cut at the field's own
        maximum length, at most `longest`; a field not built or mounted (yet) keeps what it
        was given."""
        typed = dict(self.before)
        for owner, key, example, read in self._fields:
            if not owner.is_attached:
                continue
            if read is None:
                found = owner.query(f"#{key}")
                if not found:  # the page left before the owner's parts were mounted
                    continue
                field = found.first()
                limit = min(getattr(field, "max_length", 0) or longest, longest)
                value = str(field.value)[:limit]
            else:
                value = read()[:longest]
            if value == example:
                typed.pop(f"{owner.id}/{key}", None)
            else:
                typed[f"{owner.id}/{key}"] = value
        return typed


def started_text(
    owner: Widget, key: str, example: str = "", read: Callable[[], str] | None = None
) -> str:
    """The text `owner`'s field `#key` starts with (or, given `read`, what `owner` kept
    under `key`): what the learner had there before its page was taken down, else the
    example. (A page screen keeps a TypedText as `typed`; on any other screen a field
    starts with its example.)"""
    typed: TypedText | None = getattr(owner.screen, "typed", None)
    return example if typed is None else typed.start(owner, key, example, read)


def example_field(owner: Widget, example: str, editable: bool, placeholder: str) -> TextField:
    """The `#text` field of a widget that shows an author's example sentence the learner may
    replace (unless the author made it fixed), starting with what they had typed."""
    return TextField(
        value=started_text(owner, "text", example),
        placeholder=placeholder,
        disabled=not editable,
        id="text",
    )


def started_choice(owner: Widget, bar_id: str, values: Sequence[str], index: int = 0) -> int:
    """The option `owner`'s ChoiceBar `#bar_id` starts at: the one the learner had chosen
    before its page was taken down, else `index`."""
    value = started_text(owner, bar_id, values[index])
    return list(values).index(value) if value in values else index
