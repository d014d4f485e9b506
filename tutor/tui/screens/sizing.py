"""A screen laid out once as it first shows, and again on a resize only when the resize
changes its size.

Textual hands a screen a Resize three times as it first shows (the app's first size, the
terminal's report of that same size, and the screen's own, sent by its first layout), and
each laid the whole screen out and rendered every widget again. On a served learner's
first screen that was work ten learners connecting at once each waited behind
(bench/ssh.py --first-screens); a page turn laid its page out twice. A layout a widget asks
for (refresh(layout=True)) still comes with the screen's next update, as before.

After its first frame Textual laid a screen out and drew it twice more, for nothing: the
first layout gives every widget its size, and each widget whose size changed (all of them,
from none) asked to be laid out and drawn again, as if its content had grown; requests
sent before that layout arrived after it; Textual's notice rack, hidden by its CSS, was
hidden again inline as the screen resumed, which asks for a layout too; and the screen
asked to be drawn whole as it resumed, right after that layout had drawn it. Nothing was
arranged before the first layout, so it arranged and drew every widget as it then was:
what it asks for itself, and what was asked before it, is dropped, unless it showed or hid
a scrollbar, whose gutter moves the widgets. A served learner's course map is now one
frame at 24 ms of CPU, where three frames took 28.5 (tests/tui/test_first_layout.py).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.messages import Layout, Update
from textual.screen import Screen
from textual.widget import Widget

from tutor.tui.compat import drop_refresh_requests, hide_notice_racks, message_clock


class ResizedOnlyByANewSize(Screen[None]):
    _laid_out = False  # the first layout has been done
    _laid_out_at = 0.0  # when, on the clock of Textual's messages

    def on_mount(self) -> None:
        hide_notice_racks(self)

    def _screen_resized(self, size: Size) -> None:
        if size != self._compositor.size:
            super()._screen_resized(size)

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if self._laid_out or scroll:
            super()._refresh_layout(size, scroll)
            return
        widgets = list(self.walk_children(with_self=True))
        bars = _scrollbars(widgets)
        super()._refresh_layout(size, scroll)
        self._laid_out = bool(self._compositor.size)  # Textual lays out nothing at size 0
        if self._laid_out and _scrollbars(widgets) == bars:
            self._laid_out_at = message_clock()
            drop_refresh_requests(widgets)  # what this layout's new sizes asked for
            # and Textual's own request, as the screen resumes, to draw it all again
            self.call_next(drop_refresh_requests, [self])

    async def _on_layout(self, message: Layout) -> None:
        if not self._met_by_first_layout(message):
            await super()._on_layout(message)

    async def _on_update(self, message: Update) -> None:
        if not self._met_by_first_layout(message):
            await super()._on_update(message)

    def _met_by_first_layout(self, message: Layout | Update) -> bool:
        """A widget's request to be laid out or drawn, sent before the first layout that
        arranged and drew it as it then was: dropped."""
        if message.time >= self._laid_out_at:
            return False
        message.stop()
        message.prevent_default()
        return True


def _scrollbars(widgets: list[Widget]) -> list[tuple[bool, bool]]:
    return [(w.show_vertical_scrollbar, w.show_horizontal_scrollbar) for w in widgets]
