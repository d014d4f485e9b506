"""Reading a markdown file: UTF-8, front matter, YAML with positions, pydantic errors.

Every YAML snippet (the front matter, each widget block) is parsed by ruamel.yaml's
round-trip loader because it remembers where each key and value sits; a pydantic error's
`loc` is walked through that tree so the problem lands on the right `line:col` of the
markdown file, not of the snippet.
"""

from __future__ import annotations

import difflib
import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    NodeEvent,
)
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import ReaderError

from tutor.content.problems import Problem, Severity, control_name, is_control
from tutor.content.widgets import Loc
from tutor.core.refusal import Coded

M = TypeVar("M", bound=BaseModel)
FENCE_LINE = re.compile(r"\s*(---|\.\.\.)\s*")

# Limits on what one file may ask of the reader. A hostile or mistaken file must end in a
# located error within a second, not a hang, a memory blow-up or a RecursionError; the
# shipped lesson's largest file is 5 kB, its deepest YAML 5 levels, and it uses no aliases.
MAX_FILE_BYTES = 100_000
MAX_YAML_DEPTH = 32
MAX_YAML_ALIASES = 100
MAX_YAML_VALUES = 10_000  # values once every alias is expanded (a "billion laughs" has 10^9)
# ruamel's scanner looks up to 1,024 characters ahead at every bracket it has not closed, so
# a line of thousands of '[' takes seconds before the depth limit can be seen.
MAX_YAML_BRACKETS_PER_LINE = 64


def close_to(word: object, options: Sequence[str]) -> str | None:
    """The option close to word, if one is (a problem's `suggestion`)."""
    close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(suggestion: str | None) -> str:
    """` (did you mean 'x'?)` for a suggestion, else ''."""
    return f" (did you mean {suggestion!r}?)" if suggestion else ""


@dataclass(slots=True)
class SourceFile:
    """A markdown file's text, split into lines, with a factory for problems in it."""

    path: Path
    lines: list[str]

    def problem(
        self,
        line: int,
        col: int,
        message: str,
        severity: Severity = "error",
        width: int = 1,
        *,
        code: str,
        **values: Any,
    ) -> Problem:
        """The problem at line:col; `message` in English, `code` and `values` to say it in
        another language (tutor.content.problems)."""
        excerpt = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Problem(self.path, line, col, severity, message, excerpt, width, code, values)


def read_source(path: Path) -> tuple[SourceFile | None, Problem | None]:
    """The file as text, or a problem: not a regular file, too large, or not UTF-8 (at the
    first byte that is not)."""
    if not path.is_file():  # a FIFO or a device would block or never end
        message = "not a regular file; a lesson file is text"
        return None, Problem(path, 1, 1, "error", message, code="not_a_file")
    with path.open("rb") as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        size = path.stat().st_size
        message = (
            f"file is {size:,} bytes; a lesson file may be at most {MAX_FILE_BYTES:,} bytes: "
            "split it into several pages"
        )
        values = {"size": size, "limit": MAX_FILE_BYTES}
        return None, Problem(path, 1, 1, "error", message, code="too_large", values=values)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        line = data.count(b"\n", 0, error.start) + 1
        col = len(data[line_start : error.start].decode("utf-8")) + 1
        line_end = data.find(b"\n", error.start)
        excerpt = data[line_start : None if line_end < 0 else line_end]
        bad = data[error.start]
        message = f"file is not UTF-8: byte 0x{bad:02X} ({error.reason}); save it as UTF-8"
        shown = excerpt.decode("utf-8", "replace")
        values = {"byte": bad, "reason": error.reason}
        return None, Problem(
            path, line, col, "error", message, shown, code="not_utf8", values=values
        )
    text = text.removeprefix("\ufeff")
    return SourceFile(path, text.splitlines()), None


@dataclass(slots=True)
class Split:
    """A markdown file cut into front matter and body; line numbers are the file's, 1-based."""

    front: str | None
    front_line: int  # first line of the front matter's YAML
    body: list[str]
    body_line: int  # first line of the body


