"""Flow: items side by side (tokens, option labels, fact chips, keys), wrapped between items.

Why: prose may break between any two CJK characters (tutor.tui.cjk_wrap), which is right
for sentences but wrong for a token, an option label or a key's description: "苹果"
split over two lines reads as two tokens. Flow moves a whole item to the next line; only
an item wider than the whole line is wrapped inside.

A Flow may be capped at a number of rows: what does not fit is replaced by one last item
that says how many were left out (`more`), so that count is never cropped off the bottom.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from rich.cells import cell_len
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual


class Flow(Visual):
    """A Textual Visual: give it to `Static.update` or return it from `render`."""

    def __init__(
        self,
        items: Iterable[Content | str],
        gap: int = 2,
        *,
        max_rows: int | None = None,
        more: Callable[[int], Content | str] | None = None,
        left_out: int = 0,
    ) -> None:
        """`more(n)` is the last item when n items are not shown: those that do not fit
        `max_rows`, plus `left_out` that the caller never passed in."""
        self.items = [Content(item) if isinstance(item, str) else item for item in items]
        self.gap = gap
        self.max_rows = max_rows
        self.more = more
        self.left_out = left_out
        # Layout is asked for by height, then by render, at the same width: do it once.
        self._laid_out: tuple[int, Content, int | None] | None = None

    def __str__(self) -> str:
        return (" " * self.gap).join(item.plain for item in self.items)

    def rows(self, width: int) -> list[list[int]]:
        """Indices of the items on each line, each line filled greedily up to `width`."""
        return self._rows(self.items, width)

    def _rows(self, items: list[Content], width: int) -> list[list[int]]:
        rows: list[list[int]] = [[]]
        used = 0
        for index, item in enumerate(items):
            if rows[-1] and used + self.gap + item.cell_length > width:
                rows.append([])
            used = (used + self.gap if rows[-1] else 0) + item.cell_length
            rows[-1].append(index)
        return rows

    def shown(self, width: int) -> list[Content]:
        """The items drawn at `width`: all of them, or as many as fit the rows plus `more`."""
        if self.more is None:
            return self.items
        rows = self.rows(width)
        limit = len(rows) if self.max_rows is None else self.max_rows
        if len(rows) <= limit and not self.left_out:
            return self.items
        kept = rows[:limit]
        last = kept[-1]
        count = sum(len(row) for row in kept)
        while True:
            marker = self.more(len(self.items) - count + self.left_out)
            marker = Content(marker) if isinstance(marker, str) else marker
            used = sum(self.items[index].cell_length + self.gap for index in last)
            if not last or used + marker.cell_length <= width:
                return [*self.items[:count], marker]
            last.pop()
            count -= 1

    def content(self, width: int) -> Content:
        """The items laid out for `width`, one line of Content per row."""
        return self._layout(width)[0]

    def _layout(self, width: int) -> tuple[Content, int | None]:
        """The laid-out Content, and its number of lines if every row fits `width` (then
        each row is one line as it stands, and wrapping it again would be wasted work)."""
        if self._laid_out is None or self._laid_out[0] != width:
            items = self.shown(width)
            gap = Content(" " * self.gap)
            rows = self._rows(items, width)
            lines = [gap.join(items[index] for index in row) for row in rows]
            fits = all(line.cell_length <= width for line in lines)
            self._laid_out = (width, Content("\n").join(lines), len(lines) if fits else None)
        return self._laid_out[1], self._laid_out[2]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return cell_len(str(self))

    def get_height(self, rules: RulesMap, width: int) -> int:
        content, lines = self._layout(width)
        if lines is not None and not rules.get("line_pad", 0):
            return lines
        return content.get_height(rules, width)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        content, lines = self._layout(width)
        if lines is not None:
            unwrapped: RulesMap = {
                "text_wrap": "nowrap",
                "text_align": options.rules.get("text_align", "left"),
                "line_pad": options.rules.get("line_pad", 0),
            }
            options = replace(options, rules=unwrapped)
        return content.render_strips(width, height, style, options)
