"""Private Textual and Rich modules are imported by tutor/tui/compat.py only, and what it
installs is what the wrappers use (every hook it lists: tests/unit/test_private_hooks.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import tutor
from tutor.tui import compat

PACKAGE = Path(tutor.__file__).parent


def _private_library_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        for name in names:
            parts = name.split(".")
            if parts[0] in ("textual", "rich") and any(p.startswith("_") for p in parts[1:]):
                found.append(name)
    return found


def test_only_compat_imports_private_textual_and_rich_modules() -> None:
    imports = {
        str(path.relative_to(PACKAGE)): found
        for path in PACKAGE.rglob("*.py")
        if path.name != "compat.py" or path.parent.name != "tui"
        if (found := _private_library_imports(path))
    }
    assert imports == {}


def test_the_wrap_patterns_are_the_ones_installed() -> None:
    import rich._wrap
    import textual._wrap

    from tutor.tui import cjk_wrap

    cjk_wrap.install()
    assert rich._wrap.re_word is cjk_wrap.RICH_WORD
    assert textual._wrap.re_chunk is cjk_wrap.TEXTUAL_CHUNK


def test_a_text_widget_class_is_found_once_loaded() -> None:
    from textual.widgets import Input, TextArea

    assert compat.loaded_widget_class("Input") is Input
    assert compat.loaded_widget_class("TextArea") is TextArea
