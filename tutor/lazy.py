"""Names imported when first used: a start pays only for the modules its first screen needs.

Used by the content package's public names, the page screen for each page kind and the
widget for each lesson block, all spelled "package.module:Name".
"""

from __future__ import annotations

import importlib
from typing import Any


def load(spec: str) -> Any:
    """The object that "package.module:Name" names, importing its module on first use."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)
