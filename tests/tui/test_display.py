"""What the pages show: the plain-text reading, fact chips beside their prose, long rows,
and the lookup's matrices; every figure checked against the shipped assets."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from rich.cells import cell_len
from textual.widgets import Input, TextArea

from tests.tui.conftest import page_with
from tests.waits import settle
from tutor.core.model import open_model
from tutor.core.tokenize import get_scheme
from tutor.tui.app import TutorApp
from tutor.tui.plain import markdown_to_plain
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.page import Prose
from tutor.tui.screens.reading import ReadingScreen
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.facts import FactStrip
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.lookup import (
    REAL_DIM,
    REAL_SENTENCE_IDS,
    REAL_VOCAB,
    LookupDemo,
    number,
)
from tutor.tui.widgets.rows import ROW_LINES, RowsDemo, token_label

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

LESSON = "embedding"


def test_markdown_reads_as_plain_text_without_markup() -> None:
    source = (
        "## 一张表\n\n"
        "意义在**位置**里，*不*在 `ID` 里；见 [论文](https://example.org/p)。\n\n"
        "- 第一条\n- 第二条 **重**\n\n"
        "1. 先\n2. 后\n\n"
        "| 维度 | 含义 |\n|---|---|\n| V | 词表 |\n"
    )
    assert markdown_to_plain(source) == (
        "一张表\n\n"
        "意义在位置里，不在 ID 里；见 论文 (https://example.org/p)。\n\n"
        "• 第一条\n• 第二条 重\n\n"
        "1. 先\n2. 后\n\n"
        "维度 | 含义\nV | 词表"
    )


async def test_the_plain_text_view_shows_no_markup(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=8)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReadingScreen)
        text = app.screen.query_one(TextArea).text
        assert "在空间中的位置。" in text
        assert "**" not in text and "###" not in text


async def test_a_3000_token_paste_shows_what_fits_and_counts_the_rest(
    make_app: Callable[..., TutorApp],
) -> None:
    pasted = "小明把苹果给了小王" * 500
    tokens = get_scheme("project").encode(pasted)
    assert len(tokens) >= 3000
    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = app.screen.query(RowsDemo).first()
        own = rows.query_one("#own", Input)
        own.focus()
        own.value = pasted
        await pilot.press("enter")
        await settle(pilot)
        assert rows.sentences[-1] == pasted
        shown = rows.query(".tokens").last()
        width = shown.content_region.width
        lines = rows.flows[-1].content(width).plain.split("\n")
        assert 1 <= len(lines) <= ROW_LINES
        assert all(cell_len(line) <= width for line in lines)
        items = [item for line in lines for item in line.split("  ") if item]
        *labels, more = items
        assert labels == [token_label(t) for t in tokens[: len(labels)]]
        assert more == f"…还有 {len(tokens) - len(labels):,} 个 token 未显示"
        # the sentence itself is quoted, not echoed whole
        assert pasted not in str(rows.query(".sentence").last().render())
        assert rows.region.height < 24


async def test_fact_chips_sit_under_the_paragraph_they_back(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        children = list(app.screen.query_one("#body").children)
        strips = [child for child in children if isinstance(child, FactStrip)]
        assert [strip.keys[0] for strip in strips] == [
            "onehot.nonzero_terms",  # the paragraph on one-hot × E
            "qwen38.sentence_tokens",  # the table of T, V and d
            "qwen38.input_table_params",  # the list of what the table costs
        ]
        for strip in strips:
            before = children[children.index(strip) - 1]
            assert isinstance(before, Prose)
            last_paragraph = before.plain_text().split("\n\n")[-1]
            assert all(app.ctx.fact_text(key) in last_paragraph for key in strip.keys)
            assert strip.virtual_region.y == before.virtual_region.bottom


async def test_a_focused_chip_shows_its_whole_source_on_screen(
    make_app: Callable[..., TutorApp],
) -> None:
    for page in (7, 8):
        app = make_app(start_lesson=LESSON, start_page=page)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            body = app.screen.query_one("#body")
            strips = list(app.screen.query(FactStrip))
            seen = set()
            for _stop in range(200):  # more Tab presses than the page has focus stops
                if len(seen) == len(strips):
                    break
                await pilot.press("tab")
                await settle(pilot)
                strip = app.focused
                if not isinstance(strip, FactStrip):
                    continue
                seen.add(id(strip))
                await pilot.press("right")
                await settle(pilot)
                key = strip.keys[strip.selected]
                detail = strip.query_one("#detail")
                shown = str(detail.render()).replace("\n", "")
                assert app.ctx.facts[key].source.replace("\n", "") in shown
                assert body.region.contains_region(strip.region), (page, key)
            assert len(seen) == len(strips)


def test_numbers_never_read_minus_zero() -> None:
    assert [number(v) for v in (-0.001, -0.0, 0.004, -0.126, 0.5)] == [
        "0.00",
        "0.00",
        "0.00",
        "-0.13",
        "0.50",
    ]


async def _lookup_views(make_app: Callable[..., TutorApp], size: tuple[int, int]):
    """The lookup demo on its page at `size`: its small view, then its real-scale view
    after picking the third token, each as the lines drawn and the widths they had."""

    app = make_app(start_lesson=LESSON, start_page=page_with("lookup"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(LookupDemo)
        view = demo.query_one("#view")
        small = (str(view.render()), view.content_region.width, demo.outer_size.height)
        small_reading = demo.plain_text()
        bar = demo.query_one("#token", ChoiceBar)
        bar.focus()
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("right", "right")
        await settle(pilot)
        real = (str(view.render()), view.content_region.width, demo.outer_size.height)
        return demo, app.ctx, small, small_reading, real, bar.index


async def test_the_lookup_multiplies_the_whole_sentence_at_small_scale(
    make_app: Callable[..., TutorApp],
) -> None:
    for size in ((80, 24), (120, 40)):
        demo, _ctx, small, reading, _real, _index = await _lookup_views(make_app, size)
        table = demo.table
        vocab, dim = table.weights.shape
        model = open_model()
        ids = [t.id for t in model.scheme.encode(demo.config.sentence)]
        assert [table.model_ids[local] for local in table.sentence] == ids
        expected = model.table("after").lookup(ids)[:, :dim]
        assert np.array_equal(demo.products(), expected)
        text, width, height = small
        assert "-0.00" not in text and "-0.00" not in reading
        assert max(cell_len(line) for line in text.split("\n")) <= width
        assert height <= size[1] - 2
        for local, row in zip(table.sentence, expected, strict=True):
            ones = " ".join("1" if column == local else "0" for column in range(vocab))
            line = f"{table.pieces[local]}: {ones} → " + " ".join(number(v) for v in row)
            assert line in reading
            assert " ".join(number(v) for v in row) in " ".join(text.split())
        assert f"[{len(ids)} × {vocab}]" in text and f"[{len(ids)} × {dim}]" in text


async def test_the_lookup_at_real_scale_shows_the_picked_tokens_row_of_v(
    make_app: Callable[..., TutorApp],
) -> None:
    for size in ((80, 24), (120, 40)):
        _demo, ctx, _small, _reading, real, index = await _lookup_views(make_app, size)
        text, width, height = real
        vocab = int(ctx.facts[REAL_VOCAB].value)
        dim = int(ctx.facts[REAL_DIM].value)
        picked = ctx.facts[REAL_SENTENCE_IDS].value[index]
        assert index == 2
        assert f"V = {vocab:,}" in text and f"d = {dim:,}" in text
        assert f"{picked:,}" in text and f"{picked - 1:,}" in text and f"{vocab - 1:,}" in text
        assert "…" in text
        assert max(cell_len(line) for line in text.split("\n")) <= width
        assert height <= size[1] - 2


async def test_esc_closes_an_open_chip_before_it_leaves_the_lesson(
    make_app: Callable[..., TutorApp],
) -> None:
    """Esc closes what is open first, as it does a field or the help: the chip's detail,
    then the page; the key line says so while the chip is open."""
    app = make_app(start_lesson=LESSON, start_page=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        page = app.screen
        strip = page.query(FactStrip).first()
        strip.focus()
        await settle(pilot)
        assert strip.query_one("#detail").display
        keys = page.query_one(KeyBar).grouped_keys()
        assert ("esc", "key.close_fact", "收起出处") in keys
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is page and app.focused is not strip
        assert not strip.query_one("#detail").display
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
