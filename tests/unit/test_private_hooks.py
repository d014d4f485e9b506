"""Every private name of a library the tutor relies on is listed in that library's compat
module, and is still there, taking the parameters the tutor passes: an upgrade that moves
one fails here, naming it and the tutor module that relies on it."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import warnings
from functools import cache
from pathlib import Path

import pytest

import tutor
from tutor import argparse_compat, pydantic_compat
from tutor.content import yaml_compat
from tutor.hooks import Hook
from tutor.serve import compat as asyncssh_compat
from tutor.tui import compat

HOOKS = (
    *compat.HOOKS,
    *argparse_compat.HOOKS,
    *yaml_compat.HOOKS,
    *asyncssh_compat.HOOKS,
    *pydantic_compat.HOOKS,
)
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


@pytest.mark.parametrize("hook", HOOKS, ids=lambda hook: hook.target)
def test_the_hook_is_there_as_relied_on(hook: Hook) -> None:
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


@pytest.mark.parametrize("hook", HOOKS, ids=lambda hook: hook.target)
def test_the_module_said_to_rely_on_it_exists(hook: Hook) -> None:
    """So a hook dropped from the code goes from its list too."""
    assert importlib.util.find_spec(hook.used_by) is not None, hook


# Libraries whose private names the tutor may use only as its compat modules list them.
LIBRARIES = {
    "textual": compat,
    "rich": compat,
    "argparse": argparse_compat,
    "ruamel.yaml": yaml_compat,
    "asyncssh": asyncssh_compat,
    "pydantic": pydantic_compat,
    "markdown_it": None,  # no hook: a use fails until a compat module lists it
    "jieba": None,
    "tokenizers": None,
    "sqlite3": None,
    "psycopg": None,
}
# Public names that begin with an underscore: os._exit, and a named tuple's methods
PUBLIC = {"_exit", "_replace", "_asdict", "_fields", "_make"}


def _library_files(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [p for root in spec.submodule_search_locations for p in Path(root).rglob("*.py")]
    return [Path(spec.origin)] if spec.origin and spec.origin.endswith(".py") else []


def _defined_private(tree: ast.AST) -> set[str]:
    """Private names a source defines: functions, classes, and what it assigns."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.attr if isinstance(node, ast.Attribute) else node.id)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


# Where a name may begin with one underscore: a source without it defines no private name.
# jieba's tables (6 MB of dict literals) are most of the parsing otherwise, and have none.
_PRIVATE_START = re.compile(rb"(?<![A-Za-z0-9_])_(?!_)")


@cache
def _library_private() -> dict[str, set[str]]:
    """Each private name the libraries define, and which of them define it."""
    owners: dict[str, set[str]] = {}
    for library in LIBRARIES:
        for path in _library_files(library):
            source = path.read_bytes()
            if not _PRIVATE_START.search(source):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)  # their invalid escapes
                warnings.simplefilter("ignore", DeprecationWarning)
                tree = ast.parse(source)
            for name in _defined_private(tree):
                owners.setdefault(name, set()).add(library)
    return owners


@cache
def _tutor_trees() -> dict[str, ast.Module]:
    """Every tutor module's syntax tree by module name (read, never changed)."""
    return {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): ast.parse(
            path.read_text(encoding="utf-8")
        )
        for path in PACKAGE.rglob("*.py")
    }


def _own_private(trees: dict[str, ast.Module]) -> set[str]:
    """What the tutor defines itself: its functions, methods and classes, and what it sets
    on self (a method over a library's own is found by _overrides)."""
    names = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
    return names


def _overrides(module_name: str, tree: ast.Module) -> set[str]:
    """Private methods the module's classes define over a library class's own."""
    candidates = {
        (node.name, item.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        if item.name in _library_private()
    }
    if not candidates:
        return set()
    module = importlib.import_module(module_name)
    found = set()
    for class_name, name in candidates:
        cls = getattr(module, class_name, None)
        bases = inspect.getmro(cls)[1:] if inspect.isclass(cls) else ()
        library = [base for base in bases if base.__module__.split(".")[0] in LIBRARY_ROOTS]
        if any(name in vars(base) for base in library):
            found.add(name)
    return found


LIBRARY_ROOTS = {name.split(".")[0] for name in LIBRARIES}
COMPAT_MODULES = {module.__name__ for module in LIBRARIES.values() if module is not None}


def _uses() -> dict[tuple[str, str], set[str]]:
    """(tutor module, private name) -> the libraries that define the name, for every private
    library name a tutor module outside the compat modules reads, sets or overrides."""
    trees = _tutor_trees()
    own = _own_private(trees)
    library = _library_private()
    uses: dict[tuple[str, str], set[str]] = {}
    for module_name, tree in trees.items():
        if module_name in COMPAT_MODULES:
            continue
        names = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in library
            if node.attr not in own and node.attr not in PUBLIC
        } | _overrides(module_name, tree)
        for name in names:
            uses[(module_name, name)] = library[name]
    return uses


def test_no_private_library_name_is_used_unlisted() -> None:
    """A private name of Textual, Rich, argparse, ruamel.yaml, asyncssh, markdown-it, jieba,
    tokenizers, sqlite3 or psycopg read, set or overridden outside its library's compat
    module is listed there (HOOKS), so that an upgrade that moves it fails in this file."""
    listed = {(hook.used_by, hook.target.rpartition(".")[2]) for hook in HOOKS}
    unlisted = {
        f"{module} uses {name} ({', '.join(sorted(owners))})"
        for (module, name), owners in _uses().items()
        if (module, name) not in listed
    }
    assert sorted(unlisted) == []


def test_another_objects_private_library_names_are_reached_through_compat() -> None:
    """Outside the compat modules a private library name is read or set on self, cls or
    super() only (a subclass's own inherited state); another object's goes through a
    function of its library's compat module (tutor.tui.compat.taken_down, for one)."""
    library = _library_private()
    own = _own_private(_tutor_trees())
    found = sorted(
        f"{module}:{node.lineno} {ast.unparse(node)}"
        for module, tree in _tutor_trees().items()
        if module not in COMPAT_MODULES
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in library
        if node.attr not in own and node.attr not in PUBLIC
        if not _on_self(node.value)
    )
    assert found == []


def _on_self(value: ast.expr) -> bool:
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return isinstance(value, ast.Call) and ast.unparse(value.func) == "super"
