"""What every screen and widget shares: language, model, facts, the progress store.

Widgets reach it through `tutor_context(self)` instead of importing the app, so a widget
module depends only on this file and the core, never on the screens around it.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from tutor.content.prose import fill_fact_refs
from tutor.progress.store import ProgressStore, default_data_dir
from tutor.words.i18n import Lang, t

COMPARE_MODEL_ENV = "TUTOR_COMPARE_MODEL"  # a real model shown beside the lesson's

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from tutor.content.cache import LessonContent
    from tutor.content.index import ContentIndex, LessonEntry
    from tutor.core.facts import Fact
    from tutor.core.model import ProjectModel
    from tutor.tui.lessons import LessonState


class ModelAccess:
    """Opens the model once, on the first worker that needs it; later callers share it.

    Called from worker threads only: opening memory-maps the tables and loads the
    tokenizer, which must never block the screen.
    """

    def __init__(self, model_dir: Path | None) -> None:
        self.model_dir = model_dir
        self._lock = threading.Lock()
        self._model: ProjectModel | None = None

    def get(self) -> ProjectModel:
        with self._lock:
            if self._model is None:
                from tutor.core.model import open_model

                self._model = open_model(self.model_dir)
            return self._model

    @property
    def loaded(self) -> bool:
        return self._model is not None


@dataclass
class TutorContext:
    lang: Lang
    store: ProgressStore
    model_dir: Path | None = None
    content: LessonContent | None = None  # None: the progress store failed, no lessons
    remote: bool = False  # served over SSH: the progress file's path means nothing there
    open_every_lesson: bool = False  # tutor preview: no note about unfinished prerequisites
    models: ModelAccess = field(init=False)
    # widgets that show a real model beside the lesson's (`beside: true`): the lesson's
    # model, and the real one (`--model DIR`, or TUTOR_COMPARE_MODEL), None when neither
    lesson_models: ModelAccess = field(init=False)
    beside_models: ModelAccess | None = field(init=False)
    # kinds of save (tutor.tui.screens.saving) whose last try failed: told once, not per try
    failing_saves: set[str] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        self.models = ModelAccess(self.model_dir)
        compare = os.environ.get(COMPARE_MODEL_ENV, "").strip()
        if compare:
            self.lesson_models, self.beside_models = self.models, ModelAccess(Path(compare))
        elif self.model_dir is not None:  # the opened model goes beside the lesson's own
            self.lesson_models, self.beside_models = ModelAccess(None), self.models
        else:
            self.lesson_models, self.beside_models = self.models, None

    @property
    def index(self) -> ContentIndex:
        """The lesson index: what the lesson list, the palette and navigation need."""
        from tutor.content.index import ContentIndex

        return self.content.index if self.content is not None else ContentIndex()

    def lesson_state(self, lesson: LessonEntry) -> LessonState:
        from tutor.tui.lessons import lesson_state

        state = lesson_state(self.index, self.store, lesson)
        return state._replace(waiting_for=[]) if self.open_every_lesson else state

    def runs_dir(self) -> Path:
        """Where the learner's training runs are kept: their own folder beside their
        progress file (in the data dir for a database or a guest, whose data dir a served
        session removes when it ends)."""
        from tutor.core.live import learner_folder

        progress_file = getattr(self.store, "path", None)  # SQLite's; a database has none
        folder = progress_file.parent if progress_file is not None else default_data_dir()
        return folder / "runs" / learner_folder(self.store.learner)

    def lesson_titles(self) -> dict[str, str]:
        return {lesson.id: lesson.title for lesson in self.index.lessons}

    def t(self, key: str, **values: object) -> str:
        return t(key, self.lang, **values)

    @cached_property
    def facts(self) -> dict[str, Fact]:
        from tutor.core.facts import load_facts

        return load_facts()

    def fact_text(self, key: str) -> str:
        """A fact's value as the lesson prints it; an unknown key says so instead of crashing."""
        from tutor.core.facts import format_value

        fact = self.facts.get(key)
        if fact is None:
            return self.t("fact.unknown", key=key)
        return format_value(fact, self.lang)

    def fill_facts(self, text: str) -> str:
        """Prose with every {{fact:key}} replaced by its value."""
        return fill_fact_refs(text, self.fact_text)


class _HasContext(Protocol):
    ctx: TutorContext


def tutor_context(node: DOMNode) -> TutorContext:
    """The running TutorApp's context, from any widget or screen."""
    return cast("_HasContext", node.app).ctx
