"""Lesson folders -> a LessonSet, collecting every problem instead of stopping at the first.

An author fixing content wants the whole list in one run, so each file is checked as far
as it can be: a bad front matter does not stop the body's widgets and facts being checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from tutor.content.engine import EngineChecks
from tutor.content.markdown import markdown_parser
from tutor.content.models import (
    PAGE_FRONTS,
    BodyBlock,
    Lesson,
    LessonCard,
    LessonSet,
    MarkdownBlock,
    Page,
    PageFront,
    QuizFront,
    WidgetBlock,
    WrapupFront,
)
from tutor.content.problems import Problem
from tutor.content.source import (
    SourceFile,
    Split,
    YamlDoc,
    close_to,
    control_problems,
    did_you_mean,
    escaped_controls,
    parse_yaml,
    read_source,
    split_front_matter,
    validate,
)
from tutor.content.widgets import WIDGETS

CARD_FILE = "lesson.md"
PAGE_FILE = re.compile(r"(\d+)-[^.]+\.md")


@dataclass(slots=True)
class Parsed:
    """One markdown file after parsing: its front matter (if readable) and body blocks."""

    source: SourceFile
    doc: YamlDoc | None
    blocks: list[BodyBlock]
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Fence:
    """A fenced block of a page's body: its lines are body[opening:end]; info is what
    follows the opening fence."""

    opening: int
    end: int
    closed: bool
    info: str


def _fences(body: list[str]) -> list[Fence]:
    """Each fenced block that opens at its line's start, up to three spaces in (not behind
    a list marker or '>', where its lines could not be read as YAML).

    The blocks are the ones markdown-it finds, so check and the page agree on what is code.
    Trailing blanks are dropped first: a closing fence followed by a full-width space (as a
    Chinese input method types it) closes the block, as the author sees it does. Lines are
    the loader's own (`str.splitlines`), joined by "\n", so markdown-it's line numbers are
    indices into `body`."""
    text = "".join(line.rstrip() + "\n" for line in body)
    fences = []
    for token in markdown_parser(inline=False).parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        indent = len(body[start]) - len(body[start].lstrip(" "))
        if indent > 3 or not body[start][indent:].startswith(token.markup):
            continue
        # markdown-it's map ends after the closing fence, or after the last line it took
        # when the block was never closed: then every line after the opening is content
        closed = token.content.count("\n") == end - start - 2
        fences.append(Fence(start, end, closed, body[start][indent + len(token.markup) :]))
    return fences


def _widget_block(
    source: SourceFile, split: Split, opening: int, closing: int, engine: EngineChecks
) -> tuple[WidgetBlock | None, list[Problem]]:
    """The ```tutor <widget> fence at body line `opening`, validated, or its problems."""
    line = split.body_line + opening
    text = split.body[opening]
    words = text[text.index("tutor") :].split()
    known = ", ".join(WIDGETS)
    if len(words) < 2:
        col = text.index("tutor") + 1
        message = f"widget block needs a widget name: {known}"
        return None, [source.problem(line, col, message, code="widget_unnamed", known=known)]
    name = words[1]
    col = text.index(name, text.index("tutor") + 5) + 1
    if name not in WIDGETS:
        return None, [_unknown(source, line, col, name, WIDGETS, "widget")]
    if len(words) > 2:
        extra = " ".join(words[2:])
        at = text.index(words[2], col) + 1
        message = f"unexpected {extra!r} after the widget name"
        return None, [source.problem(line, at, message, code="widget_extra", extra=extra)]
    yaml_text = "\n".join(split.body[opening + 1 : closing])
    doc, problem = parse_yaml(source, yaml_text, line + 1, name)
    if doc is None:
        return None, [problem] if problem else []
    config, problems = validate(WIDGETS[name], doc, source)
    problems += escaped_controls(doc, source)
    problems = [
        replace(p, message=f"{name} widget: {p.message}", values={**p.values, "in_widget": name})
        for p in problems
    ]
    if config is None:
        return None, problems
    for loc, token in config.single_tokens():
        said = engine.split_message(token)
        if said is not None:
            at_line, at_col = doc.position(loc)
            message, code, values = said
            message = f"{name} widget: {message}"
            problem = source.problem(
                at_line, at_col, message, "warning", code=code, **values, in_widget=name
            )
            problems.append(problem)
    return WidgetBlock(widget=name, config=config, line=line), problems


def _unclosed(source: SourceFile, split: Split, fence: Fence) -> Problem:
    """A widget block never closed, or ended early by the end of the list item it is in."""
    if fence.end < len(split.body):
        message = (
            "the widget block ends here, with its list item: this line is less indented "
            "than the block's opening ```; indent it as far"
        )
        line = split.body_line + fence.end
        return source.problem(line, 1, message, code="widget_item_ended")
    message = "widget block is never closed with ```"
    line = split.body_line + fence.opening
    return source.problem(line, 1, message, code="widget_unclosed")


