"""Build what the first screen shows before the rest of a page.

Turning to a page never seen before built every widget on it before the first frame; on
the heaviest page that took about a quarter of a second. What fills the first screen is
built at once; what lies below it is built right after that first frame (`Later`, after
Textual's `Lazy`), while the learner reads the top. The heights counted are lower bounds,
so the first frame is never missing anything it would show.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator

from rich.cells import cell_len
from textual.lazy import Lazy
from textual.widget import Widget

# Patterns that cannot backtrack over a long run of one character (a page's text is any
# text `tutor check` lets through): a link's text and address stop at the next bracket or
# parenthesis, and a table's rule row is any row of blanks, ':', '|' and '-' alone.
_LINK = re.compile(r"\[([^\[\]]*)\]\([^()]*\)")
_MARKUP = re.compile(r"[*_`#>|]")
_TABLE_RULE = re.compile(r"[\s:|-]+")


def least_markdown_lines(source: str, width: int) -> int:
    """Fewest lines `source` can take when rendered `width` cells wide: each paragraph
    at least its visible characters over the width, each table row at least one line."""
    lines = 0
    for paragraph in re.split(r"\n\s*\n", source):
        rows = [row for row in paragraph.splitlines() if row.strip()]
        if not rows:
            continue
        if rows[0].lstrip().startswith("|"):
            lines += sum(1 for row in rows if not _TABLE_RULE.fullmatch(row))
            continue
        visible = sum(cell_len(_MARKUP.sub("", _LINK.sub(r"\1", row)).strip()) for row in rows)
        lines += max(1, math.ceil(visible / max(width, 1)))
    return lines


def least_lines(widget: Widget, width: int) -> int:
    """A widget that knows its smallest height says so; any other takes at least a line."""
    measure = getattr(widget, "least_lines", None)
    return int(measure(width)) if callable(measure) else 1


class Later(Lazy):
    """Textual's `Lazy`, which gives up when the page has gone before its first frame (a
    stop right after a page opens): Lazy mounted into the removed page and raised."""

    def __init__(self, widget: Widget) -> None:
        super().__init__(widget)
        self._later = widget

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return

        async def mount() -> None:
            if parent.is_attached:
                await parent.mount(self._later, after=self)
                await self.remove()

        self.call_after_refresh(mount)


def first_screen_first(
    widgets: Iterable[Widget], width: int, height: int, later: list[Widget]
) -> Iterator[Widget]:
    """`widgets` in order: those needed to fill `height` lines as they are, the rest lazy
    (and listed in `later`)."""
    filled = 0
    for widget in widgets:
        if filled >= height:
            later.append(widget)
            yield Later(widget)
        else:
            yield widget
            filled += least_lines(widget, width)
