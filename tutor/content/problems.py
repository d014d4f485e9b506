"""Problems found in lesson files, addressed as `path:line:col` like a compiler's.

Editors and terminals turn `path:line:col` into a jump target, so authors land on the
character at fault; the rendered form adds the line itself with a caret under it.

A problem's message is English (`tutor check --lang en`, logs); its `code` and `values` let an
interface say the same in its language (tutor.words.problems), as tutor.core.refusal does for
the core's refusals. Three values are said the same way whatever the code: `where` (the
mapping a field is in), `suggestion` (a close name: "did you mean") and `in_widget` (the
widget block the problem is in).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from tutor.cjk import columns
from tutor.core.printable import stand_in
from tutor.core.refusal import Coded

Severity = Literal["error", "warning"]

# Names of the control characters a terminal acts on most visibly.
_CONTROL_NAMES = {0x07: "BEL", 0x08: "BS", 0x0D: "CR", 0x1B: "ESC", 0x9B: "CSI", 0x9D: "OSC"}


def is_control(char: str) -> bool:
    """A C0/C1 control character other than tab: a terminal may act on it, not show it."""
    return char != "\t" and unicodedata.category(char) == "Cc"


def control_name(char: str) -> str:
    """`ESC (U+001B)`: how a problem names a control character."""
    code = ord(char)
    name = _CONTROL_NAMES.get(code)
    return f"{name} (U+{code:04X})" if name else f"U+{code:04X}"


def visible(text: str) -> str:
    """text with each control character replaced by one visible stand-in (U+241B for ESC,
    U+FFFD for C1), so that printing it cannot move the cursor, set a title or ring a bell,
    and a caret under the line still lines up."""
    if not any(is_control(char) for char in text):
        return text
    return "".join(_stand_in(char) if is_control(char) else char for char in text)


def _stand_in(char: str) -> str:
    """One character for one character, so the caret still lines up: C0 and DEL as their
    control pictures (as learner text shows them, tutor.core.printable), C1 as U+FFFD."""
    return "\ufffd" if 0x80 <= ord(char) <= 0x9F else stand_in(char)


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem; `line` and `col` are 1-based, counted in characters of the file."""

    path: Path
    line: int
    col: int
    severity: Severity
    message: str
    excerpt: str = ""  # the source line the problem points into
    width: int = 1  # how many characters the marker underlines
    code: str = ""  # the sentence an interface says it with (`content.<code>`)
    values: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return visible(f"{self.path}:{self.line}:{self.col}: {self.message}")

    def seen_from(self, root: Path) -> Problem:
        """The same problem with its path relative to `root` (the content folder), or only
        the file's name outside it: how a served learner, who has no access to the server's
        folders, is shown it."""
        path = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path.name
        return replace(self, path=Path(path))


class Invalid(Coded, ValueError):
    """A value a content model's validator refuses, with the code and values its problem
    carries (pydantic keeps the error it was raised with)."""


def _cut(text: str, cells: int) -> list[str]:
    """text in pieces of at most `cells` terminal columns each (at least one piece)."""
    pieces, piece, used = [], "", 0
    for char in text:
        width = columns(char)
        if piece and used + width > cells:
            pieces.append(piece)
            piece, used = "", 0
        piece += char
        used += width
    return [*pieces, piece]


def _wrap(text: str, cells: int) -> list[str]:
    """text in lines of at most `cells` columns, broken after spaces where a line allows."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else word
        if columns(joined) <= cells:
            line = joined
            continue
        if line:
            lines.append(line)
        *full, line = _cut(word, cells)
        lines += full
    return [*lines, line]


def render_problem(
    problem: Problem,
    width: int | None = None,
    *,
    message: str | None = None,
    severity: str | None = None,
) -> str:
    """`path:line:col: message`, then the line with a marker under the spot, rustc-style;
    `message` and `severity` in another language than the problem's own English.

    With `width`, no line is wider than width terminal columns: the head wraps, and a long
    source line is cut into pieces with the marker under the piece it points into, so a
    narrow screen neither hides the end of the line nor moves the marker off its spot.
    """
    said = problem.message if message is None else message
    label = problem.severity if severity is None else severity
    head = visible(f"{problem.path}:{problem.line}:{problem.col}: {said}")
    heads = [head] if width is None else _wrap(head, max(width, 1))
    if not problem.excerpt:
        return "\n".join([*heads, f"  = {label}"])
    source = visible(problem.excerpt.replace("\t", " "))
    gutter = str(problem.line)
    blank = " " * len(gutter)
    start = min(problem.col - 1, len(source))
    marked = source[start : start + max(problem.width, 1)] or " "
    room = columns(source) + 1 if width is None else max(width - len(gutter) - 3, 8)
    lines = [*heads, f"{blank} |"]
    offset = 0
    pieces = _cut(source, room)
    if start == len(source) and columns(pieces[-1]) >= room:  # the spot after a full piece
        pieces.append("")
    for number, piece in enumerate(pieces):
        lines.append(f"{gutter if number == 0 else blank} | {piece}")
        end = offset + len(piece)
        if offset <= start < end or (start == end == len(source) and number == len(pieces) - 1):
            pad = columns(piece[: start - offset])
            carets = "^" * max(min(columns(marked), room - pad), 1)
            marker = f"{blank} | {' ' * pad}{carets}"
            if width is not None and columns(marker) + 1 + columns(label) > width:
                # on a line of its own, moved left if it would run past the width: a wider
                # line would be wrapped by the screen, which sizes the report by its lines
                under = min(pad, max(room - columns(label), 0))
                lines += [marker, f"{blank} | {' ' * under}{label}"]
            else:
                lines.append(f"{marker} {label}")
        offset = end
    return "\n".join(lines)