# What an author types to open a widget, wherever markdown reads the line
_WIDGET_OPENING = re.compile(r" {0,3}(?:`{3,}|~{3,})\s*tutor(?:\s|`|$)")


def _read_as_prose(source: SourceFile, split: Split, fences: list[Fence]) -> list[Problem]:
    """A warning at each line typed as a widget's opening fence that markdown reads as text
    (a backtick in its first line, an HTML block around it): the learner would see the YAML."""
    inside = {at for fence in fences for at in range(fence.opening, fence.end)}
    message = (
        "this line looks like a ```tutor widget block, but markdown reads it as text (a ` in "
        "its first line, or an HTML block around it): the page shows it as it is written"
    )
    return [
        source.problem(split.body_line + at, 1, message, "warning", code="widget_as_prose")
        for at, line in enumerate(split.body)
        if at not in inside and _WIDGET_OPENING.match(line)
    ]


def _body_blocks(
    source: SourceFile, split: Split, engine: EngineChecks
) -> tuple[list[BodyBlock], list[Problem]]:
    """Prose and widget blocks in order; other fenced code stays part of the prose."""
    blocks: list[BodyBlock] = []
    fences = _fences(split.body)
    problems: list[Problem] = _read_as_prose(source, split, fences)

    def add_prose(start: int, end: int) -> None:
        filled = [at for at in range(start, end) if split.body[at].strip()]
        if filled:
            text = "\n".join(split.body[filled[0] : filled[-1] + 1])
            blocks.append(MarkdownBlock(text=text, line=split.body_line + filled[0]))

    index = 0
    for fence in fences:
        if fence.info.split()[:1] != ["tutor"]:
            continue
        add_prose(index, fence.opening)
        if not fence.closed:
            problems.append(_unclosed(source, split, fence))
            return blocks, problems
        block, found = _widget_block(source, split, fence.opening, fence.end - 1, engine)
        problems += found
        if block is not None:
            blocks.append(block)
        index = fence.end
    add_prose(index, len(split.body))
    return blocks, problems


@dataclass(slots=True)
class Reading:
    """What one load shares: the engine checks, the folder no file may resolve outside
    of, and files parsed by earlier loads (tutor preview loads again on every save)."""

    engine: EngineChecks
    inside: Path
    earlier: ParsedFiles | None = None


class ParsedFiles:
    """Parsed files by path, reused by a later load while the file's size, modification
    time and inode are unchanged: a save re-parses one file, not the whole lesson."""

    def __init__(self) -> None:
        self._parsed: dict[Path, tuple[tuple[int, int, int], Parsed]] = {}

    def parse(self, path: Path, engine: EngineChecks) -> Parsed:
        try:
            status = path.stat()
        except OSError:
            return _read_and_parse(path, engine)
        stamp = (status.st_size, status.st_mtime_ns, status.st_ino)
        known = self._parsed.get(path)
        if known is None or known[0] != stamp:
            known = stamp, _read_and_parse(path, engine)
            self._parsed[path] = known
        return replace(known[1], problems=list(known[1].problems))  # callers add problems


def _parse(path: Path, reading: Reading) -> Parsed:
    """The file at path, read only if it really is inside the folder `reading.inside`."""
    if not path.resolve().is_relative_to(reading.inside):
        return Parsed(SourceFile(path, []), None, [], [_outside(path, reading.inside)])
    if reading.earlier is not None:
        return reading.earlier.parse(path, reading.engine)
    return _read_and_parse(path, reading.engine)


