"""One definition of CJK text for every caller that is not a build input: the build's own
copy of the ideograph range stays equal to it, and the command line's help breaks lines
where the TUI's wrappers do."""

from __future__ import annotations

import ast
from pathlib import Path

from rich.text import Text

from tutor import cjk
from tutor.cli import _Formatter
from tutor.core import measure
from tutor.tui import cjk_wrap

MIXED = (
    "ID 只是行号；embedding 就是拿这个行号，去一张表里取出那一行向量（一行 64 个数）——仅此而已。"
    "词表【共 8000 行】的每一行都是一个向量〔见附录〕。"
)


def _compared_ranges(function: object) -> list[tuple[str, str]]:
    """The (low, high) of every `low <= x <= high` comparison in a function's source."""
    tree = ast.parse(Path(measure.__file__).read_text(encoding="utf-8"))
    (node,) = [n for n in ast.walk(tree) if getattr(n, "name", None) == function]
    return [
        (c.left.value, c.comparators[1].value)
        for c in ast.walk(node)
        if isinstance(c, ast.Compare)
        and len(c.comparators) == 2
        and isinstance(c.left, ast.Constant)
        and isinstance(c.comparators[1], ast.Constant)
    ]


def test_the_builds_copy_of_the_ideographs_is_the_shared_one() -> None:
    """core/measure.py is a build input and keeps its own range until the next assets
    build: if either side moves, this fails instead of the two counting apart."""
    assert _compared_ranges("_word_facts") == [cjk.IDEOGRAPHS]


def test_which_characters_are_cjk() -> None:
    assert [cjk.has_cjk(c) for c in "中ひカ㐀𠀀ａ１"] == [True] * 7
    assert [cjk.has_cjk(c) for c in "a1，。 é"] == [False] * 6
    assert cjk.has_cjk("embedding 表") and not cjk.has_cjk("embedding, table")


def test_columns_count_wide_as_two_and_combining_marks_as_none() -> None:
    assert cjk.columns("ID 行号") == 7
    assert cjk.columns("（ａ）") == 6
    assert cjk.columns("e\u0301") == 1


def test_the_help_breaks_where_the_tui_wraps() -> None:
    """argparse's help and Rich's wrapper (as the TUI installs it) give the same lines,
    and neither ends a line on "【" nor starts one on "〕"."""
    cjk_wrap.install()
    for width in range(10, 41):
        wrapped = [line.plain.rstrip() for line in Text(MIXED).wrap(_console(), width)]
        helped = _Formatter("tutor")._split_lines(MIXED, width)
        assert helped == wrapped, width
        assert all(cjk.columns(line) <= width for line in helped)
        assert all(line[0] not in cjk.CJK_CLOSING for line in helped[1:])
        assert all(line[-1] not in cjk.CJK_OPENING for line in helped)
        assert "".join(helped).replace(" ", "") == MIXED.replace(" ", "")


def test_a_chunk_wider_than_the_line_stands_alone() -> None:
    assert cjk.split_lines("a supercalifragilistic word", 10) == [
        "a",
        "supercalifragilistic",
        "word",
    ]


def _console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(width=200)
