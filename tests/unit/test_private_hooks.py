"""Every private name of a library the tutor relies on is listed in that library's compat
module, and is still there, taking the parameters the tutor passes: an upgrade that moves
one fails here, naming it and the tutor module that relies on it."""

from __future__ import annotations

import importlib
import importlib.util
import inspect

import pytest

from tutor import argparse_compat
from tutor.content import yaml_compat
from tutor.hooks import Hook
from tutor.tui import compat

HOOKS = (*compat.HOOKS, *argparse_compat.HOOKS, *yaml_compat.HOOKS)


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
