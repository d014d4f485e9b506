"""The facts a passage quotes, each with its evidence badge; focus shows level and source.

Prose shows a fact as its bare value; this strip under the passage is where the learner
asks "says who?". One focus stop per passage (left/right walks its facts) keeps Tab short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import still_shown
from tutor.tui.widgets.flow import Flow
from tutor.words.fact_words import detail_line

EVIDENCE_STYLE = {
    "proof": "bold $text-success",
    "measured": "bold $text-warning",
    "cited": "bold $text-primary",
}


def badge(evidence: str, translate: Callable[[str], str]) -> tuple[str, str]:
    """`[证]`-style badge: the brackets and letter carry the level when colour is off."""
    return f"[{translate(f'evidence.badge.{evidence}')}]", EVIDENCE_STYLE.get(evidence, "bold")


AFTER_WIDGETS = 1 << 30  # added to a strip's row in the focus order: below any widget


class FactStrip(Widget, can_focus=True):
    """The passage's facts in a row; the selected one's evidence and source below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "key.choice"),
        Binding("right", "move(1)", "key.choice"),
        # before the page's own esc (back to the lesson list): what is open closes first
        Binding("escape", "close", "key.close_fact"),
    ]

    DEFAULT_CSS = """
    FactStrip { height: auto; layout: vertical; }
    FactStrip > Static { height: auto; }
    FactStrip #detail { display: none; }
    FactStrip:focus #detail { display: block; }
    """

    selected: reactive[int] = reactive(0)

    def __init__(self, keys: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keys = list(keys)
        # Kept, not queried: a redraw scheduled by a focus change can run while the page is
        # taken down, its parts already gone; drawing on a removed Static is harmless.
        self._chips = Static(id="chips")
        self._detail = Static(id="detail")

    def compose(self) -> ComposeResult:
        yield self._chips
        yield self._detail

    @property
    def _focus_sort_key(self) -> tuple[int, int]:
        """After its siblings (Tab reaches the page's widgets first), in reading order: a
        strip sits by the prose it backs, often above the widget the learner came to use."""
        y, x = super()._focus_sort_key
        return AFTER_WIDGETS + y, x

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        self.redraw()

    def action_move(self, step: int) -> None:
        self.selected = (self.selected + step) % len(self.keys)

    def action_close(self) -> None:
        """Fold the detail away: the focus goes back to the page that holds the strip."""
        holder = next((node for node in self.ancestors if getattr(node, "can_focus", False)), None)
        self.screen.set_focus(holder if isinstance(holder, Widget) else None)

    def watch_selected(self) -> None:
        if self.is_mounted:
            self.redraw()
            self.call_after_refresh(self._into_view)

    def on_focus(self) -> None:
        self.call_after_refresh(self.redraw)
        self.call_after_refresh(self._into_view)

    def _into_view(self) -> None:
        """The chips and the whole of the detail under them on screen, not only the line
        that took focus (the detail appears below it only once it has focus)."""
        if self.has_focus and self.is_attached:
            self.scroll_visible(animate=False, immediate=True)

    def on_blur(self) -> None:
        self.call_after_refresh(self.redraw)
        # Textual scrolled to what took focus with the detail still open; folded away a
        # refresh later, the detail moves it up: show it whole again then
        self.call_after_refresh(self.call_after_refresh, self._focused_into_view)

    def _focused_into_view(self) -> None:
        focused = self.screen.focused if self.is_attached else None
        if focused is not None and focused is not self:
            focused.scroll_visible(animate=False, immediate=True)

    def _chip(self, index: int, key: str) -> Content:
        ctx = tutor_context(self)
        fact = ctx.facts.get(key)
        value = ctx.fact_text(key)
        chosen = self.has_focus and index == self.selected
        parts: list[str | tuple[str, str]] = [(value, "reverse" if chosen else "underline")]
        if fact is not None:
            parts.append(badge(fact.evidence, ctx.t))
        return Content.assemble(*parts)

    def detail_text(self, key: str) -> str:
        ctx = tutor_context(self)
        fact = ctx.facts.get(key)
        if fact is None:
            return ctx.t("fact.unknown", key=key)
        return detail_line(ctx, fact, ctx.fact_text(key))

    def redraw(self) -> None:
        """Chips and detail for the current focus and choice."""
        ctx = tutor_context(self)
        chips = [self._chip(index, key) for index, key in enumerate(self.keys)]
        self._chips.update(Flow(chips))
        key = self.keys[self.selected]
        fact = ctx.facts.get(key)
        about = ctx.t(f"evidence.about.{fact.evidence}") if fact else ""
        detail = Content(f"{self.detail_text(key)}\n{about}".strip())
        self._detail.update(detail)

    def plain_text(self) -> str:
        return "\n".join(self.detail_text(key) for key in self.keys)
