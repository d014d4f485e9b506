"""What every lesson page shares: header, the body with widgets in place, keys, plain text.

A page kind adds what its front matter holds (the lesson card, quiz questions, the
summary form) through `compose_before_body` / `compose_after_body`; the body itself is
always the markdown with each ```tutor <widget>``` block turned into its widget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Markdown, Static

from tutor.content.models import Lesson, MarkdownBlock, Page, Summary, WidgetBlock
from tutor.content.prose import fact_keys
from tutor.lazy import load
from tutor.tui.context import tutor_context
from tutor.tui.first_screen import first_screen_first, least_markdown_lines
from tutor.tui.messages import OpenLesson, TurnPage
from tutor.tui.plain import markdown_passages, markdown_to_plain
from tutor.tui.screens.saving import SavesProgress
from tutor.tui.widgets.body import Body
from tutor.tui.widgets.facts import FactStrip
from tutor.tui.widgets.field import TypedText
from tutor.tui.widgets.keybar import KeyBar, typing_into

if TYPE_CHECKING:
    from markdown_it.token import Token
    from textual.widgets.markdown import MarkdownBlock as TextualBlock

# The widget for each ```tutor <widget>``` block, imported when a page first holds one.
WIDGET_CLASSES: dict[str, str] = {
    "tokens": "tutor.tui.widgets.token_strip:TokenStrip",
    "neighbours": "tutor.tui.widgets.neighbours:NeighboursPanel",
    "lookup": "tutor.tui.widgets.lookup:LookupDemo",
    "heatmap": "tutor.tui.widgets.heatmap:Heatmap",
    "pipeline": "tutor.tui.widgets.pipeline:PipelineStrip",
    "path": "tutor.tui.widgets.path:RepresentationPath",
    "rows": "tutor.tui.widgets.rows:RowsDemo",
    "analogy": "tutor.tui.widgets.analogy:AnalogyDemo",
    "training": "tutor.tui.widgets.training:TrainingRun",
    "merges": "tutor.tui.widgets.merge_stepper:MergeStepper",
    "unseen": "tutor.tui.widgets.unseen:UnseenTokensView",
    "one-step": "tutor.tui.widgets.one_step:OneStepDemo",
    "inputs": "tutor.tui.widgets.inputs_experiment:InputsExperiment",
    "width": "tutor.tui.widgets.width_experiment:WidthExperiment",
    "renumber": "tutor.tui.widgets.renumber:RenumberDemo",
}


def widget_class(name: str) -> Callable[..., Widget]:
    """The widget class for a block of widget `name`."""
    widget: Callable[..., Widget] = load(WIDGET_CLASSES[name])
    return widget


TITLE_LINES = 3  # the page's title and its margins (page.tcss .page-title)


class Prose(Markdown):
    """A markdown passage; keeps its source (facts filled in) for the plain-text reading."""

    def __init__(self, source: str, *, backed: bool = False) -> None:
        """`backed`: the fact chips of its last paragraph follow right under it."""
        super().__init__(source, open_links=False, classes="-backed" if backed else "")
        self._given = source  # `source` is empty until the markdown is parsed on mount

    def plain_text(self) -> str:
        return markdown_to_plain(self.source)

    def least_lines(self, width: int) -> int:
        return least_markdown_lines(self._given, width)

    def _parse_markdown(self, tokens: Iterable[Token]) -> Iterable[TextualBlock]:
        """Textual's blocks, the last one marked before it mounts (see page.tcss)."""
        blocks = list(super()._parse_markdown(tokens))
        if blocks:
            blocks[-1].add_class("-last-block", update=False)
        return blocks


def readings(widget: Widget) -> Iterator[str]:
    """Plain text of the widgets under `widget`, in screen order.

    A widget that reads itself out speaks for everything inside it.
    """
    for child in widget.children:
        reader = getattr(child, "plain_text", None)
        if callable(reader):
            text = str(reader()).strip()
            if text:
                yield text
        else:
            yield from readings(child)


