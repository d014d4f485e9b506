"""Every private Textual and Rich name the tutor relies on is listed in tutor/tui/compat.py,
and is still there, taking the parameters the tutor passes: a Textual or Rich upgrade that
moves one fails here, naming it and the tutor module that relies on it."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import tutor
from tutor.tui import compat

PACKAGE = Path(tutor.__file__).parent


def _resolve(target: str) -> tuple[object, str, object]:
    """(the owner, the attribute's name, the attribute or None if the owner sets it on its
    instances) for `module:Qualified.name`."""
    module_name, _, qualified = target.partition(":")
    owner: object = importlib.import_module(module_name)
    *path, name = qualified.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name, getattr(owner, name, None)


@pytest.mark.parametrize("hook", compat.HOOKS, ids=lambda hook: hook.target)
def test_the_hook_is_there_as_relied_on(hook: compat.Hook) -> None:
    try:
        owner, name, found = _resolve(hook.target)
    except (ImportError, AttributeError) as error:
        pytest.fail(f"{hook.target} is gone ({error}): {hook.used_by} relies on it")
    if hook.assigned:
        sources = [inspect.getsource(cls) for cls in inspect.getmro(owner)[:-1]]  # type: ignore[arg-type]
        assert any(f"self.{name} =" in s or f"self.{name}: " in s for s in sources), (
            f"{hook.target} is no longer set by {owner}: {hook.used_by} reads it"
        )
        return
    assert found is not None or hasattr(owner, name), (
        f"{hook.target} is gone: {hook.used_by} relies on it"
    )
    if hook.parameters is not None:
        parameters = tuple(inspect.signature(found).parameters)  # type: ignore[arg-type]
        assert parameters == hook.parameters, (
            f"{hook.target} now takes {parameters}, {hook.used_by} passes {hook.parameters}"
        )


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


def test_every_hooked_module_is_one_that_relies_on_it() -> None:
    """A hook's `used_by` names a tutor module that exists (so a dropped hook's entry goes
    with it)."""
    for hook in compat.HOOKS:
        assert importlib.util.find_spec(hook.used_by) is not None, hook


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