def _read_and_parse(path: Path, engine: EngineChecks) -> Parsed:
    source, unreadable = read_source(path)
    if unreadable is not None or source is None:
        return Parsed(SourceFile(path, []), None, [], [unreadable] if unreadable else [])
    split, unclosed = split_front_matter(source)
    parsed = Parsed(source, None, [], control_problems(source))
    if unclosed is not None:
        parsed.problems.append(unclosed)
    elif split.front is None:
        message = "missing front matter: the file starts with '---', its fields, then '---'"
        parsed.problems.append(source.problem(1, 1, message, code="front_missing"))
    else:
        parsed.doc, problem = parse_yaml(source, split.front, split.front_line)
        if problem is not None:
            parsed.problems.append(problem)
        if parsed.doc is not None:
            parsed.problems += escaped_controls(parsed.doc, source)
    parsed.blocks, found = _body_blocks(source, split, engine)
    parsed.problems += found
    parsed.problems += engine.fact_problems(source)
    parsed.problems = list(dict.fromkeys(parsed.problems))  # a control character once
    return parsed


def _outside(path: Path, inside: Path) -> Problem:
    """Never the target's name or text: a link may point at anything on the machine."""
    message = (
        f"{path.name} is a link to a file outside the content folder {inside}; "
        "the tutor reads only files inside it (copy the file in instead)"
    )
    values = {"name": path.name, "folder": str(inside)}
    return Problem(path, 1, 1, "error", message, code="outside", values=values)


def _unknown(
    source: SourceFile, line: int, col: int, name: object, known: dict, what: str
) -> Problem:
    """An unknown widget or page kind (`what`): the one it is close to, or every one."""
    close = close_to(name, list(known))
    listed = ", ".join(known)
    widget = what == "widget"
    hint = did_you_mean(close) or f"; {'widgets' if widget else 'kinds'}: {listed}"
    message = f"unknown {'widget' if widget else 'page kind'} {name!r}{hint}"
    values = {"known": listed} if close is None else {"suggestion": close}
    return source.problem(
        line,
        col,
        message,
        width=len(str(name)),
        code=("unknown_widget" if widget else "unknown_kind")
        if close is not None
        else ("unknown_widget_listed" if widget else "unknown_kind_listed"),
        name=name,
        **values,
    )


def _page_front(parsed: Parsed) -> PageFront | None:
    doc, source = parsed.doc, parsed.source
    if doc is None:
        return None
    kind = doc.data.get("kind")
    if kind is None:
        line, col = doc.position(())
        message = "missing required field 'kind'"
        problem = source.problem(line, col, message, code="field.missing", name="kind", where="")
        parsed.problems.append(problem)
        return None
    if not isinstance(kind, str) or kind not in PAGE_FRONTS:
        line, col = doc.position(("kind",))
        parsed.problems.append(_unknown(source, line, col, kind, PAGE_FRONTS, "kind"))
        return None
    front, problems = validate(PAGE_FRONTS[kind], doc, source)
    parsed.problems += problems
    return front


def _load_page(path: Path, number: int, reading: Reading) -> tuple[Page | None, Parsed]:
    parsed = _parse(path, reading)
    front = _page_front(parsed)
    if front is None:
        return None, parsed
    return Page(path=path, number=number, front=front, body_blocks=parsed.blocks), parsed


def _load_card(
    folder: Path, known_lessons: set[str], reading: Reading
) -> tuple[LessonCard | None, Parsed]:
    parsed = _parse(folder / CARD_FILE, reading)
    if parsed.doc is None:
        return None, parsed
    card, problems = validate(LessonCard, parsed.doc, parsed.source)
    parsed.problems += problems
    if card is None:
        return None, parsed
    folder_name = folder.resolve().name
    if card.id != folder_name:
        line, col = parsed.doc.position(("id",))
        message = f"lesson id {card.id!r} must match its folder name {folder_name!r}"
        problem = parsed.source.problem(
            line, col, message, code="id_not_folder", id=card.id, folder=folder_name
        )
        parsed.problems.append(problem)
    named = [
        (("prerequisites", index, "lesson"), prerequisite.lesson, "unknown_prerequisite")
        for index, prerequisite in enumerate(card.prerequisites)
    ]
    named.append((("next_lesson",), card.next_lesson, "unknown_next_lesson"))
    for where, lesson, code in named:
        if lesson is not None and lesson not in known_lessons:
            line, col = parsed.doc.position(where)
            close = close_to(lesson, sorted(known_lessons))
            what = "prerequisite" if code == "unknown_prerequisite" else "next"
            message = f"unknown {what} lesson {lesson!r}{did_you_mean(close)}"
            problem = parsed.source.problem(
                line, col, message, code=code, lesson=lesson, suggestion=close
            )
            parsed.problems.append(problem)
    return card, parsed


