"""Flow: items side by side (tokens, option labels, fact chips, keys), wrapped between items.

Why: prose may break between any two CJK characters (tutor.tui.cjk_wrap), which is right
for sentences but wrong for a token, an option label or a key's description: "苹果"
split over two lines reads as two tokens. Flow moves a whole item to the next line; only
an item wider than the whole line is wrapped inside.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual


class Flow(Visual):
    """A Textual Visual: give it to `Static.update` or return it from `render`."""

    def __init__(self, items: Iterable[Content | str], gap: int = 2) -> None:
        self.items = [Content(item) if isinstance(item, str) else item for item in items]
        self.gap = gap

    def __str__(self) -> str:
        return (" " * self.gap).join(item.plain for item in self.items)

    def rows(self, width: int) -> list[list[int]]:
        """Indices of the items on each line, each line filled greedily up to `width`."""
        rows: list[list[int]] = [[]]
        used = 0
        for index, item in enumerate(self.items):
            if rows[-1] and used + self.gap + item.cell_length > width:
                rows.append([])
            used = (used + self.gap if rows[-1] else 0) + item.cell_length
            rows[-1].append(index)
        return rows

    def content(self, width: int) -> Content:
        """The items laid out for `width`, one line of Content per row."""
        gap = Content(" " * self.gap)
        lines = [gap.join(self.items[index] for index in row) for row in self.rows(width)]
        return Content("\n").join(lines)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return cell_len(str(self))

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.content(width).get_height(rules, width)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self.content(width).render_strips(width, height, style, options)