def split_front_matter(source: SourceFile) -> tuple[Split, Problem | None]:
    lines = source.lines
    if not lines or not FENCE_LINE.fullmatch(lines[0]) or lines[0].strip() != "---":
        return Split(None, 1, lines, 1), None
    for index in range(1, len(lines)):
        if FENCE_LINE.fullmatch(lines[index]):
            front = "\n".join(lines[1:index])
            return Split(front, 2, lines[index + 1 :], index + 2), None
    message = "front matter opened here is never closed with '---'"
    unclosed = source.problem(1, 1, message, width=3, code="front_unclosed")
    return Split(None, 1, lines, 1), unclosed


@dataclass(slots=True)
class YamlDoc:
    """A parsed YAML mapping: ruamel's tree (for positions) and plain Python data."""

    tree: Any
    data: Any
    first_line: int

    def position(self, loc: Loc, *, at_key: bool = False) -> tuple[int, int]:
        """File line and column (1-based) of the node at loc, or of its nearest parent.

        Collections are marked at their key, scalars at their value; at_key marks the key
        even for a scalar (for "unknown field" problems).
        """
        node = self.tree
        line, col = (node.lc.line, node.lc.col) if hasattr(node, "lc") else (0, 0)
        for depth, part in enumerate(loc):
            last = depth == len(loc) - 1
            if isinstance(node, dict) and part in node:
                child = node[part]
                use_key = (last and at_key) or isinstance(child, dict | list)
                line, col = node.lc.key(part) if use_key else node.lc.value(part)
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                child = node[part]
                line, col = node.lc.item(part)
            else:
                break
            node = child
        return self.first_line + line, col + 1

    def value_position(self, loc: Loc) -> tuple[int, int] | None:
        """File line and column where the value at loc starts, a collection too; None if
        loc is not in the tree."""
        node = self.tree
        line = col = 0
        for part in loc:
            if isinstance(node, dict) and part in node:
                line, col = node.lc.value(part)
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                line, col = node.lc.item(part)
            else:
                return None
            node = node[part]
        return self.first_line + line, col + 1


