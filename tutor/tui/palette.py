"""Command palette entries (ctrl+p): every lesson and every page, to jump straight there."""

from __future__ import annotations

from rich.align import Align
from rich.text import Text
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.widgets.option_list import Option

from tutor.tui.context import tutor_context
from tutor.tui.messages import OpenLesson, OpenPage


class LessonPages(Provider):
    def _entries(self) -> list[tuple[str, str, int | None]]:
        """(text, lesson id, page number or None for the lesson itself)."""
        ctx = tutor_context(self.app)
        entries: list[tuple[str, str, int | None]] = []
        for lesson in ctx.index.lessons:
            entries.append((f"{lesson.title} ({lesson.id})", lesson.id, None))
            for page in lesson.pages:
                kind = ctx.t(f"kind.{page.kind}")
                text = f"{lesson.title} · {page.number}. {page.title} · {kind}"
                entries.append((text, lesson.id, page.number))
        return entries

    def _command(self, lesson_id: str, number: int | None):
        if number is None:
            return lambda: self.app.post_message(OpenLesson(lesson_id))
        return lambda: self.app.post_message(OpenPage(lesson_id, number))

    async def discover(self) -> Hits:
        for text, lesson_id, number in self._entries():
            yield DiscoveryHit(text, self._command(lesson_id, number), text=text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, lesson_id, number in self._entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(text), self._command(lesson_id, number), text=text
                )


class Palette(CommandPalette):
    """Textual's palette, saying "no matches" in the learner's language (`nothing`)."""

    def __init__(self, nothing: str, **options) -> None:
        super().__init__(**options)
        self.nothing = nothing

    def _start_no_matches_countdown(self, search_value: str) -> None:
        """Textual's own, with its English sentence replaced by `nothing`."""
        self._stop_no_matches_countdown()

        def show_nothing() -> None:
            self._list_visible = bool(search_value)
            if search_value:
                option = Option(
                    Align.center(Text(self.nothing, style="not bold")),
                    disabled=True,
                    id=self._NO_MATCHES,
                )
                self.query_one(CommandList).add_option(option)

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show_nothing)
