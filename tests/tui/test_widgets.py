"""Every widget answers the keyboard and shows what the core computes, on the shipped lesson."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from rich.cells import cell_len
from textual import events
from textual.geometry import Region
from textual.widgets import Input, Static

from tests.tui.conftest import LESSON, app_for, page_with
from tests.waits import settle
from tutor.core.model import open_model
from tutor.core.paths import default_model_dir
from tutor.core.similarity import analogy, nearest, similarity
from tutor.core.tokenize import MAX_TEXT_CHARS, get_scheme
from tutor.tui.app import TutorApp
from tutor.tui.widgets import token_strip
from tutor.tui.widgets.analogy import AnalogyDemo
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.facts import FactStrip
from tutor.tui.widgets.heatmap import Heatmap
from tutor.tui.widgets.lookup import REAL_DIM, REAL_VOCAB, LookupDemo
from tutor.tui.widgets.neighbours import BYTES, WORKING_AFTER_S, NeighboursPanel
from tutor.tui.widgets.path import RepresentationPath
from tutor.tui.widgets.pipeline import PipelineStrip
from tutor.tui.widgets.rows import RowsDemo
from tutor.tui.widgets.token_strip import PIECE_ROWS, TokenStrip

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def focus(pilot, widget) -> None:
    widget.focus()
    await settle(pilot)


async def test_token_strip_tokenizes_as_you_type_and_switches_scheme(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        first_scheme = strip.config.schemes[0]
        expected = get_scheme(first_scheme).encode(strip.config.text)
        assert [(t.piece, t.id) for t in strip.result.tokens] == [(t.piece, t.id) for t in expected]

        text_input = strip.query_one("#text", Input)
        await focus(pilot, text_input)
        text_input.value = ""
        await pilot.press(*"猫和狗")
        await settle(pilot)
        assert strip.result.text == "猫和狗"
        assert strip.result.tokens == get_scheme(first_scheme).encode("猫和狗")

        await focus(pilot, strip.query_one("#scheme", ChoiceBar))
        await pilot.press("right")
        await settle(pilot)
        second = strip.config.schemes[1]
        assert strip.result.scheme == second
        assert strip.result.tokens == get_scheme(second).encode("猫和狗")
        assert f"{second}: 3 个字符" in strip.plain_text()


async def test_a_100000_character_paste_is_tokenized_and_one_more_is_refused(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        text_input = strip.query_one("#text", Input)
        await focus(pilot, text_input)
        text_input.value = ""
        pasted = ("小明把苹果给了小王。" * 10_000)[:MAX_TEXT_CHARS]
        text_input.post_message(events.Paste(pasted))
        await settle(pilot)
        assert strip.result is not None
        assert len(strip.result.text) == MAX_TEXT_CHARS
        expected = get_scheme(strip.scheme).encode(pasted)
        assert len(strip.result.tokens) == len(expected)
        assert "100,000 个字符" in strip.plain_text()
        # the pieces fill their rows and the last row says how many are not drawn
        pieces = strip.query_one("#pieces", Static)
        width, height = pieces.size
        lines = [s.text.rstrip() for s in pieces.render_lines(Region(0, 0, width, height))]
        assert height == PIECE_ROWS
        drawn = len(pieces.render().shown(width)) - 1
        assert lines[-1].endswith(f"…还有 {len(expected) - drawn:,} 个 token 未显示")

        text_input.post_message(events.Paste("猫"))
        await settle(pilot)
        assert strip.result is None
        assert "100,001" in strip.error and "100,000" in strip.error
        assert "无法切分" in strip.plain_text()


async def test_neighbours_pick_type_and_show_ties(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        model = open_model()
        first = panel.config.tokens[0]
        assert panel.token == first
        for answer in panel.answers:
            assert answer.result == nearest(model, first, answer.scheme, panel.config.k)

        await focus(pilot, panel.query_one("#choice", ChoiceBar))
        await pilot.press("right")
        await settle(pilot)
        second = panel.config.tokens[1]
        assert panel.token == second
        assert panel.answers[0].result.piece == second

        other = panel.query_one("#other", Input)
        await focus(pilot, other)
        await pilot.press(*"小王", "enter")
        await settle(pilot)
        assert panel.token == "小王"
        reading = panel.plain_text()
        assert {"id", "onehot"} <= set(panel.config.schemes)  # the page's two naive schemes
        onehot = next(a for a in panel.answers if a.scheme == "onehot")
        assert all(n.rank == 1 for n in onehot.result.neighbours)
        assert f"全部 {onehot.result.tie_count:,} 个其他 token 并列第 1" in reading
        id_answer = next(a for a in panel.answers if a.scheme == "id")
        assert id_answer.result.neighbours[0].score == 1.0
        assert "=1" in "".join(panel._column(id_answer))


async def test_neighbours_name_the_pieces_of_a_token_that_splits(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        panel.ask_about("小明把苹果给了小王")
        await settle(pilot)
        assert all(answer.result is None for answer in panel.answers)
        assert "不是一个 token" in panel.answers[0].error and "切成" in panel.answers[0].error


async def test_lookup_product_equals_the_row_and_scale_toggles(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("lookup"))
    async with app.run_test() as pilot:
        await settle(pilot)
        demo = app.screen.query_one(LookupDemo)
        table = demo.table
        assert table.weights.shape == (demo.config.small_vocab, demo.config.small_dim)
        model = open_model()
        rows = model.table("after").lookup(table.model_ids)[:, : demo.config.small_dim]
        assert np.array_equal(table.weights, rows)

        await focus(pilot, demo.query_one("#token", ChoiceBar))
        await pilot.press("right", "right")
        await settle(pilot)
        row = table.sentence[2]
        assert demo.position == 2
        assert np.array_equal(demo.products()[2], table.weights[row])
        assert f"「{table.pieces[row]}」的 1 在第 {row} 列" in demo.plain_text()

        await pilot.press("s")
        await settle(pilot)
        assert demo.real_scale
        facts = app.ctx.facts
        reading = demo.plain_text()
        assert f"{int(facts[REAL_VOCAB].value):,}" in reading
        assert f"{int(facts[REAL_DIM].value):,}" in reading


async def test_heatmap_before_after_numbers_and_cursor(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test() as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        model = open_model()
        start = heatmap.config.stage
        _, expected = similarity(model, heatmap.config.tokens, start)
        assert np.allclose(heatmap.matrix, expected)

        await focus(pilot, heatmap)
        await pilot.press("s")
        await settle(pilot)
        other = "after" if start == "before" else "before"
        assert heatmap.stage == other
        _, expected_other = similarity(model, heatmap.config.tokens, other)
        assert np.allclose(heatmap.matrix, expected_other)

        await pilot.press("down", "right", "right")
        assert heatmap.cursor == (1, 3)
        pieces = heatmap.pieces
        assert heatmap.cell_text(1, 3).startswith(f"「{pieces[1]}」 × 「{pieces[3]}」")
        assert f"{expected_other[1, 3]:.3f}" in heatmap.cell_text(1, 3)

        await pilot.press("v")
        assert heatmap.numbers
        assert "余弦 × 100" in str(heatmap.render())
        reading = heatmap.plain_text()
        assert reading.splitlines()[1].startswith(f"{pieces[0]}: {pieces[1]} ")


async def test_pipeline_path_rows_analogy_and_facts(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("pipeline"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(PipelineStrip)
        assert strip.plain_text().startswith("本课在：Embedding")

    app = make_app(start_lesson=LESSON, start_page=page_with("path"))
    async with app.run_test() as pilot:
        await settle(pilot)
        path = app.screen.query_one(RepresentationPath)
        await focus(pilot, path.query_one("#stages", ChoiceBar))
        await pilot.press("right")
        await settle(pilot)
        second = path.config.stages[1]
        assert path.stage == second
        detail = str(path.query_one("#detail").render())
        assert app.ctx.fill_facts(second.solved) in detail
        assert "{{fact:" not in detail
        strips = list(path.query(FactStrip))
        assert len(strips) == 1
        await focus(pilot, strips[0])
        key = strips[0].keys[0]
        fact = app.ctx.facts[key]
        shown = str(strips[0].query_one("#detail").render())
        assert fact.source in shown and "证据" in shown

    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test() as pilot:
        await settle(pilot)
        rows = app.screen.query(RowsDemo).first()
        scheme = get_scheme("project")
        token = rows.config.token
        row = scheme.single_id(token)
        assert f"「{token}」在每句里都取第 {row} 行" in rows.plain_text()
        own = rows.query_one("#own", Input)
        await focus(pilot, own)
        await pilot.press(*f"我喜欢{token}", "enter")
        await settle(pilot)
        assert rows.sentences[-1] == f"我喜欢{token}"
        assert f"「{token}」在每句里都取第 {row} 行" in rows.plain_text()
        reordered = app.screen.query(RowsDemo).last()
        a, b = reordered.config.sentences
        assert f"「{a}」和「{b}」取到的是同一组行" in reordered.plain_text()

    app = make_app(start_lesson=LESSON, start_page=page_with("analogy"))
    async with app.run_test() as pilot:
        await settle(pilot)
        demo = app.screen.query_one(AnalogyDemo)
        config = demo.config
        model = open_model()
        assert demo.found == analogy(model, config.a, config.b, config.c, "after", config.k)
        await focus(pilot, demo.query_one("#stage", ChoiceBar))
        await pilot.press("right")
        await settle(pilot)
        assert demo.stage == "before"
        assert demo.found == analogy(model, config.a, config.b, config.c, "before", config.k)


async def test_the_rows_verdict_follows_the_sentences_on_screen(
    make_app: Callable[..., TutorApp],
) -> None:
    """A sentence without the token must not leave "in every sentence" standing."""
    app = make_app(start_lesson=LESSON, start_page=page_with("rows"))
    async with app.run_test() as pilot:
        await settle(pilot)
        rows = app.screen.query(RowsDemo).first()
        token = rows.config.token
        row = get_scheme("project").single_id(token)
        own = rows.query_one("#own", Input)
        await focus(pilot, own)
        await pilot.press(*"我喜欢香蕉", "enter")
        await settle(pilot)
        assert rows.sentences[-1] == "我喜欢香蕉"
        reading = rows.plain_text()
        assert "我喜欢香蕉" in reading and "在每句里都取" not in reading
        count = len(rows.sentences) - 1
        assert f"「{token}」在含它的 {count} 句里都取第 {row} 行" in reading
        assert f"「我喜欢香蕉」里没有「{token}」" in reading


async def test_the_token_field_scrolls_to_its_cursor_past_its_width(
    make_app: Callable[..., TutorApp],
) -> None:
    """The field skips Input's page layout per key; its own scrolling must still follow."""
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        field = strip.query_one("#text", Input)
        await focus(pilot, field)
        field.value = ""
        await pilot.press(*"小明把苹果给了小王" * 6)
        await settle(pilot)
        assert field.scroll_x > 0
        assert field.region.contains_point(field.cursor_screen_offset)
        assert strip.result is not None and strip.result.text == "小明把苹果给了小王" * 6