def _page_number(path: Path) -> int | None:
    match = PAGE_FILE.fullmatch(path.name)
    return int(match[1]) if match else None


def _not_a_page(path: Path) -> Problem:
    message = f"{path.name!r} is not a page: pages are named NN-slug.md (e.g. 03-naive.md)"
    return Problem(path, 1, 1, "warning", message, code="not_a_page", values={"name": path.name})


def _questions(parsed_pages: list[tuple[Page, Parsed]]) -> list[Problem]:
    """Lesson-wide quiz rules: unique question ids, rubric ids that a summary defines."""
    problems: list[Problem] = []
    fronts = [page.front for page, _ in parsed_pages]
    claims = {
        claim.id
        for front in fronts
        if isinstance(front, QuizFront | WrapupFront) and front.summary is not None
        for claim in front.summary.rubric
    }
    seen: dict[str, Path] = {}
    for page, parsed in parsed_pages:
        if not isinstance(page.front, QuizFront) or parsed.doc is None:
            continue
        for index, question in enumerate(page.front.questions):
            if question.id in seen:
                line, col = parsed.doc.position(("questions", index, "id"))
                used = seen[question.id].name
                message = f"question id {question.id!r} is already used in {used}"
                problem = parsed.source.problem(
                    line, col, message, code="question_id_used", id=question.id, file=used
                )
                problems.append(problem)
            seen.setdefault(question.id, page.path)
            for claim_index, claim in enumerate(question.rubric):
                if claim not in claims:
                    line, col = parsed.doc.position(("questions", index, "rubric", claim_index))
                    close = close_to(claim, sorted(claims))
                    message = (
                        f"rubric claim {claim!r} is not in the lesson's summary rubric"
                        f"{did_you_mean(close)}"
                    )
                    problem = parsed.source.problem(
                        line, col, message, code="claim_unknown", claim=claim, suggestion=close
                    )
                    problems.append(problem)
    return problems


def _load_lesson(
    folder: Path, known_lessons: set[str], reading: Reading
) -> tuple[Lesson | None, Parsed, list[Problem]]:
    """The lesson (None if its card is invalid), its parsed card, and every problem found."""
    card, card_parsed = _load_card(folder, known_lessons, reading)
    problems = list(card_parsed.problems)
    pages: dict[int, tuple[Page, Parsed]] = {}
    first_file: dict[int, Path] = {}
    for path in sorted(folder.glob("*.md")):
        if path.name == CARD_FILE:
            continue
        number = _page_number(path)
        if number is None:
            problems.append(_not_a_page(path))
            continue
        page, parsed = _load_page(path, number, reading)
        if number in first_file:
            used = first_file[number].name
            message = f"page number {number} is already used by {used}"
            problems.append(
                parsed.source.problem(
                    1, 1, message, code="page_number_used", number=number, file=used
                )
            )
        first_file.setdefault(number, path)
        problems += parsed.problems
        if page is not None and first_file[number] == path:
            pages[number] = (page, parsed)
    ordered = [pages[number] for number in sorted(pages)]
    problems += _questions(ordered)
    if not first_file:
        message = "the lesson has no pages (NN-slug.md files beside lesson.md)"
        problems.append(Problem(folder / CARD_FILE, 1, 1, "error", message, code="no_pages"))
    if card is None:
        return None, card_parsed, problems
    pages = [page for page, _ in ordered]
    lesson = Lesson(path=folder, card=card, body_blocks=card_parsed.blocks, pages=pages)
    return lesson, card_parsed, problems


