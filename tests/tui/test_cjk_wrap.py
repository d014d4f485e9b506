"""CJK line breaking (tutor/tui/cjk_wrap.py) through every wrapper the TUI uses.

The hook patches private Textual/Rich internals; the exact lines asserted here are what
fails first if an upgrade moves them (Textual is pinned to 8.2.8, Rich is not pinned).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
import rich._wrap
import textual._wrap
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual._wrap import compute_wrap_offsets
from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region
from textual.widgets.markdown import MarkdownBlock

from tests.tui.conftest import shipped_lesson
from tutor import cjk
from tutor.content.models import MarkdownBlock as ProseBlock
from tutor.tui import cjk_wrap
from tutor.tui.app import TutorApp
from tutor.tui.screens.page import Prose

SENTENCE = (
    "ID 只是行号；embedding 就是拿这个行号，去一张可学习的表里取出一行向量"
    "——one-hot 乘表和直接查表是同一件事。"
)
AT_40 = [
    "ID 只是行号；embedding 就是拿这个行号，",
    "去一张可学习的表里取出一行向量——one-hot",
    "乘表和直接查表是同一件事。",
]
WIDTHS = [23, 30, 40, 50, 60]
LATIN_WORD = re.compile(r"[A-Za-z0-9][\w\-]*")

Wrapper = Callable[[str, int], list[str]]


def content_lines(text: str, width: int) -> list[str]:
    """Static, Label and Markdown wrap through Content."""
    return [line.plain for line in Content(text).wrap(width)]


def rich_lines(text: str, width: int) -> list[str]:
    """Rich renderables (Text) wrap through rich.text.Text.wrap."""
    lines = Text(text).wrap(Console(width=width), width)
    return [line.plain.rstrip() for line in lines]


def text_area_lines(text: str, width: int) -> list[str]:
    """TextArea's soft wrap (the reading view, the summary form) uses textual._wrap."""
    cuts = [0, *compute_wrap_offsets(text, width, tab_size=8), len(text)]
    return [text[start:end].rstrip() for start, end in pairwise(cuts)]


WRAPPERS: dict[str, Wrapper] = {
    "content": content_lines,
    "rich": rich_lines,
    "text_area": text_area_lines,
}


@pytest.fixture(autouse=True)
def installed() -> None:
    cjk_wrap.install()


def check_breaks(text: str, lines: list[str], width: int) -> None:
    """What every wrapped CJK text must satisfy, whatever the width."""
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
    for line in lines:
        assert cell_len(line) <= width, line
    for line, after in pairwise(lines):
        assert after[0] not in cjk.CJK_CLOSING, (line, after)
        assert line[-1] not in cjk.CJK_OPENING, (line, after)
    for word in LATIN_WORD.findall(text):
        if cell_len(word) <= width:
            assert any(word in line for line in lines), word


def check_full(text: str, lines: list[str], width: int) -> None:
    """No line could have taken the first chunk of the next one (Rich's fit rule)."""
    start = 0
    for line, after in pairwise(lines):
        start = text.index(line, start)
        next_start = text.index(after, start + len(line))
        match = cjk_wrap.RICH_WORD.match(after)
        assert match is not None
        first = match.group().rstrip()
        assert cell_len(text[start:next_start]) + cell_len(first) > width, (line, after)
        start = next_start


@pytest.mark.parametrize("wrapper", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_the_mixed_sentence_at_40_cells(wrapper: Wrapper) -> None:
    assert wrapper(SENTENCE, 40) == AT_40


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("wrapper", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_lines_fill_to_the_width(wrapper: Wrapper, width: int) -> None:
    lines = wrapper(SENTENCE, width)
    check_breaks(SENTENCE, lines, width)
    for line in lines[:-1]:
        assert cell_len(line) >= width - 2, (width, line)


def test_chunks_keep_punctuation_with_its_character() -> None:
    words = [word for _, _, word in rich._wrap.words("他说：「你好」，（见上）——f(x) 和 ID。")]
    assert words == ["他", "说：", "「你", "好」，", "（见", "上）", "——", "f(x) ", "和 ", "ID。"]
    chunks = [chunk for _, _, chunk in textual._wrap.chunks(" 前导 a ( b")]
    assert chunks == [" ", "前", "导 ", "a ", "( ", "b"]


@pytest.mark.parametrize("text", ["，", "「", "——", "…", "「」", "   ", "a", "中"])
def test_every_chunk_is_non_empty(text: str) -> None:
    """An empty match would hang the wrappers, so odd inputs must still advance."""
    assert content_lines(text, 1)
    assert text_area_lines(text, 1)


def test_a_latin_word_too_long_for_the_line_is_folded() -> None:
    lines = content_lines("向量 abcdefghijklmnop 中", 6)
    assert lines == ["向量", "abcdef", "ghijkl", "mnop", "中"]


@pytest.mark.parametrize("width", [76, 116])
def test_every_shipped_paragraph_breaks_well(width: int) -> None:
    """The prose a learner reads at 80 and 120 columns (less the page's padding)."""
    checked = 0
    for page in shipped_lesson().pages:
        for block in page.body_blocks:
            if not isinstance(block, ProseBlock):
                continue
            for paragraph in block.text.split("\n"):
                text = paragraph.strip()
                if text:
                    lines = content_lines(text, width)
                    check_breaks(text, lines, width)
                    check_full(text, lines, width)
                    checked += 1
    assert checked > 50


class ProseApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Prose(SENTENCE)


async def test_markdown_widget_wraps_per_character() -> None:
    """Markdown paragraphs (all lesson prose) get the breaks, drawn as they are measured."""
    app = ProseApp()
    async with app.run_test(size=(44, 10)) as pilot:
        await pilot.pause()
        paragraph = app.query_one(MarkdownBlock)
        width, height = paragraph.size
        assert (width, height) == (40, 3)
        strips = paragraph.render_lines(Region(0, 0, width, height))
        assert [strip.text.rstrip() for strip in strips] == AT_40


def test_the_app_installs_the_hook(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(rich._wrap, "re_word", re.compile(r"\s*\S+\s*"))
    monkeypatch.setattr(textual._wrap, "re_chunk", re.compile(r"\S+\s*|\s+"))
    assert content_lines(SENTENCE, 40) != AT_40  # Textual's own breaking, for contrast
    TutorApp(Path(tmp_path), data_dir=tmp_path)
    assert rich._wrap.re_word is cjk_wrap.RICH_WORD
    assert textual._wrap.re_chunk is cjk_wrap.TEXTUAL_CHUNK
    assert content_lines(SENTENCE, 40) == AT_40
