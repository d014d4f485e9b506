"""A one-line text field whose typing repaints the field alone.

Why: Textual's Input records its text width as its virtual size on every change, and
that reactive asks for a layout of the whole screen, although a one-line field's size is
fixed by the stylesheet. On a lesson page that layout was half of a keystroke's CPU; with
fifty learners typing on two cores it decides the latency. The text still scrolls: the
field's own scrolling reads the virtual size, which is kept up to date.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class TextField(Input):
    """Also: reaching it by Tab does not select its text, so the first key typed adds to
    the example instead of replacing it."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