async def test_a_key_in_the_token_field_repaints_without_laying_out_the_page(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-key CPU decides latency for many learners on two cores: no page layout per key."""
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        await focus(pilot, strip.query_one("#text", Input))
        await pilot.press("end")
        await settle(pilot)
        layouts: list[object] = []
        screen = app.screen
        refresh_layout = screen._refresh_layout
        monkeypatch.setattr(
            screen, "_refresh_layout", lambda *a, **k: layouts.append(a) or refresh_layout(*a, **k)
        )
        await pilot.press("a")
        await settle(pilot)
        assert strip.result is not None and strip.result.text.endswith("a")
        await pilot.press("backspace")
        await settle(pilot)
        assert layouts == []


async def test_long_text_within_the_budget_is_answered_with_its_echo(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a long run has shown what the scheme costs, text predicted within the budget
    needs no thread hop (and no extra frame): the answer is there as the field's value
    changes. Text predicted over it goes to a worker, so typing never waits for it. The
    budget is set here, so the outcome does not hang on this machine's speed."""
    app = make_app(start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        strip = app.screen.query_one(TokenStrip)
        text_input = strip.query_one("#text", Input)
        texts = [("猫和狗在公园里玩。" * 300)[offset : offset + 2_000] for offset in range(3)]
        monkeypatch.setattr(token_strip, "INLINE_BUDGET_S", 60.0)
        text_input.value = texts[0]  # the first long run, in a worker, measures the cost
        assert strip.pending
        await settle(pilot)
        text_input.value = texts[1]
        assert strip.result is not None and strip.result.text == texts[1]  # no await
        assert not strip.pending

        monkeypatch.setattr(token_strip, "INLINE_BUDGET_S", 0.0)
        text_input.value = texts[2]
        assert strip.pending
        await settle(pilot)
        assert strip.result is not None and strip.result.text == texts[2]


async def test_a_widget_that_computes_can_still_take_focus_and_keys(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual leaves a widget whose `loading` is true out of focus and keys: the heatmap
    computing its first stage must still take the focus and its keys."""
    from tutor.core import similarity as core_similarity

    release = threading.Event()
    real = core_similarity.similarity

    def held(*args, **kwargs):  # the real computation, once the test has looked
        release.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(core_similarity, "similarity", held)
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test() as pilot:
        heatmap = app.screen.query_one(Heatmap)
        heatmap.focus()
        await pilot.pause()
        try:
            assert heatmap.matrix is None  # still computing
            assert heatmap.focusable and app.focused is heatmap
            await pilot.press("down")
            assert heatmap.cursor == (1, 1)
        finally:
            release.set()
        await settle(pilot)
        assert heatmap.matrix is not None


async def test_a_quick_neighbour_answer_is_not_announced_as_working(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        heading = panel.query_one("#heading", Static)
        shown: list[str] = []
        update = heading.update
        monkeypatch.setattr(
            heading,
            "update",
            lambda content, **k: shown.append(str(content)) or update(content, **k),
        )
        panel.ask_about("狗")
        await settle(pilot)
        await pilot.pause(WORKING_AFTER_S + 0.1)
        assert panel.token == "狗" and not panel.pending
        assert shown and all("狗" in text for text in shown)


@pytest.mark.parametrize("animate", [True, False])
async def test_text_cursors_blink_only_where_the_app_animates(animate: bool, data_dir) -> None:
    """Served sessions run without animation: a blinking cursor would redraw twice a second
    for every idle learner. A local learner keeps Textual's blinking cursor."""
    app = app_for(data_dir, animate=animate, start_lesson=LESSON, start_page=page_with("tokens"))
    async with app.run_test() as pilot:
        await settle(pilot)
        field_ = app.screen.query_one(TokenStrip).query_one("#text", Input)
        await focus(pilot, field_)
        assert field_.cursor_blink is animate


async def test_the_heatmap_has_the_other_stage_ready_before_s_is_pressed(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test() as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        assert set(heatmap.matrices) == {"before", "after"}
        _, expected = similarity(open_model(), heatmap.config.tokens, "after")
        assert np.allclose(heatmap.matrices["after"], expected)


async def test_a_model_without_its_initial_table_fails_only_the_before_stage(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    model_dir = tmp_path / "model"  # the shipped model, without its initial table
    shutil.copytree(default_model_dir(), model_dir)
    (model_dir / "embeddings_before.safetensors").unlink()
    app = make_app(model_dir=model_dir, start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test() as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        heatmap.stage = "after"
        await settle(pilot)
        assert heatmap.matrix is not None and heatmap.error == ""  # the failed prefetch hides
        heatmap.stage = "before"
        await settle(pilot)
        assert heatmap.matrix is None and heatmap.error
        assert heatmap.error in str(heatmap.render())


async def test_neighbour_lists_show_each_neighbours_id(
    make_app: Callable[..., TutorApp],
) -> None:
    """With the IDs beside them, "only numerically adjacent" can be seen in the ID column;
    a piece that is bytes of a character says so."""
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        id_answer = next(a for a in panel.answers if a.scheme == "id")
        cells = panel._column(id_answer)
        for cell, neighbour in zip(cells, id_answer.result.neighbours, strict=True):
            assert f"#{neighbour.id}" in cell
        token_id = id_answer.result.id
        assert all(abs(n.id - token_id) <= 3 for n in id_answer.result.neighbours)
        assert any(BYTES.fullmatch(n.piece) for n in id_answer.result.neighbours)  # 猫's
        assert "是一个字的 UTF-8 编码里的几个字节" in panel.plain_text()


async def test_heatmap_numbers_are_each_set_apart_at_80_columns(
    make_app: Callable[..., TutorApp],
) -> None:
    """In numbers mode every cell reads as one number: "-6-19" would read as one. The grid
    stays within the terminal; columns that do not fit come into view with the cursor."""
    app = make_app(start_lesson=LESSON, start_page=page_with("heatmap"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        await focus(pilot, heatmap)
        await pilot.press("v")
        await settle(pilot)
        seen: dict[tuple[int, int], int] = {}
        for _ in range(len(heatmap.pieces)):  # the cursor walks the first row's columns
            lines = str(heatmap.render()).splitlines()
            header = [word for word in lines[2].split() if word not in "←→"]
            assert all(cell_len(line) <= heatmap.content_size.width for line in lines)
            for line in lines[3:]:
                label = line.split()[:2]
                if not label or not label[0].isdigit() or len(label) < 2:
                    break
                cells = line.split()[2:]
                assert len(cells) == len(header), line  # each cell its own word
                for column, cell in zip(header, cells, strict=True):
                    if cell != "██":
                        seen[int(label[0]), int(column)] = int(cell)
            await pilot.press("right")
        assert heatmap.matrix is not None
        size = len(heatmap.pieces)
        assert {column for _, column in seen} == set(range(1, size + 1))
        assert min(seen.values()) <= -10  # two-digit negatives are among those read
        for (row, column), shown in seen.items():
            assert shown == round(float(heatmap.matrix[row - 1, column - 1]) * 100)


def test_the_columns_the_prose_points_to_are_the_neighbour_panels_titles() -> None:
    """ "看「按 ID 差」一栏": a learner looks for the column by the words the page uses."""
    import re

    from tutor.core.paths import content_dir
    from tutor.words.i18n import t

    titles = {t(f"nb.scheme.{scheme}", "zh") for scheme in ("id", "onehot", "before", "after")}
    pointed = [
        match.group(1) or match.group(2)
        for path in sorted((content_dir() / LESSON).glob("*.md"))
        for match in re.finditer(r"「([^」]+)」一栏|([\w()（）-]+)\s*一栏", path.read_text())
    ]
    assert pointed and set(pointed) <= titles, pointed


async def test_an_emptied_neighbour_field_shows_the_chosen_tokens_neighbours_again(
    make_app: Callable[..., TutorApp],
) -> None:
    """A refused token's message stayed under a field the learner had emptied and entered:
    what is shown is for what is on screen, the token chosen on the bar."""
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        shown_first = list(panel.answers)
        field = panel.query_one("#other", Input)
        await focus(pilot, field)
        await pilot.press(*"qwertyuiop", "enter")
        await settle(pilot)
        assert all(answer.result is None for answer in panel.answers)
        await pilot.press("ctrl+u", "enter")
        await settle(pilot)
        assert field.value == ""
        assert panel.token == panel.query_one("#choice").value
        assert panel.answers == shown_first


async def test_neighbour_ties_are_explained_and_hidden_ones_counted(
    make_app: Callable[..., TutorApp],
) -> None:
    """A rank marked "=" has a legend line; a tie running past the list says how many are
    left out, and no tie line appears when none is; a byte piece is said to be bytes,
    not a rare character (猫's neighbour <E6 95> begins common characters)."""
    app = make_app(start_lesson=LESSON, start_page=page_with("neighbours"))
    async with app.run_test() as pilot:
        await settle(pilot)
        panel = app.screen.query_one(NeighboursPanel)
        for token in ("猫", "小王", "狗"):
            panel.ask_about(token)
            await settle(pilot)
            reading = panel.plain_text()
            marked = any(
                cell.lstrip().startswith("=") for a in panel.answers for cell in panel._column(a)
            )
            assert ("「=」表示" in reading) == marked, token
            for answer in panel.answers:
                label = app.ctx.t(f"nb.scheme.{answer.scheme}")
                notes = [line for line in panel._notes() if line.startswith(f"{label}: ")]
                hidden = answer.result.ties_left_out
                all_tied = all(n.rank == 1 for n in answer.result.neighbours)
                if hidden > 0 and not all_tied:
                    assert any(f"另有 {hidden:,} 个" in line for line in notes), (token, notes)
                if hidden == 0:
                    assert not notes, (token, notes)
            assert "不常见的字" not in reading
