"""One content problem on the error screen, laid out for the width it is given.

The source line under a problem can be longer than the screen; cut at the edge, the end of
the line (often the mistake) would be hidden, and wrapped by the terminal the caret would
land under the wrong character. So the line is cut into pieces here, with the caret under
the piece it points into, and recut whenever the width changes.
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from tutor.content.problems import Problem
from tutor.words.problems import render_said
from tutor.words.refusals import Says


class ProblemReport(Widget):
    DEFAULT_CSS = """
    ProblemReport { height: auto; margin: 0 0 1 0; }
    """

    def __init__(self, problem: Problem, ctx: Says) -> None:
        super().__init__(classes="problem")
        self.problem = problem
        self.ctx = ctx  # says the problem in the interface's language

    def text(self, width: int | None = None) -> str:
        return render_said(self.ctx, self.problem, width)

    def render(self) -> Content:
        return Content(self.text(self.content_size.width or None))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.text(width).count("\n") + 1 if width else 0

    def on_resize(self) -> None:
        self.refresh(layout=True)
