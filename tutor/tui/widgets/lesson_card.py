"""The lesson card: its one question, objectives, prerequisites, outcome and warning."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from tutor.content.models import LessonCard
from tutor.tui.context import tutor_context


class LessonCardView(Static):
    DEFAULT_CSS = """
    LessonCardView { height: auto; padding: 0 1; margin: 1 0; border: round $accent 60%; }
    """

    def __init__(self, card: LessonCard, lesson_titles: dict[str, str]) -> None:
        super().__init__()
        self.card = card
        self.lesson_titles = lesson_titles

    def on_mount(self) -> None:
        parts: list[str | tuple[str, str]] = []
        for heading, lines in self.sections():
            parts.append((f"{heading}\n", "bold $text-accent"))
            parts += [f"  {line}\n" for line in lines]
        self.update(Content.assemble(*parts).rstrip())

    def sections(self) -> list[tuple[str, list[str]]]:
        ctx = tutor_context(self)
        card = self.card
        prerequisites = [
            ctx.t("card.lesson_prereq", lesson=self.lesson_titles.get(p.lesson, p.lesson))
            if p.lesson is not None
            else str(p.knowledge)
            for p in card.prerequisites
        ]
        sections = [
            (ctx.t("card.question"), [card.question]),
            (ctx.t("card.topic"), [card.topic]),
            (ctx.t("card.objectives"), [f"• {o}" for o in card.objectives]),
            (ctx.t("card.prerequisites"), [f"• {p}" for p in prerequisites]),
            (ctx.t("card.outcome"), [card.outcome]),
            (ctx.t("card.warning"), [card.warning or ""]),
            (ctx.t("card.next"), [f"• {n}" for n in card.next]),
        ]
        return [
            (heading, [ctx.fill_facts(line) for line in lines])
            for heading, lines in sections
            if any(lines)
        ]

    def plain_text(self) -> str:
        return "\n".join(f"{h}: " + " ".join(lines) for h, lines in self.sections())
