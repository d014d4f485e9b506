"""Ask the core in a thread worker and show only the newest answer: the one way widgets
compute in the background.

Why one helper: a widget that asks the core (tokenize, nearest neighbours, a heatmap…)
must not block typing, must not show an older answer over a newer one, and must not draw
on a page that was replaced while it computed. Written once, each widget says only what
to compute and how to show it.

Use it as a base beside the widget's own (``class MyPanel(Asking, Vertical)``)::

    def _picked(self, token: str) -> None:
        self.ask(lambda: nearest(model, token), self._show_neighbours)

- ``compute()`` runs in a thread worker: it returns the answer (an error is an answer
  too, e.g. a message) and never touches a widget.
- ``show(answer)`` runs on the UI thread, only for the newest question of its topic and
  only while the widget is still on screen.
- One worker per topic at a time. Questions asked while it runs wait, and only the newest
  of them runs next: a burst of keys costs two runs, not one per key.
- ``now=True`` answers at once on the UI thread when no worker of the topic is running
  (for questions known to be cheap: the answer is drawn in the same frame as the key).
- Topics keep unrelated questions apart (the heatmap's two stages): a question supersedes
  only older questions of its own topic.
- ``pending`` says whether any topic's newest question still waits for its answer (tests
  wait on it). It is not Textual's ``loading``, which Textual reads for focus, keys and
  clicks: a widget that computes stays usable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from textual.message import Message
from textual.widget import Widget

from tutor.tui.compat import taken_down

Answer = TypeVar("Answer")


@dataclass(slots=True)
class _Question:
    number: int
    compute: Callable[[], Any]
    show: Callable[[Any], None]


@dataclass(slots=True)
class _Topic:
    asked: int = 0  # questions asked so far; the newest is number `asked`
    answered: int = 0  # the newest question whose answer was shown
    running: bool = False  # a worker is computing
    waiting: _Question | None = None  # the newest question asked while it ran


def still_shown(widget: Widget) -> bool:
    """The widget is on its screen and not being taken down with it. When a page is
    replaced, Textual marks every widget on it as pruning, then removes the innermost
    first: a handler that runs meanwhile finds its own parts already gone."""
    return widget.is_attached and not taken_down(widget)


class Asking(Widget):
    """Base for widgets that compute in the background (see the module's docstring)."""

    class Answered(Message, bubble=False):
        """A worker's answer, posted to the widget that asked."""

        def __init__(self, topic: str, question: _Question, answer: object) -> None:
            super().__init__()
            self.topic = topic
            self.question = question
            self.answer = answer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._topics: dict[str, _Topic] = {}

    def ask(
        self,
        compute: Callable[[], Answer],
        show: Callable[[Answer], None],
        *,
        topic: str = "",
        now: bool = False,
    ) -> None:
        """Compute in a worker (or at once, `now`), then show the answer if still newest.

        A widget no longer on screen asks nothing (a deferred call can land after its page
        was replaced)."""
        if not still_shown(self):
            return
        state = self._topics.setdefault(topic, _Topic())
        state.asked += 1
        question = _Question(state.asked, compute, show)
        if state.running:
            state.waiting = question
        elif now:
            self._show_if_newest(state, question, compute())
        else:
            self._start_worker(topic, state, question)

    @property
    def pending(self) -> bool:
        """Some topic's newest question has no answer on screen yet."""
        return any(state.answered != state.asked for state in self._topics.values())

    def _start_worker(self, topic: str, state: _Topic, question: _Question) -> None:
        state.running = True

        def work() -> None:
            self.post_message(self.Answered(topic, question, question.compute()))

        self.run_worker(work, thread=True, group=f"ask-{topic}")

    def on_asking_answered(self, message: Answered) -> None:
        message.stop()
        state = self._topics[message.topic]
        state.running = False
        if state.waiting is not None:
            waiting, state.waiting = state.waiting, None
            self._start_worker(message.topic, state, waiting)
        self._show_if_newest(state, message.question, message.answer)

    def _show_if_newest(self, state: _Topic, question: _Question, answer: object) -> None:
        if question.number == state.asked and still_shown(self):
            state.answered = question.number
            question.show(answer)
