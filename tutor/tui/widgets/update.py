"""Redrawing a Static without laying out the whole page when its height stays the same.

Why: `Static.update` asks for a layout pass, which re-measures every widget on the
screen; on a long lesson page that is most of the CPU a keystroke costs, and with fifty
learners on two cores that decides the latency. A count or a row of tokens that keeps
its height only needs its own lines repainted.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def update_in_place(static: Static, content: VisualType) -> None:
    """`static.update(content)`, with a layout pass only if the content's height changes."""
    width = static.content_size.width
    if not static.is_mounted or width <= 0:
        static.update(content)
        return
    before = static.visual.get_height(static.styles, width)
    static.update(content, layout=False)
    if static.visual.get_height(static.styles, width) != before:
        static.refresh(layout=True)
