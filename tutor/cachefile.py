"""JSON files in the user cache dir, each valid only under the key it was written with.

Shared by the content cache (tutor.content.cache) and the parsed interface strings
(tutor.words.i18n): both keep the conclusion of slow work between starts, read back with
json alone. Neither layer owns these helpers, so they live beside both; where the cache
folder is, tutor.core.paths says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FORMAT = 1


def read_cached(path: Path, key: object) -> Any:
    """The data cached at path under exactly this key, else None."""
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if cached["format"] == FORMAT and cached["key"] == key:
            return cached["data"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def write_cached(path: Path, key: object, data: object) -> None:
    """Cache data at path under key; a cache that cannot be written only slows the next start."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": FORMAT, "key": key, "data": data}, ensure_ascii=False)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)  # readers see the old file or the new one, whole
    except OSError:
        temporary.unlink(missing_ok=True)
