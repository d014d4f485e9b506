"""The yardstick for startup and memory: a bare Textual app that shows one Static.

Whatever the tutor costs beyond this is the tutor's own; what this costs is Textual's.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

TEXT = "bare textual app"


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(TEXT)


if __name__ == "__main__":
    BareApp().run()