def _prerequisite_order(
    lessons: list[Lesson], cards: dict[str, tuple[SourceFile, YamlDoc]]
) -> tuple[list[Lesson], list[Problem]]:
    """Lessons after the lessons they need and after the lesson that names them as its
    next, otherwise by folder name: the course's order. Cycles of prerequisites are errors,
    because they leave no lesson to start the course with."""
    by_id = {lesson.id: lesson for lesson in lessons}
    before = {lesson.card.next_lesson: lesson for lesson in lessons if lesson.card.next_lesson}
    ordered: list[Lesson] = []
    placed: set[str] = set()
    path: list[str] = []
    problems: list[Problem] = []

    def visit(lesson: Lesson) -> None:
        path.append(lesson.id)
        previous = before.get(lesson.id)
        if previous is not None and previous.id not in placed and previous.id not in path:
            visit(previous)
        for index, prerequisite in enumerate(lesson.card.prerequisites):
            needed = prerequisite.lesson
            if needed not in by_id or needed in placed:
                continue
            if needed in path:
                cycle = " -> ".join([*path[path.index(needed) :], needed])
                source, doc = cards[lesson.id]
                line, col = doc.position(("prerequisites", index, "lesson"))
                message = f"prerequisites form a cycle: {cycle}"
                problems.append(source.problem(line, col, message, code="cycle", cycle=cycle))
                continue
            visit(by_id[needed])
        path.pop()
        placed.add(lesson.id)
        ordered.append(lesson)

    for lesson in sorted(lessons, key=lambda lesson: lesson.path.name):
        if lesson.id not in placed:
            visit(lesson)
    return ordered, problems


def _lesson_folders(folder: Path) -> list[Path]:
    return sorted(child for child in folder.iterdir() if (child / CARD_FILE).is_file())


def _load_single_file(path: Path, engine: EngineChecks) -> LessonSet:
    """`tutor check FILE`: that file alone; a lesson.md still sees its sibling lessons."""
    reading = Reading(engine, path.absolute().parent.resolve())
    if path.name == CARD_FILE:
        known = {child.name for child in _lesson_folders(path.resolve().parent.parent)}
        _, parsed = _load_card(path.parent, known, reading)
        return LessonSet(problems=parsed.problems)
    number = _page_number(path)
    if number is None:
        return LessonSet(problems=[_not_a_page(path)])
    _, parsed = _load_page(path, number, reading)
    return LessonSet(problems=parsed.problems)


def _file_order(problems: list[Problem]) -> list[Problem]:
    """Files in the order they were read, each file's problems top to bottom."""
    first_seen: dict[Path, int] = {}
    for problem in problems:
        first_seen.setdefault(problem.path, len(first_seen))
    return sorted(problems, key=lambda p: (first_seen[p.path], p.line, p.col))


def load_lessons(
    root: Path,
    *,
    model_dir: Path | None = None,
    facts_dir: Path | None = None,
    earlier: ParsedFiles | None = None,
) -> LessonSet:
    """Every lesson under root (a folder of lesson folders, one lesson folder, or one file).

    Widget tokens are checked against model_dir's tokenizer and fact keys against the
    facts in facts_dir (defaults: the shipped project model and assets). Files that
    `earlier` parsed and that have not changed since are not parsed again.
    """
    engine = EngineChecks(model_dir, facts_dir)
    lesson_set = _load(root, engine, earlier)
    lesson_set.problems = _file_order(lesson_set.problems)
    return lesson_set


def _load(root: Path, engine: EngineChecks, earlier: ParsedFiles | None) -> LessonSet:
    if not root.exists():
        nothing = Problem(root, 1, 1, "error", "no such file or folder", code="no_such_path")
        return LessonSet(problems=[nothing])
    if not root.is_dir():  # a file, or something that is neither (refused when read)
        return _load_single_file(root, engine)
    if (root / CARD_FILE).is_file():
        folders = [root]
        known = {child.name for child in _lesson_folders(root.resolve().parent)}
    else:
        folders = _lesson_folders(root)
        known = {folder.name for folder in folders}
    lessons: list[Lesson] = []
    cards: dict[str, tuple[SourceFile, YamlDoc]] = {}
    problems: list[Problem] = []
    for folder in folders:
        reading = Reading(engine, root.resolve(), earlier)
        lesson, card, found = _load_lesson(folder, known, reading)
        problems += found
        if lesson is not None and card.doc is not None:
            lessons.append(lesson)
            cards[lesson.id] = (card.source, card.doc)
    if not folders:
        message = f"no lessons here: expected {root}/<lesson-id>/{CARD_FILE}"
        values = {"root": str(root), "card": CARD_FILE}
        problems.append(Problem(root, 1, 1, "error", message, code="no_lessons", values=values))
    ordered, cycles = _prerequisite_order(lessons, cards)
    return LessonSet(lessons=ordered, problems=problems + cycles)
