"""Problems found in lesson files, addressed as `path:line:col` like a compiler's.

Editors and terminals turn `path:line:col` into a jump target, so authors land on the
character at fault; the rendered form adds the line itself with a caret under it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning"]


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

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


def _cells(text: str) -> int:
    """Terminal columns taken by text: CJK characters take two, so the caret lines up."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def render_problem(problem: Problem) -> str:
    """`path:line:col: message`, then the line with a marker under the spot, rustc-style."""
    head = str(problem)
    if not problem.excerpt:
        return f"{head}\n  = {problem.severity}"
    source = problem.excerpt.replace("\t", " ")
    gutter = str(problem.line)
    start = min(problem.col - 1, len(source))
    marked = source[start : start + max(problem.width, 1)] or " "
    pad = " " * _cells(source[:start])
    carets = "^" * max(_cells(marked), 1)
    blank = " " * len(gutter)
    return f"{head}\n{blank} |\n{gutter} | {source}\n{blank} | {pad}{carets} {problem.severity}"
