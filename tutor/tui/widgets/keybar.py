"""The key line at the bottom, in the learner's language.

Textual's Footer prints binding descriptions as written in the class; ours are i18n keys,
translated here, and keys of one action are grouped ("n/→ 下一页") so the line fits 80
columns with the focused widget's keys included.
"""

from __future__ import annotations

from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tutor.tui import i18n
from tutor.tui.context import tutor_context
from tutor.tui.widgets.flow import Flow

MIN_SIZE = (40, 12)  # columns, rows: below this every screen shows only this line, asking
# for a larger window (TutorApp adds the class -too-small; tutor.tcss hides the rest)


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

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen:
            self.call_after_refresh(self.show_keys)

    def grouped_keys(self) -> list[tuple[str, str]]:
        """(keys, description) per action shown, focused widget's first, app's last."""
        ctx = tutor_context(self)
        groups: dict[str, list[str]] = {}
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            # Textual's own widgets describe keys in English: only ours are shown, translated.
            if not binding.show or not enabled or not i18n.has(binding.description):
                continue
            display = self.app.get_key_display(binding)
            keys = groups.setdefault(binding.description, [])
            if display not in keys:
                keys.append(display)
        return [("/".join(keys), ctx.t(description)) for description, keys in groups.items()]

    def show_keys(self) -> None:
        if not self.is_attached:  # the screen was replaced before this refresh ran
            return
        if self.app.has_class("-too-small"):  # the only line shown: it asks for room
            self._shown = None
            cols, rows = MIN_SIZE
            notice = tutor_context(self).t("app.too_small", cols=cols, rows=rows)
            self.update(Content.styled(notice, "bold"))
            return
        keys = self.grouped_keys()
        if keys == self._shown:  # focus moved between widgets with the same keys: no frame
            return
        self._shown = keys
        self.update(
            Flow(
                Content.assemble((key, "bold $text-accent"), f" {description}")
                for key, description in keys
            )
        )
