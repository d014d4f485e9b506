"""The key line at the bottom, in the learner's language.

Textual's Footer prints binding descriptions as written in the class; ours are i18n keys,
translated here, and keys of one action are grouped ("n/→ 下一页") so the line fits 80
columns with the focused widget's keys included.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from tutor.tui.compat import loaded_widget_class
from tutor.tui.context import tutor_context
from tutor.tui.widgets.flow import Flow
from tutor.words import i18n

MIN_SIZE = (40, 12)  # columns, rows: below this every screen shows only this line, asking


# for a larger window (TutorApp adds the class -too-small; tutor.tcss hides the rest)
def typing_into(widget: Widget | None) -> bool:
    """A text field has the focus: there letters and arrows type and move the cursor.
    (Looked up among loaded modules: the lesson list must not import the text widgets.)"""
    return any(
        cls is not None and isinstance(widget, cls)
        for cls in (loaded_widget_class("Input"), loaded_widget_class("TextArea"))
    )


def multiline(widget: Widget | None) -> bool:
    """Enter starts a new line here rather than entering what was typed."""
    cls = loaded_widget_class("TextArea")
    return cls is not None and isinstance(widget, cls)


PALETTE = Binding("ctrl+p", "command_palette")  # the one app key that works in a field

# Keys that give way, first to last, when the line would not fit one row (English words are
# longer): each still works, and help (?), which never gives way, lists them all. The
# focused widget's keys stay: its hint names them.
GIVE_WAY = (
    "key.palette",
    "key.theme",
    "key.read",
    "key.home",
    "key.prev",
    "key.next",
    "key.next_lesson",
    "key.quit",
)
GAP = 2  # Flow's gap between two keys


def one_line(keys: list[tuple[str, str, str]], width: int) -> list[tuple[str, str]]:
    """(keys, description) of `keys` (keys, description id, description) that fit `width`
    columns on one line, dropping them in GIVE_WAY's order."""
    kept = list(keys)
    for giving_way in GIVE_WAY:
        used = sum(cell_len(f"{key} {said}") + GAP for key, _, said in kept) - GAP
        if used <= width:
            break
        kept = [item for item in kept if item[1] != giving_way]
    return [(key, said) for key, _, said in kept]


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: auto; max-height: 2; background: $footer-background; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: list[tuple[str, str]] | None = None  # the keys on screen now

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.show_keys()

    def on_resize(self) -> None:
        self.show_keys()  # a narrower line may leave out keys, a wider one bring them back

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen:
            self.call_after_refresh(self.show_keys)

    def grouped_keys(self) -> list[tuple[str, str, str]]:
        """(keys, description id, description) per action shown, focused widget's first,
        app's last.

        In a text field, letters and arrows type and move the cursor: only the keys that
        still work there are shown."""
        ctx = tutor_context(self)
        field = self.screen.focused
        if getattr(self.screen, "ESC_LEAVES_FIELDS", False) and typing_into(field):
            keys = [("esc", "key.leave_field"), ("tab", "key.next_stop")]
            if not multiline(field):
                keys.append(("enter", "key.confirm"))
            keys.append((self.app.get_key_display(PALETTE), "key.palette"))
            return [(key, description, ctx.t(description)) for key, description in keys]
        # keys a Textual widget answers itself, which the screen names for it (LEAD_KEYS)
        lead: list[tuple[str, str]] = list(getattr(self.screen, "LEAD_KEYS", ()))
        groups: dict[str, list[str]] = {description: [key] for key, description in lead}
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            # Textual's own widgets describe keys in English: only ours are shown, translated.
            if not binding.show or not enabled or not i18n.has(binding.description):
                continue
            display = self.app.get_key_display(binding)
            keys = groups.setdefault(binding.description, [])
            if display not in keys:
                keys.append(display)
        return [
            ("/".join(keys), description, ctx.t(description))
            for description, keys in groups.items()
        ]

    def show_keys(self) -> None:
        if not self.is_attached:  # the screen was replaced before this refresh ran
            return
        if self.app.has_class("-too-small"):  # the only line shown: it asks for room
            self._shown = None
            cols, rows = MIN_SIZE
            notice = tutor_context(self).t("app.too_small", cols=cols, rows=rows)
            self.update(Content.styled(notice, "bold"))
            return
        keys = one_line(self.grouped_keys(), self.app.size.width)
        if keys == self._shown:  # focus moved between widgets with the same keys: no frame
            return
        self._shown = keys
        self.update(
            Flow(
                Content.assemble((key, "bold $text-accent"), f" {description}")
                for key, description in keys
            )
        )