def _plain(node: Any) -> Any:
    """ruamel's commented containers and scalar subclasses -> plain dict/list/str/float."""
    if isinstance(node, dict):
        return {key: _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    for plain_type in (int, float, str):
        if isinstance(node, plain_type):
            return plain_type(node)
    return node


def _what(widget: str) -> str:
    """The YAML snippet a problem is in: the front matter, or a widget's block."""
    return f"the {widget} widget" if widget else "front matter"


def parse_yaml(
    source: SourceFile, text: str, first_line: int, widget: str = ""
) -> tuple[YamlDoc | None, Problem | None]:
    """Parse a YAML mapping that starts at first_line of the file (the front matter, or the
    block of `widget`); None data = empty."""
    what = _what(widget)
    too_many = _too_many_brackets(text, first_line, source)
    if too_many is not None:
        return None, too_many
    yaml = YAML(typ="rt", pure=True)
    yaml.Parser = _LimitedParser
    yaml.limits = _Limits(widget, first_line)  # read by _LimitedParser through its loader
    try:
        tree = yaml.load(text)
    except _LimitReached as reached:
        line, col = first_line + reached.mark.line, reached.mark.column + 1
        values = {"block": widget, **reached.values}
        return None, source.problem(line, col, str(reached), code=reached.code, **values)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + (mark.line if mark else 0)
        col = (mark.column if mark else 0) + 1
        braces = _braces_to_quote(source, line)
        if braces is not None:
            at, value = braces
            message = (
                f"YAML syntax error in {what}: a value that starts with '{{{{' must be in "
                f'quotes, or YAML reads a mapping: "{value}"'
            )
            problem = source.problem(
                line, at, message, width=len(value), code="yaml_braces", block=widget, value=value
            )
            return None, problem
        reason = error.problem or error.context or "cannot be read"
        message = f"YAML syntax error in {what}: {reason}"
        return None, source.problem(
            line, col, message, code="yaml_syntax", block=widget, reason=reason
        )
    except ReaderError as error:
        line = first_line + text.count("\n", 0, error.position)
        col = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        char = chr(error.character)
        if is_control(char):  # the same problem as control_problems(), which runs too
            return None, control_problem(source, line, col, char)
        message = f"YAML cannot contain the character U+{error.character:04X} ({what})"
        values = {"block": widget, "char": error.character}
        return None, source.problem(line, col, message, code="yaml_char", **values)
    if tree is None:
        tree = {}
    if not isinstance(tree, dict):
        found = type(_plain(tree)).__name__
        message = f"{what} must be a mapping of `field: value` lines, not a {found}"
        problem = source.problem(
            first_line, 1, message, code="not_a_mapping", block=widget, found=found
        )
        return None, problem
    return YamlDoc(tree, _plain(tree), first_line), None


UNQUOTED_VALUE_BRACES = re.compile(r"(?:^\s*-|:|\[|,)\s+(\{\{[^\n]*)|(?:\[|,)(\{\{[^\n]*)")


def _braces_to_quote(source: SourceFile, line: int) -> tuple[int, str] | None:
    """Column and text of an unquoted value on the line that starts with '{{' (a fact
    reference YAML cannot read as text), if there is one outside quotes."""
    text = source.lines[line - 1] if 0 < line <= len(source.lines) else ""
    for match in UNQUOTED_VALUE_BRACES.finditer(text):
        start = match.start(1) if match[1] is not None else match.start(2)
        if text.count('"', 0, start) % 2 == 0 and text.count("'", 0, start) % 2 == 0:
            value = (match[1] or match[2]).rstrip()
            return start + 1, value
    return None


def _too_many_brackets(text: str, first_line: int, source: SourceFile) -> Problem | None:
    for number, line in enumerate(text.split("\n")):
        opened = [col for col, char in enumerate(line) if char in "[{"]
        if len(opened) > MAX_YAML_BRACKETS_PER_LINE:
            at = opened[MAX_YAML_BRACKETS_PER_LINE] + 1
            message = (
                f"more than {MAX_YAML_BRACKETS_PER_LINE} '[' or '{{' on one line; "
                f"YAML may nest at most {MAX_YAML_DEPTH} levels: split the line"
            )
            values = {"limit": MAX_YAML_BRACKETS_PER_LINE, "depth": MAX_YAML_DEPTH}
            return source.problem(
                first_line + number, at, message, code="too_many_brackets", **values
            )
    return None


class _LimitReached(Coded):
    """A YAML limit, at the event that crossed it."""

    def __init__(self, message: str, mark: Any, *, code: str, **values: object) -> None:
        super().__init__(message, code, **values)
        self.mark = mark


class _Limits:
    """Depth, aliases and values once aliases expand, counted event by event as the YAML
    is composed: a bomb or a deep nest stops at the event that crosses a limit, before
    anything is built, expanded or recursed into."""

    def __init__(self, widget: str, first_line: int) -> None:
        self.what = _what(widget)
        self.first_line = first_line
        self.expanded: dict[Any, int] = {}  # anchor -> values it stands for
        self.defined: dict[Any, int] = {}  # anchor -> the file line it is defined on
        # values so far in each collection being read (the document first), and its anchor
        self.frames: list[list[Any]] = [[0, None]]
        self.aliases = 0

    def see(self, event: Any) -> None:
        what, frames, mark = self.what, self.frames, event.start_mark
        if not isinstance(event, AliasEvent) and getattr(event, "anchor", None) is not None:
            self._define(event)
        if isinstance(event, CollectionStartEvent):
            frames.append([1, event.anchor])
            if len(frames) - 1 > MAX_YAML_DEPTH:
                message = f"{what} nests deeper than {MAX_YAML_DEPTH} levels"
                raise _LimitReached(message, mark, code="too_deep", limit=MAX_YAML_DEPTH)
        elif isinstance(event, CollectionEndEvent):
            count, anchor = frames.pop()
            frames[-1][0] += count
            if anchor is not None:
                self.expanded[anchor] = count
        elif isinstance(event, AliasEvent):
            self.aliases += 1
            frames[-1][0] += self.expanded.get(event.anchor, 1)
            if self.aliases > MAX_YAML_ALIASES:
                message = f"{what} uses more than {MAX_YAML_ALIASES} aliases (*name)"
                raise _LimitReached(message, mark, code="too_many_aliases", limit=MAX_YAML_ALIASES)
        elif isinstance(event, NodeEvent):  # a scalar
            frames[-1][0] += 1
            if event.anchor is not None:
                self.expanded[event.anchor] = 1
        if sum(frame[0] for frame in frames) > MAX_YAML_VALUES:
            message = (
                f"{what} stands for more than {MAX_YAML_VALUES:,} values once its aliases "
                "(*name) are expanded"
            )
            raise _LimitReached(message, mark, code="too_many_values", limit=MAX_YAML_VALUES)

    def _define(self, event: Any) -> None:
        """An anchor (`&name`) is defined once: YAML lets a second one replace the first,
        which the YAML library only warns about, on stderr, in the snippet's lines."""
        first = self.defined.get(event.anchor)
        if first is None:
            self.defined[event.anchor] = self.first_line + event.start_mark.line
            return
        message = (
            f"{self.what} defines the anchor &{event.anchor} a second time (first on line "
            f"{first}); give each anchor its own name"
        )
        raise _LimitReached(
            message, event.start_mark, code="anchor_twice", anchor=str(event.anchor), first=first
        )


class _LimitedParser(Parser):
    """ruamel's parser, with every event counted by the loader's _Limits as it is read,
    before the composer so much as peeks at it (it warns of a reused anchor on a peek).
    What of ruamel's parser this relies on: tutor/content/yaml_compat.py."""

    def _read(self) -> None:
        if self.current_event is None and self.state:
            self.current_event = self.state()
            if self.current_event is not None:
                self.loader.limits.see(self.current_event)

    def check_event(self, *choices: Any) -> bool:
        self._read()
        return super().check_event(*choices)

    def peek_event(self) -> Any:
        self._read()
        return super().peek_event()

    def get_event(self) -> Any:
        self._read()
        return super().get_event()


def control_problem(
    source: SourceFile, line: int, col: int, char: str, field: str | None = None
) -> Problem:
    """A control character at line:col; `field` if it is written as a YAML escape there."""
    name = control_name(char)
    message = (
        f"control character {name}: a learner's terminal would act on it instead of showing "
        "it; delete it"
    )
    if field is None:
        return source.problem(line, col, message, code="control_char", char=name)
    message = f"{message} (written as an escape in {field!r})"
    return source.problem(line, col, message, code="control_escaped", char=name, field=field)


def control_problems(source: SourceFile) -> list[Problem]:
    """An error at the first control character of each line that holds one: ESC, OSC or
    CSI sequences in a title or a paragraph would be sent to every learner's terminal."""
    problems = []
    for number, line in enumerate(source.lines, 1):
        col = next((at for at, char in enumerate(line, 1) if is_control(char)), None)
        if col is not None:
            problems.append(control_problem(source, number, col, line[col - 1]))
    return problems


def escaped_controls(doc: YamlDoc, source: SourceFile) -> list[Problem]:
    """Control characters written as YAML escapes ("\\e", "\\x1b", "\\u009b"): the file
    itself is clean, the value is not."""
    problems = []

    def walk(value: Any, loc: Loc) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(key, loc)
                walk(item, (*loc, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*loc, index))
        elif isinstance(value, str):
            char = next((c for c in value if c != "\n" and is_control(c)), None)
            if char is not None:
                line, col = doc.position(loc)
                problems.append(control_problem(source, line, col, char, _loc_text(loc)))

    walk(doc.data, ())
    return problems


def _unwrap_optional(annotation: Any) -> Any:
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _annotation_at(model: type[BaseModel], loc: Loc) -> Any:
    """The declared type at loc inside model, so errors can list the valid names."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            args = typing.get_args(current)
            if typing.get_origin(current) is not list or not args:
                return None
            current = args[0]
        else:
            if not (isinstance(current, type) and issubclass(current, BaseModel)):
                return None
            field = current.model_fields.get(part)
            if field is None:
                return None
            current = field.annotation
        current = _unwrap_optional(current)
    return current


def _loc_text(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _got(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


_EXPECTED = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "model_type": "a mapping of fields",
    "dict_type": "a mapping of fields",
}
# how many entries, or how large a number, may be: the bound's name in pydantic's context
_BOUNDS = {
    "too_short": ("min_length", "{field!r} must list at least {limit}, lists {count}"),
    "too_long": ("max_length", "{field!r} must list at most {limit}, lists {count}"),
    "greater_than_equal": ("ge", "{field!r} must be at least {limit}, got {got}"),
    "less_than_equal": ("le", "{field!r} must be at most {limit}, got {got}"),
}
# every pydantic error type said in our words (its problem's code is `field.<type>`);
# another type is `field.other`, with pydantic's own message; a validator's `value_error`
# is said by the code of the Invalid it raised
FIELD_TYPES = ("missing", "extra_forbidden", "literal_error", *_EXPECTED, *_BOUNDS)

# A problem's English message, its code and its values.
Said = tuple[str, str, dict[str, Any]]


def _message(model: type[BaseModel], error: ErrorDetails) -> Said:
    loc = tuple(error["loc"])
    kind = error["type"]
    where = _loc_text(loc[:-1]) if len(loc) > 1 else ""
    in_where = f" in {where}" if where else ""
    name = str(loc[-1]) if loc else ""
    if kind == "missing":
        message = f"missing required field {name!r}{in_where}"
        return message, "field.missing", {"name": name, "where": where}
    if kind == "extra_forbidden":
        parent = _annotation_at(model, loc[:-1])
        close = close_to(name, list(parent.model_fields) if isinstance(parent, type) else [])
        message = f"unknown field {name!r}{in_where}{did_you_mean(close)}"
        return message, "field.extra_forbidden", {"name": name, "where": where, "suggestion": close}
    if kind == "value_error":
        raised = error.get("ctx", {}).get("error")
        if isinstance(raised, Coded) and raised.code:
            return str(raised), raised.code, dict(raised.values)
        reason = str(raised if raised is not None else error["msg"])
        field = _loc_text(loc)
        return f"{field!r}: {reason}", "field.other", {"field": field, "reason": reason}
    field, got = _loc_text(loc), _got(error.get("input"))
    if kind == "literal_error":
        options = typing.get_args(_annotation_at(model, loc))
        listed = ", ".join(repr(option) for option in options)
        close = close_to(error.get("input"), [str(option) for option in options])
        message = f"{field!r} must be one of {listed}; got {got}{did_you_mean(close)}"
        values = {"field": field, "options": listed, "got": got, "suggestion": close}
        return message, "field.literal_error", values
    if kind in _EXPECTED:
        message = f"{field!r} should be {_EXPECTED[kind]}, got {got}"
        return message, f"field.{kind}", {"field": field, "got": got}
    if kind in _BOUNDS:
        bound, text = _BOUNDS[kind]
        context = error.get("ctx", {})
        values = {"field": field, "limit": context.get(bound), "got": got}
        values["count"] = context.get("actual_length")
        return text.format(**values), f"field.{kind}", values
    message = f"{field!r}: {error['msg']}"
    return message, "field.other", {"field": field, "reason": error["msg"]}


def validate(model: type[M], doc: YamlDoc, source: SourceFile) -> tuple[M | None, list[Problem]]:
    """The model, or one problem per pydantic error, each at its place in the file."""
    try:
        return model.model_validate(doc.data), []
    except ValidationError as invalid:
        problems = []
        for error in invalid.errors():
            loc = tuple(error["loc"])
            unquoted = _unquoted_braces(doc, source, loc)
            if unquoted is not None:
                problems.append(unquoted)
                continue
            unknown = error["type"] == "extra_forbidden"
            line, col = doc.position(loc, at_key=unknown)
            width = len(str(loc[-1])) if unknown else 1
            message, code, values = _message(model, error)
            problems.append(source.problem(line, col, message, width=width, code=code, **values))
        return None, list(dict.fromkeys(problems))


UNQUOTED_BRACES = re.compile(r"\{\{.*?\}\}|\{\{.*")


def _unquoted_braces(doc: YamlDoc, source: SourceFile, loc: Loc) -> Problem | None:
    """`text: {{fact:x}}` is a mapping inside a mapping to YAML; say to quote it, at the value."""
    at = doc.value_position(loc)
    if at is None or not loc:
        return None
    line, col = at
    written = source.lines[line - 1][col - 1 :] if line <= len(source.lines) else ""
    braces = UNQUOTED_BRACES.match(written)
    if braces is None:
        return None
    field = _loc_text(loc)
    message = (
        f"{field!r} starts with '{{{{', which YAML reads as a mapping: "
        f'put the value in quotes, "{braces[0]}"'
    )
    values = {"field": field, "value": braces[0]}
    return source.problem(line, col, message, width=len(braces[0]), code="value_braces", **values)
