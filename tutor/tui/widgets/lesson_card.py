"""The lesson card: its one question, objectives, prerequisites, outcome, warning, what it
leaves for later and the lesson after it in the course."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Grid
from textual.widgets import Static

from tutor.tui.context import tutor_context

if TYPE_CHECKING:
    from tutor.content.models import LessonCard


class LessonCardView(Grid):
    """Headings in one column, their text beside them, wrapped per CJK character (cjk_wrap)."""

    DEFAULT_CSS = """
    LessonCardView {
        grid-size: 2;
        grid-columns: auto 1fr;
        grid-rows: auto;
        grid-gutter: 0 2;
        height: auto;
        padding: 0 1;
        margin: 1 0;
        border: round $accent 60%;
    }
    LessonCardView .card-heading { text-style: bold; color: $text-accent; }
    LessonCardView Static { height: auto; }
    """

    def __init__(self, card: LessonCard, lesson_titles: dict[str, str]) -> None:
        super().__init__()
        self.card = card
        self.lesson_titles = lesson_titles

    def compose(self) -> ComposeResult:
        for heading, lines in self.sections():
            yield Static(heading, classes="card-heading", markup=False)
            yield Static("\n".join(lines), markup=False)

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
        if card.next_lesson is not None:  # the course goes on there (its last page's n/→)
            title = self.lesson_titles.get(card.next_lesson, card.next_lesson)
            named = ctx.t("card.lesson_prereq", lesson=title)
            sections.append((ctx.t("card.next_lesson"), [named]))
        return [
            (heading, [ctx.fill_facts(line) for line in lines])
            for heading, lines in sections
            if any(lines)
        ]

    def plain_text(self) -> str:
        return "\n".join(f"{h}: " + " ".join(lines) for h, lines in self.sections())
