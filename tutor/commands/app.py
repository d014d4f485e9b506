"""`tutor` and `tutor lesson`: open the lesson app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Static

    from tutor.core.paths import content_dir

    root = args.content or content_dir()
    lessons = sorted(p.name for p in root.iterdir() if (p / "lesson.md").is_file())

    class LessonList(App):
        TITLE = "Embedding tutor"
        BINDINGS = [("q", "quit", "Quit")]

        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("Lessons:\n" + "\n".join(f"  - {name}" for name in lessons))
            yield Footer()

    LessonList().run()
    return 0
