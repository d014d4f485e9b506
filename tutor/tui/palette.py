"""Command palette entries (ctrl+p): every lesson and every page, to jump straight there."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tutor.tui.i18n import t

if TYPE_CHECKING:
    from tutor.tui.app import TutorApp


class LessonPages(Provider):
    def _entries(self) -> list[tuple[str, str, int | None]]:
        """(text, lesson id, page number or None for the lesson itself)."""
        app = cast("TutorApp", self.app)
        entries: list[tuple[str, str, int | None]] = []
        for lesson in app.lessons:
            entries.append((f"{lesson.title} ({lesson.id})", lesson.id, None))
            for page in lesson.pages:
                kind = t(f"kind.{page.kind}", app.ctx.lang)
                text = f"{lesson.title} · {page.number}. {page.title} · {kind}"
                entries.append((text, lesson.id, page.number))
        return entries

    def _command(self, lesson_id: str, number: int | None):
        app = cast("TutorApp", self.app)
        if number is None:
            return lambda: app.open_lesson(lesson_id)
        return lambda: app.open_page(lesson_id, number)

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
