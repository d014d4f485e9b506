"""What the pages show: the plain-text reading, fact chips beside their prose, long rows,
and the lookup's matrices; every figure checked against the shipped assets."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from rich.cells import cell_len
from textual.widgets import Input, Static, TextArea

from tests.tui.conftest import page_with
from tests.waits import settle
from tutor.core.model import open_model
from tutor.core.paths import content_dir
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
    REAL_SENTENCE_PIECES,
    REAL_VOCAB,
    LookupDemo,
    number,
)
from tutor.tui.widgets.rows import ROW_HEAD, ROW_LINES, RowsDemo, token_label

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


async def test_the_small_lookup_s_ids_are_not_the_sentence_s_positions(
    make_app: Callable[..., TutorApp],
) -> None:
    """The small vocabulary keeps the project model's order (its IDs, ascending), so a
    token's row number is not its place in the sentence; a token the sentence repeats
    gives a repeated one-hot row, and its 1 lands off the diagonal."""
    demo, _ctx, _small, _reading, _real, _index = await _lookup_views(make_app, (120, 40))
    table = demo.table
    assert table.model_ids == sorted(table.model_ids)
    assert table.sentence != list(range(len(table.sentence)))
    repeated = [local for local in set(table.sentence) if table.sentence.count(local) > 1]
    assert repeated
    products = demo.products()
    for local in repeated:
        rows = [products[p] for p, seen in enumerate(table.sentence) if seen == local]
        assert all(np.array_equal(rows[0], row) for row in rows[1:])
    assert any(local != position for position, local in enumerate(table.sentence))
    prose = (content_dir() / LESSON / "07-table.md").read_text(encoding="utf-8")
    assert "不是它在句子里的位置" in prose


async def test_the_real_scale_names_qwen_s_tokens_beside_their_ids(
    make_app: Callable[..., TutorApp],
) -> None:
    """Qwen3.8's IDs are shown with the tokens they stand for (cited with them), in the
    picker and in the drawing."""
    for size in ((80, 24), (120, 40)):
        _demo, ctx, _small, _reading, real, index = await _lookup_views(make_app, size)
        ids = ctx.facts[REAL_SENTENCE_IDS].value
        pieces = str(ctx.facts[REAL_SENTENCE_PIECES].value).split()
        assert len(pieces) == len(ids)
        assert f"「{pieces[index]}」" in real[0]
    app = make_app(start_lesson=LESSON, start_page=page_with("lookup"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        demo = app.screen.query_one(LookupDemo)
        demo.query_one("#scale").focus()
        await pilot.press("s")
        await settle(pilot)
        assert demo.query_one("#token", ChoiceBar).labels == pieces
        reading = demo.plain_text()
        for piece, token_id in zip(pieces, ids, strict=True):
            assert f"{piece} {token_id}" in reading


async def test_page_11_keeps_each_way_of_retraining_whole_at_120_columns(
    make_app: Callable[..., TutorApp],
) -> None:
    """The three ways to retrain are named whole on their line: no label broken inside a
    word (a narrow table column once cut "① 从头预训/练")."""
    app = make_app(start_lesson=LESSON, start_page=11)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lines = [
            strip.text
            for widget in app.screen.query("*")
            if not widget.children and widget.size.area
            for strip in widget.render_lines(widget.size.region)
        ]
        for label in ("① 从头预训练", "② 词表迁移 + 继续训练", "③ 蒸馏"):
            assert any(label in line for line in lines), label


async def test_the_rows_demo_shows_the_row_it_names(make_app: Callable[..., TutorApp]) -> None:
    """苹果→432 is not only a number: the row itself is shown, its first numbers from the
    shipped trained table and how many it holds, under the finding that names it."""
    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        demo = app.screen.query(RowsDemo).first()
        token = demo.config.token
        assert token is not None
        (row,) = {t.id for tokens in demo.rows for t in tokens if t.piece == token}
        table = open_model().table("after")
        head = " ".join(number(v) for v in table.lookup([row])[0][:ROW_HEAD])
        shown = " ".join(str(demo.query_one("#findings").render()).split())
        assert head in shown and f"{table.lookup([row]).shape[1]:,}" in shown
        assert head in " ".join(demo.plain_text().split())


async def test_page_5_says_why_a_third_of_the_tokens_never_occur(
    make_app: Callable[..., TutorApp],
) -> None:
    """Beside "33.9% of the tokens never occur", the page counts the never-seen tokens by
    why, from the shipped tokenizer and training text, and shows an absorbed piece with the
    merge that takes it in (found by that computation, not written by hand)."""
    from tutor.core.merges import unseen_tokens
    from tutor.tui.widgets.unseen import UnseenTokensView

    app = make_app(start_lesson=LESSON, start_page=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(UnseenTokensView)
        unseen = unseen_tokens()
        reading = view.plain_text()
        for count in (unseen.never, unseen.absorbed, unseen.english, unseen.bytes):
            assert f"{count:,}" in reading
        example = unseen.examples[0]
        piece = f"{example.piece}（#{example.id}）"
        pair = [piece, example.partner] if example.first else [example.partner, piece]
        assert f"{' + '.join(pair)} → {example.merged}（#{example.merged_id}）" in reading
        assert f"{example.merged_count:,}" in reading
        shown = str(view.query_one("#lines", Static).render())
        assert f"{example.piece}（#{example.id}）" in shown and f"{unseen.never:,}" in shown
