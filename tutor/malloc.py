"""C malloc kept small: a few arenas, and free memory given back.

glibc gives each thread that allocates an arena of its own, up to eight per core, and an
arena once touched stays resident. The tutor's threads (tokenizer and store workers,
Textual's own) made several MB of a learner's memory that way, with nothing gained: the
GIL lets one of them allocate at a time anyway. Two arenas keep the main thread's
allocations apart from the workers'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def _glibc(name: str, *argtypes: Any) -> Callable[..., int] | None:
    """glibc's function `name`, or None where the C library has none (musl, macOS: there
    nothing needs changing)."""
    import ctypes

    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    return function


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap the arenas threads made from now on will use; False where it cannot be."""
    import ctypes

    mallopt = _glibc("mallopt", ctypes.c_int, ctypes.c_int)
    return mallopt is not None and mallopt(_M_ARENA_MAX, count) == 1


def give_back() -> bool:
    """Return the free memory C malloc holds to the system (glibc's malloc_trim): a page
    left behind frees its objects inside the arenas, and the next page's work would
    otherwise grow on top of what they kept resident. False where there is no such call."""
    import ctypes

    trim = _glibc("malloc_trim", ctypes.c_size_t)
    return trim is not None and trim(0) == 1
