"""The one-line text field draws only the part of a long value that is on screen, and
draws it exactly as Textual's Input draws the whole value."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Input

from tutor.tui.widgets.field import TextField

WIDTH = 30
MIXED = "小明把苹果给了小王。The cat sat on the mat, 猫坐在垫子上！" * 40  # 2 and 1 cell wide


class FieldApp(App[None]):
    CSS = f"TextField {{ width: {WIDTH}; }}"

    def compose(self) -> ComposeResult:
        yield TextField(id="field")


async def test_a_long_value_hands_the_console_only_the_visible_characters() -> None:
    app = FieldApp()
    async with app.run_test(size=(60, 5)) as pilot:
        field = app.query_one(TextField)
        field.focus()
        field.insert_text_at_cursor("猫" * 100_000)
        await pilot.pause()
        rendered: list[int] = []
        console_render = app.console.render

        def recording(renderable, options=None):  # type: ignore[no-untyped-def]
            if isinstance(renderable, Text):
                rendered.append(len(renderable.plain))
            return console_render(renderable, options)

        app.console.render = recording  # type: ignore[method-assign]
        strip = field.render_line(0)
        assert rendered and max(rendered) <= WIDTH + 2
        assert strip.cell_length == field.scrollable_content_region.width + 1


@pytest.mark.parametrize("value", [MIXED, "ab" * 300, "猫" * 300, MIXED[:300]])
async def test_every_cursor_and_selection_draws_as_input_draws_it(value: str) -> None:
    app = FieldApp()
    async with app.run_test(size=(60, 5)) as pilot:
        field = app.query_one(TextField)
        field.focus()
        field.value = value
        await pilot.pause()
        scrolled_to = set()
        end = len(value)
        for cursor in sorted({0, 1, 7, end // 3, end // 2, end - 1, end}):
            for blink_on in (True, False):
                field.cursor_position = cursor
                field._cursor_visible = blink_on
                await pilot.pause()
                scrolled_to.add(field.scroll_offset.x)
                assert field.render_line(0) == Input.render_line(field, 0), (cursor, blink_on)
        assert len(scrolled_to) >= 4  # the window moved along the value
        field.selection = type(field.selection)(5, len(value) // 2 + 3)
        await pilot.pause()
        assert field.render_line(0) == Input.render_line(field, 0)
        assert field.content_width == Input.content_width.fget(field)  # type: ignore[attr-defined]
        for position in (0, 3, len(value) // 2, len(value)):
            assert field._position_to_cell(position) == Input._position_to_cell(field, position)
