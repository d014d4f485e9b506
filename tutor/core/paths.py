"""Where the shipped lesson content and assets live.

A wheel carries them under `tutor/_data/` (hatch force-include); an editable checkout
keeps them at the repository root. Both are found the same way, so `pip install .` and
`pip install -e .` give the same tutor.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

# The package is always unpacked on disk (the tutor memory-maps its tables), so its own
# path is enough; importlib.resources would add ~2 ms of imports to every start.
_PACKAGE = Path(__file__).resolve().parents[1]
_REPO_ROOT = _PACKAGE.parent


def _shipped(name: str) -> Path:
    packaged = _PACKAGE / "_data" / name
    if packaged.is_dir():
        return packaged
    return _REPO_ROOT / name


def assets_dir() -> Path:
    """The shipped assets: corpus, tokenizers, the project model, facts."""
    return _shipped("assets")


def content_dir() -> Path:
    """The shipped lessons (content/<lesson-id>/...)."""
    return _shipped("content")


def tokenizers_dir() -> Path:
    return assets_dir() / "tokenizers"


def corpus_dir() -> Path:
    return assets_dir() / "corpus"


def default_model_dir() -> Path:
    """The project model: the byte-bpe-zh tokenizer with its trained table."""
    return assets_dir() / "models" / "project"


def default_cache_dir() -> Path:
    """`TUTOR_CACHE_DIR` if set, else the platform's user cache dir."""
    override = os.environ.get("TUTOR_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    return _platform_cache_dir(os.environ.get("HOME"), os.environ.get("XDG_CACHE_HOME"))


@functools.cache
def _platform_cache_dir(home: str | None, xdg_cache_home: str | None) -> Path:
    """The platform's user cache dir, which depends on these two variables alone. Without
    HOME (a served session's environment) the lookup reads the password database: a
    session forked from its template finds it done there."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("embedding-tutor", appauthor=False))
