"""The training page's map drawn in text: each recorded token at its place on the run's
fixed plane (tutor.core.projection), with the 男→女 pairs and the names' 他→她 split as
arrows. Names are written by their given name's character and pairs in full, the other
kinds by a glyph each, so the map reads the same without colour."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content

# each kind's glyph and colour; a name is written as its own character instead
KIND_MARKS: dict[str, tuple[str, str]] = {
    "animals": ("*", "#bcbd22"),
    "fruits": ("o", "#2ca02c"),
    "vehicles": ("#", "#9467bd"),
}
OTHER_MARK = (".", "#7f7f7f")
HE, SHE = "#1f77b4", "#ff7f0e"  # the names and pair words followed by 他, and by 她


@dataclass(frozen=True, slots=True)
class Mark:
    """What is written at a point: a glyph, a name's character or a pair's word."""

    text: str
    style: str
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Arrow:
    start: tuple[float, float]
    end: tuple[float, float]
    style: str


class Canvas:
    """Cells of text, a wide (CJK) character taking two, later writes over earlier ones;
    a mark goes to the nearest free place beside its point rather than over another."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[tuple[str, str] | None]] = [
            [(" ", "")] * width for _ in range(height)
        ]
        self.taken: set[tuple[int, int]] = set()

    def place(self, column: int, row: int, text: str, style: str) -> None:
        """`text` at the free place nearest (column, row): the same row first, then the
        rows above and below, a mark's width aside at a time."""
        size = cell_len(text)
        for distance in range(max(self.width, self.height)):
            for dc, dr in _around(distance, size):
                c = max(0, min(column + dc, self.width - size))
                r = max(0, min(row + dr, self.height - 1))
                cells = {(c + n, r) for n in range(size)}
                if not cells & self.taken:
                    self.taken |= cells
                    self.put(c, r, text, style)
                    return

    def put(self, column: int, row: int, text: str, style: str) -> None:
        if not 0 <= row < self.height:
            return
        line = self.cells[row]
        column = max(0, min(column, self.width - cell_len(text)))
        for char in text:
            size = cell_len(char)
            if column + size > self.width:
                return
            if line[column] is None and column > 0:  # over a wide character's right half
                line[column - 1] = (" ", "")
            end = column + size
            if end < self.width and line[end] is None:  # over a wide character's left half
                line[end] = (" ", "")
            line[column] = (char, style)
            if size == 2:
                line[column + 1] = None
            column = end

    def content(self) -> Content:
        parts: list[tuple[str, str]] = []
        for line in self.cells:
            parts += [cell for cell in line if cell is not None]
            parts.append(("\n", ""))
        return Content.assemble(*parts[:-1])


def _around(distance: int, size: int) -> list[tuple[int, int]]:
    """Offsets `distance` steps from a point, a step being a row or a mark's width."""
    if distance == 0:
        return [(0, 0)]
    ring = [
        (dc * size, dr)
        for dr in range(-distance, distance + 1)
        for dc in range(-distance, distance + 1)
        if max(abs(dc), abs(dr)) == distance
    ]
    return sorted(ring, key=lambda o: (abs(o[1]), abs(o[0])))


def draw(
    marks: Sequence[Mark],
    arrows: Sequence[Arrow],
    low: tuple[float, float],
    high: tuple[float, float],
    width: int,
    height: int,
) -> Content:
    """The marks and arrows on a `width` x `height` canvas that holds low..high: each axis
    fills the canvas (the plane's axes are not alike, and the arrows run across)."""
    canvas = Canvas(width, height)
    margin = 4  # room for a pair's word at the right edge
    across = (width - margin - 1) / max(high[0] - low[0], 1e-9)
    down = (height - 1) / max(high[1] - low[1], 1e-9)

    def cell(x: float, y: float) -> tuple[int, int]:
        return round((x - low[0]) * across), round((high[1] - y) * down)

    for arrow in arrows:
        (c0, r0), (c1, r1) = cell(*arrow.start), cell(*arrow.end)
        steps = max(abs(c1 - c0), abs(r1 - r0))
        path = [
            (round(c0 + (c1 - c0) * i / steps), round(r0 + (r1 - r0) * i / steps))
            for i in range(1, steps)
        ]
        for column, row in path:
            canvas.put(column, row, "·", arrow.style)
        if path:
            head = ">" if c1 > c0 else "<"
            if 2 * abs(r1 - r0) > abs(c1 - c0):
                head = "v" if r1 > r0 else "^"
            canvas.put(*path[-1], head, arrow.style)
    for mark in sorted(marks, key=lambda m: cell_len(m.text) > 1):  # words over glyphs
        canvas.place(*cell(mark.x, mark.y), mark.text, mark.style)
    return canvas.content()
