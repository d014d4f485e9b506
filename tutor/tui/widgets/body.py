"""The scrolling body of a screen: every arrow key pressed scrolls a line.

Why: Textual's scroll keys aim at the scroll target as it stood at the last refresh, so
five arrows that arrive before the next frame (a held key, a quick learner over SSH)
scrolled one line. Here each key moves the target at once.
"""

from __future__ import annotations

from textual.actions import SkipAction
from textual.containers import VerticalScroll


class Body(VerticalScroll):
    def watch_has_focus(self, _has_focus: bool) -> None:
        """Only the body's own look depends on its focus (no rule styles a widget by the
        body's focus), so restyle the body alone: Textual restyles every widget under it,
        which as a page opened and its body took focus was a fifth of the page turn."""
        self.app.stylesheet.update_nodes([self])

    def action_scroll_down(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_down(immediate=True)

    def action_scroll_up(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_up(immediate=True)
