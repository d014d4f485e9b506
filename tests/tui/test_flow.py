"""Flow keeps tokens, option labels and keys whole while prose breaks per CJK character."""

from __future__ import annotations

from itertools import pairwise

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region

from tutor.tui import cjk_wrap
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.flow import Flow

TOKENS = ["小明 339", "把 385", "苹果 534", "给了 463", "小王 341", "。 12", "embedding 9"]


@pytest.fixture(autouse=True)
def installed() -> None:
    cjk_wrap.install()


def lines(flow: Flow, width: int) -> list[str]:
    return flow.content(width).plain.split("\n")


@pytest.mark.parametrize("width", [12, 16, 20, 23, 30, 40, 80])
def test_items_wrap_between_items_and_fill_the_line(width: int) -> None:
    flow = Flow(TOKENS)
    shown = lines(flow, width)
    assert "  ".join(shown) == "  ".join(TOKENS)  # every item whole, in order
    assert all(cell_len(line) <= width for line in shown)
    for line, after in pairwise(shown):
        first = next(token for token in TOKENS if after.startswith(token))
        assert cell_len(line) + 2 + cell_len(first) > width  # it did not fit
    assert flow.get_height({}, width) == len(shown)


def test_plain_prose_would_split_the_same_items() -> None:
    """Why Flow exists: the per-character wrapper alone splits "苹果" at this width."""
    prose = [line.plain for line in Content("  ".join(TOKENS)).wrap(20)]
    assert prose[:2] == ["小明 339  把 385  苹", "果 534  给了 463  小"]
    assert lines(Flow(TOKENS), 20)[:2] == ["小明 339  把 385", "苹果 534  给了 463"]


def test_an_item_wider_than_the_line_is_wrapped_inside_it() -> None:
    flow = Flow(["短", "一个比整行还要宽的选项"], gap=1)
    assert lines(flow, 12) == ["短", "一个比整行还要宽的选项"]
    assert flow.get_height({}, 8) == 4  # 短 / 一个比整 / 行还要宽 / 的选项
    assert flow.get_optimal_width({}, 100) == cell_len("短 一个比整行还要宽的选项")


class ChoiceApp(App[None]):
    def compose(self) -> ComposeResult:
        labels = ["1.码点", "2.字符", "3.词", "4.字符 BPE", "5.字节 BPE", "6.中文优化的词表"]
        yield ChoiceBar(list("abcdef"), labels, caption="表示法的演进", id="bar")


async def test_choice_labels_stay_whole_and_clicks_follow_the_rows() -> None:
    app = ChoiceApp()
    async with app.run_test(size=(40, 6)) as pilot:
        await pilot.pause()
        bar = app.query_one(ChoiceBar)
        width, height = bar.size
        shown = [s.text.rstrip() for s in bar.render_lines(Region(0, 0, width, height))]
        assert shown == [
            "表示法的演进 [1.码点]  2.字符   3.词",
            " 4.字符 BPE   5.字节 BPE",
            " 6.中文优化的词表",
        ]
        await pilot.click(ChoiceBar, offset=(14, 1))  # on "5.字节 BPE"
        assert bar.index == 4
        await pilot.click(ChoiceBar, offset=(3, 2))
        assert bar.index == 5
        await pilot.click(ChoiceBar, offset=(2, 0))  # the caption is not an option
        assert bar.index == 5


def more(hidden: int) -> Content:
    return Content(f"+{hidden}")


@pytest.mark.parametrize("width", [12, 20, 40])
def test_a_capped_flow_ends_its_last_row_with_how_many_are_not_shown(width: int) -> None:
    items = [f"词{n} {n}" for n in range(60)]
    flow = Flow(items, max_rows=3, more=more, left_out=100)
    shown = flow.shown(width)
    drawn = len(shown) - 1
    assert len(lines(flow, width)) == 3
    assert [item.plain for item in shown[:-1]] == items[:drawn]
    assert shown[-1].plain == f"+{60 - drawn + 100}"
    assert lines(flow, width)[-1].endswith(shown[-1].plain)
    one_more = Flow([*items[: drawn + 1], more(60 - drawn - 1 + 100)])
    assert len(one_more.rows(width)) > 3  # as many as fit were drawn


def test_a_flow_that_fits_shows_the_marker_only_for_items_left_out() -> None:
    assert lines(Flow(TOKENS[:2], max_rows=3, more=more), 80) == ["小明 339  把 385"]
    assert lines(Flow(TOKENS[:2], max_rows=3, more=more, left_out=5), 80) == [
        "小明 339  把 385  +5"
    ]
