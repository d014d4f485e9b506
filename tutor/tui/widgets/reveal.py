"""An answer's feedback scrolled into view once it is laid out.

Why: feedback appears under the submit button. At 80x24 a single choice's explanations
ended five lines under the window, and a submitted summary's findings all of them: a
learner who did not think to scroll missed why an answer was wrong. Scrolled right after
the answer, the feedback could still have its old height (its layout comes with the next
update), so the scroll waits for the container's resize, or the next refresh if its size
stays the same.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.widget import Widget


class RevealsFeedback(Vertical):
    """A question or form whose `feedback_parts` (top to bottom) an answer fills."""

    _reveal_pending = False

    def feedback_parts(self) -> list[Widget]:
        raise NotImplementedError

    def reveal_feedback(self) -> None:
        self._reveal_pending = True
        self.call_after_refresh(self._reveal)

    def on_resize(self) -> None:
        if self._reveal_pending:
            self._reveal_pending = False
            self._reveal()

    def _reveal(self) -> None:
        """The last part into view, then the first: from the verdict down, as far as the
        window holds it (the verdict stays at the top if the parts do not fit together)."""
        shown = [part for part in self.feedback_parts() if part.display and part.outer_size.height]
        for part in shown[-1:] + shown[:1]:
            self.screen.scroll_to_widget(part, animate=False, immediate=True)
