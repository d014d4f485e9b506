"""The lessons as the TUI uses them: the index at once, the validated pages when first needed.

Why: validating the content imports pydantic and ruamel.yaml, parses every YAML block and
checks widget tokens against the project tokenizer and fact keys against the facts. That
was most of the tutor's start-up time and memory, paid on every start although the files
rarely change. So the conclusion of one full load is kept as JSON: the lesson index, every
problem, and each validated model's data. The next start reads it with json alone; pydantic
rebuilds the models from it when the learner first opens a page (no YAML, no tokenizer).

The cache is keyed by everything that conclusion depends on: the tutor's version, the
content root as given (problems print paths as given) and the working directory it is
relative to, and the size and modification time of every file the loader reads (lesson
files and folder listings, the facts, the project tokenizer) and of the loader's own code.
Any difference, or a file that does not read back as expected, is a miss: the full loader
runs and the cache is rewritten. `tutor check` never uses it.

It lives in the user cache dir (`TUTOR_CACHE_DIR` overrides), not the data dir: it depends
on the installation and the content, not on the learner, so every learner on a machine and
every session of `tutor serve` shares it.
"""

from __future__ import annotations

import binascii
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tutor.content.index import ContentIndex, LessonEntry, PageEntry, index_of
from tutor.content.problems import Problem

if TYPE_CHECKING:
    from tutor.content.models import BodyBlock, Lesson, LessonSet, Page

FORMAT = 1
T = TypeVar("T")


