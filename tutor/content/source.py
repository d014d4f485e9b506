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
from ruamel.yaml.reader import ReaderError

from tutor.content.problems import Problem, Severity
from tutor.content.widgets import Loc

M = TypeVar("M", bound=BaseModel)
FENCE_LINE = re.compile(r"\s*(---|\.\.\.)\s*")


def did_you_mean(word: object, options: Sequence[str]) -> str:
    """` (did you mean 'x'?)` when one option is close to word, else ''."""
    close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


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
    ) -> Problem:
        excerpt = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Problem(self.path, line, col, severity, message, excerpt, width)


def read_source(path: Path) -> tuple[SourceFile | None, Problem | None]:
    """The file as text, or a problem at the first byte that is not UTF-8."""
    data = path.read_bytes()
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
        return None, Problem(path, line, col, "error", message, excerpt.decode("utf-8", "replace"))
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
    unclosed = source.problem(1, 1, "front matter opened here is never closed with '---'", width=3)
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


def parse_yaml(
    source: SourceFile, text: str, first_line: int, what: str
) -> tuple[YamlDoc | None, Problem | None]:
    """Parse a YAML mapping that starts at first_line of the file; None data = empty."""
    try:
        tree = YAML(typ="rt", pure=True).load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + (mark.line if mark else 0)
        col = (mark.column if mark else 0) + 1
        reason = error.problem or error.context or "cannot be read"
        return None, source.problem(line, col, f"YAML syntax error in {what}: {reason}")
    except ReaderError as error:
        line = first_line + text.count("\n", 0, error.position)
        col = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        message = f"YAML cannot contain the control character U+{error.character:04X} ({what})"
        return None, source.problem(line, col, message)
    if tree is None:
        tree = {}
    if not isinstance(tree, dict):
        found = type(_plain(tree)).__name__
        return None, source.problem(
            first_line, 1, f"{what} must be a mapping of `field: value` lines, not a {found}"
        )
    return YamlDoc(tree, _plain(tree), first_line), None


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


def _message(model: type[BaseModel], error: ErrorDetails) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    where = f" in {_loc_text(loc[:-1])}" if len(loc) > 1 else ""
    name = loc[-1] if loc else ""
    if kind == "missing":
        return f"missing required field {name!r}{where}"
    if kind == "extra_forbidden":
        parent = _annotation_at(model, loc[:-1])
        fields = list(parent.model_fields) if isinstance(parent, type) else []
        return f"unknown field {name!r}{where}{did_you_mean(name, fields)}"
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    got = _got(error.get("input"))
    if kind == "literal_error":
        options = typing.get_args(_annotation_at(model, loc))
        listed = ", ".join(repr(option) for option in options)
        hint = did_you_mean(error.get("input"), [str(option) for option in options])
        return f"{_loc_text(loc)!r} must be one of {listed}; got {got}{hint}"
    if kind in _EXPECTED:
        return f"{_loc_text(loc)!r} should be {_EXPECTED[kind]}, got {got}"
    return f"{_loc_text(loc)!r}: {error['msg']}"


def validate(model: type[M], doc: YamlDoc, source: SourceFile) -> tuple[M | None, list[Problem]]:
    """The model, or one problem per pydantic error, each at its place in the file."""
    try:
        return model.model_validate(doc.data), []
    except ValidationError as invalid:
        problems = []
        for error in invalid.errors():
            loc = tuple(error["loc"])
            unknown = error["type"] == "extra_forbidden"
            line, col = doc.position(loc, at_key=unknown)
            width = len(str(loc[-1])) if unknown else 1
            problems.append(source.problem(line, col, _message(model, error), width=width))
        return None, problems
