"""Help for the screen underneath: what this kind of page is for, and its keys."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.keybar import KeyBar
from tutor.words import i18n

FOCUS_MOVES = ("focus_next", "focus_previous")  # said in a sentence of its own (help.tab)


def key_lines(screen: Screen) -> list[tuple[str, str]]:
    """(keys, description) for every shown binding active on `screen`, in its language."""
    ctx = tutor_context(screen)
    groups: dict[str, list[str]] = {}
    for _node, binding, _enabled, _tooltip in screen.active_bindings.values():
        if not i18n.has(binding.description) or binding.action in FOCUS_MOVES:
            continue
        keys = groups.setdefault(binding.description, [])
        display = screen.app.get_key_display(binding)
        # a shown key may stand for its hidden siblings ("↑↓←→" for all four arrows,
        # "Home/End" for end, whose own display is lower-case)
        if not any(display.lower() in shown.lower() for shown in keys):
            keys.append(display)
    return [("/".join(keys), ctx.t(description)) for description, keys in groups.items()]


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "dialog.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "dismiss", "key.close")
    ]

    def __init__(self, underneath: Screen) -> None:
        super().__init__()
        self.underneath = underneath

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        name = self.underneath.help_title() if hasattr(self.underneath, "help_title") else ""
        about = ctx.t(getattr(self.underneath, "help_key", "help.page"))
        parts: list[str | tuple[str, str]] = [
            (ctx.t("help.title", screen=name), "bold"),
            "\n\n",
            about,
            "\n\n",
            (ctx.t("help.keys"), "bold"),
            "\n",
        ]
        for keys, description in key_lines(self.underneath):
            parts += [(f" {keys:>10} ", "bold reverse"), f"  {description}\n"]
        parts += ["\n", ctx.t("help.tab")]
        if getattr(self.underneath, "SHOWS_FACTS", True):  # not `tutor review`'s screen
            parts += ["\n", ctx.t("help.fact")]
        with VerticalScroll(id="dialog"):
            yield Static(Content.assemble(*parts), id="help-text")
        yield KeyBar()
