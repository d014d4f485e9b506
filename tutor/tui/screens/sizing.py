"""A screen laid out again on a resize only when the resize changes its size.

Textual hands a screen a Resize three times as it first shows (the app's first size, the
terminal's report of that same size, and the screen's own, sent by its first layout), and
each laid the whole screen out and rendered every widget again. On a served learner's
first screen that was work ten learners connecting at once each waited behind
(bench/ssh.py --first-screens); a page turn laid its page out twice. A layout a widget asks
for (refresh(layout=True)) still comes with the screen's next update, as before.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen


class ResizedOnlyByANewSize(Screen[None]):
    def _screen_resized(self, size: Size) -> None:
        if size != self._compositor.size:
            super()._screen_resized(size)
