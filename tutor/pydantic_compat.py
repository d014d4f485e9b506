"""The private part of pydantic the tutor relies on: its plugin loader, which a learner's
app replaces by one that finds no plugins (tutor.tuning.without_plugin_discovery)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable

from tutor.hooks import Hook

PLUGIN_LOADER = "pydantic.plugin._loader"

HOOKS = (Hook(f"{PLUGIN_LOADER}:get_plugins", "tutor.tuning", ()),)


def _no_plugins() -> Iterable[object]:
    return ()


def install_plugin_loader_without_plugins() -> bool:
    """pydantic imports its plugin loader as it builds the first model (and then asks it
    for the plugins of every model): from now on it finds this one. False (and nothing
    changed) if pydantic's own is loaded already."""
    if PLUGIN_LOADER in sys.modules:
        return False
    loader = types.ModuleType(PLUGIN_LOADER, "pydantic's plugin loader, finding no plugins")
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    sys.modules[PLUGIN_LOADER] = loader
    return True
