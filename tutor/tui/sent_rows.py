"""What the learner's terminal shows, row by row, so that a frame sends only what changed.

Why: Textual draws a screen's first frame, then redraws it whole (the screen's refresh as
it resumes, every widget's first sizing, focus and key line): the course map reached a
terminal four times as it started, 16 KB for a 4.8 KB screen. Over SSH every byte is
encrypted, relayed and parsed by the learner's terminal, and ten learners connecting at
once wait on each other's. A frame's rows that equal what the terminal already shows
are left out; a frame with nothing new sends only the cursor's place.

The rows kept are the ones this app sent. They are forgotten, and the next frame sent
whole, when the window's size changes or the terminal is taken over again (after a
suspend: `epoch`), since the terminal may then show something else.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.control import Control
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from tutor.tui.compat import ChopsUpdate, CompositorUpdate, LayoutUpdate


class RowsUpdate(CompositorUpdate):
    """Whole rows of a layout update, each at its place (the ones that changed)."""

    def __init__(self, x: int, rows: dict[int, Strip]) -> None:
        self.x = x
        self.rows = rows

    def render_segments(self, console: Console) -> str:
        move_to = Control.move_to
        return "".join(
            move_to(self.x, y).segment.text + strip.render(console)
            for y, strip in self.rows.items()
        )


class SentRows:
    """The terminal's rows as the app last drew them (None: not known)."""

    def __init__(self) -> None:
        self._rows: list[Strip] | None = None
        self._terminal: tuple[Size, object] | None = None

    def new_part(
        self, update: CompositorUpdate, size: Size, epoch: object = None
    ) -> CompositorUpdate:
        """The part of `update` the terminal does not show yet (`size`: the window's;
        `epoch`: changes whenever the terminal is taken over anew)."""
        if self._terminal != (size, epoch):
            self._terminal = (size, epoch)
            self._rows = None
        if isinstance(update, LayoutUpdate):
            return self._layout(update, size)
        if isinstance(update, ChopsUpdate) and self._rows is not None:
            return self._chops(update)
        self._rows = None  # an update of a kind not followed: what it drew is not known
        return update

    def _layout(self, update: LayoutUpdate, size: Size) -> CompositorUpdate:
        region = update.region
        lines = [Strip.join(line) for line in update.strips]
        if self._rows is None:
            if region.x == 0 and region.y == 0 and region.size == size:
                self._rows = lines
            return update
        changed = {}
        for y, line in enumerate(lines, region.y):
            if y < len(self._rows) and self._place(y, region.x, line):
                changed[y] = line
        return RowsUpdate(region.x, changed)

    def _chops(self, update: ChopsUpdate) -> CompositorUpdate:
        """Textual's own update, for the rows that change (placed as it places them)."""
        kept = []
        for y, x1, x2 in update.spans:
            pieces = _pieces(update.chops[y].items(), update.chop_ends[y], x1, x2)
            changed = False
            for x, piece in pieces:
                changed = self._place(y, x, piece) or changed
            if changed:
                kept.append((y, x1, x2))
        if not kept:
            return RowsUpdate(0, {})
        return ChopsUpdate(update.chops, kept, update.chop_ends)

    def _place(self, y: int, x: int, piece: Strip) -> bool:
        """Put `piece` at (x, y) in the kept rows; whether that changed the row. (Other
        letters settle it at once; the same letters cut apart differently are compared
        cell by cell.)"""
        assert self._rows is not None
        row = self._rows[y]
        end = x + piece.cell_length
        there = row.crop(x, end)
        if there == piece or (there.text == piece.text and _cells(there) == _cells(piece)):
            return False
        whole = x == 0 and end >= row.cell_length
        self._rows[y] = piece if whole else Strip.join([row.crop(0, x), piece, row.crop(end)])
        return True


def _cells(strip: Strip) -> list[Segment]:
    """The strip as the terminal draws it: cut in the fewest pieces, no style as the null
    style (two strips can be cut apart differently and still draw the same cells)."""
    return list(Segment.simplify(Segment(text, style or _PLAIN) for text, style, _ in strip))


_PLAIN = Style()


def _pieces(
    line: Iterable[tuple[int, Strip | None]], ends: list[int], x1: int, x2: int
) -> list[tuple[int, Strip]]:
    """The strips a ChopsUpdate writes on one row, where it writes them (its
    render_segments, step for step)."""
    pieces = []
    for end, (x, strip) in zip(ends, line, strict=False):
        if strip is None or x > x2 or end <= x1:
            continue
        if x2 > x >= x1 and end <= x2:
            pieces.append((x, strip))
        else:
            pieces.append((x, strip.crop(0, min(end, x2) - x)))
    return pieces
