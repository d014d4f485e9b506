"""The lessons as the TUI uses them: the index at once, the validated pages when first needed.

Why: validating the content imports pydantic and ruamel.yaml, parses every YAML block and
checks widget tokens against the project tokenizer and fact keys against the facts. That
was most of the tutor's start-up time and memory, paid on every start although the files
rarely change. So the conclusion of one full load is kept as JSON: the LessonSet as its
pydantic models dump it (every lesson, page and problem). The next start reads the lesson
index out of it with json alone; pydantic validates the models back from it when the
learner first opens a page (no YAML, no tokenizer).

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
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.cachefile import read_cached, write_cached
from tutor.content.index import ContentIndex, index_of

if TYPE_CHECKING:
    from tutor.content.loader import ParsedFiles
    from tutor.content.models import Lesson, LessonSet, Page


class LessonContent:
    """The content under `root`: `index` at once; `lesson_set` validated on first use."""

    def __init__(
        self, root: Path, cache_dir: Path | None, earlier: ParsedFiles | None = None
    ) -> None:
        self.root = root
        self._earlier = earlier  # files parsed by an earlier load (tutor preview)
        self._key = _key(root)
        # one file per content root; two roots sharing a name only evict each other
        name = f"{binascii.crc32(str(root.absolute()).encode()):08x}"
        self._file = cache_dir / f"lessons-{name}.json" if cache_dir else None
        self._lesson_set: LessonSet | None = None
        self._cached: Any = None  # the LessonSet's JSON form, from the cache
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

        self._lesson_set = load_lessons(self.root, earlier=self._earlier)
        data = self._lesson_set.model_dump(mode="json")
        if self._file is not None:
            write_cached(self._file, self._key, data)
        return index_of(data)

    def _read(self) -> ContentIndex | None:
        if self._file is None:
            return None
        self._cached = read_cached(self._file, self._key)
        try:
            return index_of(self._cached)
        except (KeyError, TypeError, ValueError):  # None, or not what this tutor writes
            return None

    def _rebuild(self) -> LessonSet | None:
        """The validated lessons from the cached JSON; None if it does not validate."""
        from tutor.content.models import LessonSet

        try:
            return LessonSet.model_validate(self._cached)
        except ValueError:  # pydantic's ValidationError is a ValueError
            return None


# content read once by `tutor serve`'s session template, shared by every session it forks
_preloaded: dict[tuple[str, str], LessonContent] = {}


def preload_content(root: Path, cache_dir: Path | None) -> LessonContent:
    """Read the content under `root` now, for `open_content` to hand out later."""
    content = LessonContent(root, cache_dir)
    _preloaded[str(root), str(cache_dir)] = content
    return content


def open_content(root: Path, cache_dir: Path | None) -> LessonContent:
    """The content under `root`: the preloaded one while its files are unchanged (a served
    session forked from the template finds it in memory), else read now."""
    content = _preloaded.get((str(root), str(cache_dir)))
    if content is not None and content._key == _key(root):
        return content
    return LessonContent(root, cache_dir)


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
    core = code.parent / "core"
    files += [core / "facts.py", core / "tokenize.py", core / "names.py"]
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