class PageScreen(SavesProgress):
    """Base of the per-kind screens; never shown itself. It saves what its widgets post
    (SavesProgress) and the visit itself."""

    KIND: ClassVar[str] = ""
    # No auto-focus: Textual would focus the first focusable widget and on_mount then the
    # body, restyling the page twice; the body alone takes focus, once, as it mounts.
    AUTO_FOCUS = ""
    ESC_LEAVES_FIELDS: ClassVar[bool] = True  # the key line says so while a field has focus
    CSS_PATH = "page.tcss"  # beside this file, as for every page screen

    BINDINGS: ClassVar[list[BindingType]] = [
        # on the lesson's last page the same keys open the next lesson (check_action)
        Binding("n,right", "next_lesson", "key.next_lesson"),
        Binding("n,right", "next_page", "key.next"),
        Binding("p,left", "previous_page", "key.prev"),
        Binding("h", "home", "key.home"),
        Binding("escape", "leave", "key.home", show=False),
        Binding("r", "read", "key.read", show=False),
    ]

    def __init__(self, lesson: Lesson, page: Page) -> None:
        super().__init__(name=f"{lesson.id}:{page.number}")
        self.lesson = lesson
        self.page = page
        self._styled_for: str | None = None  # the theme its styles were last computed for
        self.built_after_first_frame: list[Widget] = []  # below the first screen
        self.typed = TypedText()  # the app fills in what was typed on the page's last build

    @property
    def help_key(self) -> str:
        return f"help.{self.KIND}"

    def help_title(self) -> str:
        return f"{tutor_context(self).t(f'kind.{self.KIND}')} · {self.page.title}"

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        counter = ctx.t("page.counter", n=self._position + 1, total=len(self.lesson.pages))
        yield Static(
            Content.assemble(
                (self.lesson.card.title, "bold"),
                " · ",
                (ctx.t(f"kind.{self.KIND}"), "bold $text-accent"),
                " · ",
                counter,
            ),
            id="page-header",
        )
        with Body(id="body"):
            if self.shows_title:
                yield Static(Content.styled(self.page.title, "bold"), classes="page-title")
            if ctx.model_dir is not None and self.page.body_blocks:
                note = Static(self._model_note(), classes="model-note")
                note.styles.margin = (0, 0, 1, 0)
                yield note
            yield from first_screen_first(
                chain(self.compose_before_body(), self.compose_body(), self.compose_after_body()),
                self.app.size.width,
                # the body is below the header, above the keys, and starts with the title
                self.app.size.height - 2 - (TITLE_LINES if self.shows_title else 0),
                self.built_after_first_frame,
            )
        yield KeyBar()

    def _model_note(self) -> Content:
        """Under --model the prose still quotes the shipped model; say so where it shows,
        and say what the opened model's "before training" stage is when it is not real."""
        from tutor.core.hf import HFError, before_kind_of

        ctx = tutor_context(self)
        assert ctx.model_dir is not None
        note = ctx.t(
            "page.model_note",
            v=ctx.fact_text("model.vocab_size"),
            d=ctx.fact_text("model.d"),
            name=ctx.model_dir.name,
        )
        try:
            before = before_kind_of(ctx.model_dir)
        except (HFError, OSError):
            before = "none"  # the widgets say what is wrong with the directory
        space = "" if ctx.lang == "zh" else " "
        if before != "saved":
            note += space + ctx.t(f"page.model_note.before.{before}")
        beside = any(
            getattr(getattr(block, "config", None), "beside", False)
            for block in self.page.body_blocks
        )
        if beside and ctx.beside_models is ctx.models:  # the opened model goes beside
            note += space + ctx.t("page.model_note.beside", name=ctx.model_dir.name)
        if any(getattr(block, "widget", None) == "renumber" for block in self.page.body_blocks):
            note += space + ctx.t("page.model_note.renumber")  # numpy runs the project model
        return Content.styled(note, "italic $text-warning")

    @property
    def _position(self) -> int:
        return self.lesson.pages.index(self.page)

    @property
    def shows_title(self) -> bool:
        """The page's title heads the body, unless what the page kind adds says it."""
        return True

    def compose_before_body(self) -> ComposeResult:
        yield from ()

    def compose_after_body(self) -> ComposeResult:
        yield from ()

    def compose_summary(self, summary: Summary) -> ComposeResult:
        """The teacher's marks on this lesson's answers (once the teacher has marked them:
        `tutor review`), then the summary form."""
        from tutor.tui.widgets.summary import SummaryEditor
        from tutor.tui.widgets.teacher_marks import TeacherMarksView

        marks = self.saved_teacher_marks(self.lesson.id)
        if marks:
            yield TeacherMarksView(self.lesson, marks, id="teacher-marks")
        saved = self.saved_summary(self.lesson.id)
        yield SummaryEditor(summary, self.lesson.id, saved, id="summary")

    def compose_body(self) -> ComposeResult:
        ctx = tutor_context(self)
        for number, block in enumerate(self.page.body_blocks):
            if isinstance(block, MarkdownBlock):
                for passage in markdown_passages(block.text):
                    keys = fact_keys(passage)
                    yield Prose(ctx.fill_facts(passage), backed=bool(keys))
                    if keys:
                        yield FactStrip(keys)
            elif isinstance(block, WidgetBlock):
                make = widget_class(block.widget)
                yield make(block.config, id=f"w{number}-{block.widget}")

    def on_mount(self) -> None:
        self.query_one("#body").focus()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Each time the page shows, first or again (a kept page is not mounted again):
        the visit is saved. A kept page keeps its styles unless the theme changed while it
        was away: restyling every widget was most of what turning back to it cost.
        (Textual's own Screen handler runs next and reads that flag.)"""
        if self._styled_for in (None, self.app.theme):  # None: built just now, in this theme
            event.refresh_styles = False
        self._styled_for = self.app.theme
        self.save("visit", lambda store: store.visit_page(self.lesson.id, self.page.number))

    @property
    def next_lesson(self) -> str | None:
        """The lesson the course goes on to, if this is the lesson's last page."""
        following = self.lesson.card.next_lesson
        if self.page is not self.lesson.pages[-1] or following is None:
            return None
        return following if tutor_context(self).index.lesson(following) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n/→ turn the page, or on the last page open the next lesson: one key line entry."""
        if action == "next_lesson":
            return self.next_lesson is not None
        if action == "next_page":
            return self.next_lesson is None
        return True

    def action_next_lesson(self) -> None:
        if self.next_lesson is not None:
            self.post_message(OpenLesson(self.next_lesson))

    def action_next_page(self) -> None:
        self.post_message(TurnPage(self.lesson.id, self.page.number, 1))

    def action_previous_page(self) -> None:
        self.post_message(TurnPage(self.lesson.id, self.page.number, -1))

    def action_home(self) -> None:
        self.app.pop_screen()

    def action_leave(self) -> None:
        """esc leaves a text field for the page (typing keys there type); on the page
        itself it goes back to the lesson list."""
        if typing_into(self.focused):
            self.query_one("#body").focus()
        else:
            self.action_home()

    def action_read(self) -> None:
        from tutor.tui.screens.reading import ReadingScreen

        self.app.push_screen(ReadingScreen(self.plain_text()))

    def plain_text(self) -> str:
        header = f"{self.lesson.card.title} — {self.page.title}"
        return "\n\n".join([header, *readings(self.query_one("#body"))])
