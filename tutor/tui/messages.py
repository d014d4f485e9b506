"""What screens ask of the app: open a lesson or a page, turn pages, resume.

Screens (and the palette) post these and the App answers them, so no screen needs the
concrete App class: the app imports the screens, never the other way round.
"""

from __future__ import annotations

from textual.message import Message


class OpenLesson(Message):
    """Open a lesson at `page`, else where the learner left it, else its first page."""

    def __init__(self, lesson_id: str, page: int | None = None) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.page = page


class OpenPage(Message):
    def __init__(self, lesson_id: str, number: int) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.number = number


class TurnPage(Message):
    """`step` pages on (or back) from page `number`. Turns asked before the page they
    start from is drawn add up: only where they end is drawn."""

    def __init__(self, lesson_id: str, number: int, step: int) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.number = number
        self.step = step


class Resume(Message):
    """Back to where the learner last was, else the first lesson."""