def default_cache_dir() -> Path:
    """`TUTOR_CACHE_DIR` if set, else the platform's user cache dir."""
    override = os.environ.get("TUTOR_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("embedding-tutor", appauthor=False))


class LessonContent:
    """The content under `root`: `index` at once; `lesson_set` validated on first use."""

    def __init__(self, root: Path, cache_dir: Path | None) -> None:
        self.root = root
        self._key = _key(root)
        # one file per content root; two roots sharing a name only evict each other
        name = f"{binascii.crc32(str(root.absolute()).encode()):08x}"
        self._file = cache_dir / f"lessons-{name}.json" if cache_dir else None
        self._lesson_set: LessonSet | None = None
        self._models: list[Any] = []  # validated models' data, from the cache
        index = self._read()
        self.from_cache = index is not None
        self.index = index if index is not None else self._load()

    @property
    def lesson_set(self) -> LessonSet:
        """The validated lessons; rebuilt from the cache, or loaded if it does not rebuild."""
        if self._lesson_set is None:
            self._lesson_set = self._rebuild()
            if self._lesson_set is None:
                self.index = self._load()
                assert self._lesson_set is not None
        return self._lesson_set

    def lesson(self, lesson_id: str) -> Lesson | None:
        return self.lesson_set.lesson(lesson_id)

    def page(self, lesson_id: str, number: int) -> tuple[Lesson, Page] | None:
        """The lesson and its page `number`, validated; None if either is missing or the
        files broke since the index was read (then `index.errors` says how)."""
        entry = self.index.lesson(lesson_id)
        if entry is None or entry.page(number) is None:
            return None
        lesson = self.lesson(lesson_id)  # may reload the files, and find them broken
        if lesson is None or self.index.errors:
            return None
        page = next((page for page in lesson.pages if page.number == number), None)
        return None if page is None else (lesson, page)

    def _load(self) -> ContentIndex:
        from tutor.content.loader import load_lessons

        self._lesson_set = load_lessons(self.root)
        index = index_of(self._lesson_set)
        self._write(index, self._lesson_set)
        return index

    def _read(self) -> ContentIndex | None:
        if self._file is None:
            return None
        data = read_cached(self._file, self._key)
        try:
            index = _index_from_json(data["index"])
            self._models = _typed(data["lessons"], list)
        except (KeyError, TypeError, ValueError):  # None, or not what this tutor writes
            return None
        return index

    def _write(self, index: ContentIndex, lesson_set: LessonSet) -> None:
        if self._file is None:
            return
        lessons = [_lesson_to_json(lesson) for lesson in lesson_set.lessons]
        write_cached(self._file, self._key, {"index": _index_to_json(index), "lessons": lessons})

    def _rebuild(self) -> LessonSet | None:
        """The validated lessons from the cached models' data; None if any does not validate."""
        from tutor.content.models import PAGE_FRONTS, Lesson, LessonCard, LessonSet, Page

        try:
            lessons = [
                Lesson(
                    Path(_typed(lesson["path"], str)),
                    LessonCard.model_validate(lesson["card"]),
                    _blocks(lesson["body"]),
                    [
                        Page(
                            Path(_typed(page["path"], str)),
                            _typed(page["number"], int),
                            PAGE_FRONTS[page["front"]["kind"]].model_validate(page["front"]),
                            _blocks(page["body"]),
                        )
                        for page in _typed(lesson["pages"], list)
                    ],
                )
                for lesson in self._models
            ]
        except (ValueError, KeyError, TypeError):  # pydantic's ValidationError is a ValueError
            return None
        if [lesson.id for lesson in lessons] != [entry.id for entry in self.index.lessons]:
            return None
        return LessonSet(lessons, list(self.index.problems))


def read_cached(path: Path, key: object) -> Any:
    """The data cached at path under exactly this key, else None."""
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if cached["format"] == FORMAT and cached["key"] == key:
            return cached["data"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def write_cached(path: Path, key: object, data: object) -> None:
    """Cache data at path under key; a cache that cannot be written only slows the next start."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": FORMAT, "key": key, "data": data}, ensure_ascii=False)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)  # readers see the old file or the new one, whole
    except OSError:
        temporary.unlink(missing_ok=True)


def _key(root: Path) -> dict[str, object]:
    """Everything a full load's conclusion depends on (see the module docstring)."""
    from tutor import __version__
    from tutor.core.paths import assets_dir, default_model_dir

    files = _listing(root)
    if (root / "lesson.md").is_file():
        files.append(root.absolute().parent)  # its sibling lessons are the known prerequisites
    files += [
        assets_dir() / "facts.json",
        assets_dir() / "cited_facts.yaml",
        default_model_dir() / "tokenizer.json",
    ]
    code = Path(__file__).parent
    files += sorted(code.glob("*.py"))
    files += [code.parent / "core" / "facts.py", code.parent / "core" / "tokenize.py"]
    return {
        "tutor": __version__,
        "root": str(root),
        "cwd": "" if root.is_absolute() else os.getcwd(),
        "files": [_stat(path) for path in files],
    }


def _listing(root: Path) -> list[Path]:
    """The root, and two levels under it: lesson folders and their files."""
    paths = [root]
    if root.is_dir():
        for child in sorted(root.iterdir()):
            paths.append(child)
            if child.is_dir():
                paths += sorted(child.iterdir())
    return paths


def _stat(path: Path) -> list[object]:
    try:
        status = path.stat()
    except OSError:
        return [str(path), None, None]
    return [str(path), status.st_size, status.st_mtime_ns]


def _typed(value: Any, kind: type[T]) -> T:
    """value, if it is a `kind` (a bool is not an int here); else the cache is not ours."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


def _index_to_json(index: ContentIndex) -> dict[str, object]:
    return {
        "lessons": [
            {
                "id": lesson.id,
                "title": lesson.title,
                "question": lesson.question,
                "prerequisites": list(lesson.prerequisites),
                "pages": [[page.number, page.kind, page.title] for page in lesson.pages],
            }
            for lesson in index.lessons
        ],
        "problems": [
            [str(p.path), p.line, p.col, p.severity, p.message, p.excerpt, p.width]
            for p in index.problems
        ],
    }


def _index_from_json(data: Any) -> ContentIndex:
    lessons = tuple(
        LessonEntry(
            id=_typed(lesson["id"], str),
            title=_typed(lesson["title"], str),
            question=_typed(lesson["question"], str),
            prerequisites=tuple(_typed(p, str) for p in _typed(lesson["prerequisites"], list)),
            pages=tuple(
                PageEntry(_typed(number, int), _typed(kind, str), _typed(title, str))
                for number, kind, title in _typed(lesson["pages"], list)
            ),
        )
        for lesson in _typed(data["lessons"], list)
    )
    problems = tuple(
        Problem(
            Path(_typed(path, str)),
            _typed(line, int),
            _typed(col, int),
            "error" if _typed(severity, str) == "error" else "warning",
            _typed(message, str),
            _typed(excerpt, str),
            _typed(width, int),
        )
        for path, line, col, severity, message, excerpt, width in _typed(data["problems"], list)
    )
    return ContentIndex(lessons, problems)


def _lesson_to_json(lesson: Lesson) -> dict[str, object]:
    return {
        "path": str(lesson.path),
        "card": lesson.card.model_dump(mode="json"),
        "body": _blocks_to_json(lesson.body_blocks),
        "pages": [
            {
                "path": str(page.path),
                "number": page.number,
                "front": page.front.model_dump(mode="json"),
                "body": _blocks_to_json(page.body_blocks),
            }
            for page in lesson.pages
        ],
    }


def _blocks_to_json(blocks: list[BodyBlock]) -> list[dict[str, object]]:
    from tutor.content.models import MarkdownBlock

    data: list[dict[str, object]] = []
    for block in blocks:
        if isinstance(block, MarkdownBlock):
            data.append({"text": block.text, "line": block.line})
        else:
            config = block.config.model_dump(mode="json")
            data.append({"widget": block.widget, "config": config, "line": block.line})
    return data


def _blocks(data: Any) -> list[BodyBlock]:
    from tutor.content.models import MarkdownBlock, WidgetBlock
    from tutor.content.widgets import WIDGETS

    blocks: list[BodyBlock] = []
    for block in _typed(data, list):
        line = _typed(block["line"], int)
        if "text" in block:
            blocks.append(MarkdownBlock(_typed(block["text"], str), line))
        else:
            name = _typed(block["widget"], str)
            blocks.append(WidgetBlock(name, WIDGETS[name].model_validate(block["config"]), line))
    return blocks
