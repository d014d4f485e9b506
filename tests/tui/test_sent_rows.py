"""A frame sends only the rows the terminal does not show yet (tutor.tui.sent_rows), and
the terminal ends up showing exactly what Textual's whole frames would have drawn."""

from __future__ import annotations

import random

import pyte
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip

from tutor.tui.compat import ChopsUpdate, CompositorUpdate, LayoutUpdate
from tutor.tui.sent_rows import SentRows

WIDTH, HEIGHT = 12, 4
SIZE = Size(WIDTH, HEIGHT)
STYLES = [Style(), Style(bold=True), Style(color="red"), Style(bgcolor="blue")]
CONSOLE = Console(color_system="truecolor", force_terminal=True, width=WIDTH)


def row(text: str, style: Style = STYLES[0]) -> Strip:
    return Strip([Segment(text.ljust(WIDTH)[:WIDTH], style)])


def frame(*texts: str) -> LayoutUpdate:
    """A whole frame of these rows, as Textual draws a screen first."""
    return LayoutUpdate([[row(text)] for text in texts], Region(0, 0, WIDTH, HEIGHT))


def chops(y: int, x: int, strip: Strip) -> ChopsUpdate:
    """One piece at (x, y), as Textual's compositor cuts a row for one widget."""
    lines: list[dict[int, Strip | None]] = [{} for _ in range(HEIGHT)]
    ends: list[list[int]] = [[] for _ in range(HEIGHT)]
    lines[y] = {x: strip}
    ends[y] = [x + strip.cell_length]
    return ChopsUpdate(lines, [(y, x, x + strip.cell_length)], ends)


def sent(update: CompositorUpdate) -> str:
    return update.render_segments(CONSOLE)


def test_a_frame_the_terminal_already_shows_sends_no_row() -> None:
    rows = SentRows()
    first = frame("map", "lesson 1", "lesson 2", "keys")
    assert sent(rows.new_part(first, SIZE)) == sent(first)
    assert sent(rows.new_part(frame("map", "lesson 1", "lesson 2", "keys"), SIZE)) == ""


def test_only_the_rows_that_changed_are_sent() -> None:
    rows = SentRows()
    rows.new_part(frame("map", "lesson 1", "lesson 2", "keys"), SIZE)
    part = sent(rows.new_part(frame("map", "lesson 1 ✓", "lesson 2", "keys"), SIZE))
    assert "lesson 1 ✓" in part
    assert "map" not in part and "lesson 2" not in part and "keys" not in part


def test_a_widget_drawn_again_the_same_sends_nothing_and_a_change_is_sent() -> None:
    rows = SentRows()
    rows.new_part(frame("map", "lesson 1", "lesson 2", "keys"), SIZE)
    same = Strip([Segment("lesson")])  # the same cells, cut in another place
    assert sent(rows.new_part(chops(1, 0, same), SIZE)) == ""
    bold = Strip([Segment("lesson", STYLES[1])])  # the same letters, now bold
    assert "lesson" in sent(rows.new_part(chops(1, 0, bold), SIZE))
    assert sent(rows.new_part(chops(1, 0, bold), SIZE)) == ""


def test_a_new_window_size_or_a_terminal_taken_over_again_gets_the_whole_frame() -> None:
    rows = SentRows()
    whole = frame("map", "lesson 1", "lesson 2", "keys")
    rows.new_part(whole, SIZE, epoch=1)
    assert sent(rows.new_part(whole, SIZE, epoch=2)) == sent(whole)  # after a suspend
    assert sent(rows.new_part(whole, SIZE, epoch=2)) == ""
    wider = LayoutUpdate([[row(t)] for t in ("a", "b", "c", "d")], Region(0, 0, WIDTH + 1, 4))
    assert sent(rows.new_part(wider, Size(WIDTH + 1, HEIGHT), epoch=2)) == sent(wider)


def test_chops_before_any_whole_frame_go_as_they_are() -> None:
    update = chops(2, 3, Strip([Segment("x")]))
    assert SentRows().new_part(update, SIZE) is update


def screen_after(updates: list[CompositorUpdate]) -> list[str]:
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    for update in updates:
        stream.feed(sent(update))
    return [
        "".join(
            f"{char.data}{char.fg}{char.bg}{int(char.bold)}"
            for char in (screen.buffer[y][x] for x in range(WIDTH))
        )
        for y in range(HEIGHT)
    ]


def test_the_terminal_shows_what_textual_s_whole_updates_would_have_drawn() -> None:
    """300 random sequences of whole frames and widget pieces, half of the pieces the cells
    the terminal shows already (cut apart differently): drawn through SentRows and as
    Textual sends them, the terminal ends the same, and a piece that changes nothing
    sends nothing."""
    chance = random.Random(20261202)  # any seed: every sequence must end the same
    for _ in range(300):
        shown = random_cells(chance)
        updates: list[CompositorUpdate] = [whole(shown)]
        same: list[int] = []  # the updates that change nothing
        for _ in range(12):
            if chance.random() < 0.2:
                shown = random_cells(chance)
                updates.append(whole(shown))
                continue
            y, x = chance.randrange(HEIGHT), chance.randrange(WIDTH - 1)
            width = chance.randrange(1, WIDTH - x + 1)
            if chance.random() < 0.5:
                same.append(len(updates))
                cells = shown[y][x : x + width]
            else:
                style = chance.choice(STYLES)
                cells = [(chance.choice("ab"), style) for _ in range(width)]
            shown[y][x : x + width] = cells
            updates.append(chops(y, x, cut_apart(cells, chance)))
        rows = SentRows()
        reduced = [rows.new_part(update, SIZE) for update in updates]
        assert screen_after(reduced) == screen_after(updates)
        assert [sent(reduced[index]) for index in same] == [""] * len(same)


Cells = list[tuple[str, Style]]


def random_cells(chance: random.Random) -> list[Cells]:
    return [
        [(chance.choice("ab"), chance.choice(STYLES)) for _ in range(WIDTH)] for _ in range(HEIGHT)
    ]


def whole(shown: list[Cells]) -> LayoutUpdate:
    return LayoutUpdate(
        [[cut_apart(cells, random.Random(0))] for cells in shown], Region(0, 0, WIDTH, HEIGHT)
    )


def cut_apart(cells: Cells, chance: random.Random) -> Strip:
    """The cells as a strip: runs of one style, some cut in two."""
    segments = []
    for char, style in cells:
        if segments and segments[-1].style == style and chance.random() < 0.7:
            segments[-1] = Segment(segments[-1].text + char, style)
        else:
            segments.append(Segment(char, style))
    return Strip(segments)
