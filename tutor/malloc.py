"""C malloc kept to a few arenas.

glibc gives each thread that allocates an arena of its own, up to eight per core, and an
arena once touched stays resident. The tutor's threads (tokenizer and store workers,
Textual's own) made several MB of a learner's memory that way, with nothing gained: the
GIL lets one of them allocate at a time anyway. Two arenas keep the main thread's
allocations apart from the workers'.
"""

from __future__ import annotations

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap the arenas threads made from now on will use; False where the C library is not
    glibc (musl and macOS have no such setting, and nothing needs changing there)."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return mallopt(_M_ARENA_MAX, count) == 1


def give_back() -> bool:
    """Return the free memory C malloc holds to the system (glibc's malloc_trim): a page
    left behind frees its objects inside the arenas, and the next page's work would
    otherwise grow on top of what they kept resident. False where there is no such call."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    return trim(0) == 1
