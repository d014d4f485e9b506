"""How the tutor's process is tuned, every knob in one place with the reason it was measured
for (figures from bench/startup.py, bench/keys.py and bench/memory.py; docs/performance.md).

Garbage collection, the local app (`tutor`, applied by tutor.commands.app and
tutor.tui.app):
- off while Textual loads (`pause_collection`): importing it made about 90 collections of
  objects that all live on, charged to the first screen;
- one second after the first screen, or before the first page is built if that comes
  sooner, what survives a collection is frozen and collection is on again
  (`collect_from_now`): every full collection had rescanned Textual's objects, ~30 ms
  each (the heatmap switch's p95 went from 64.9 to 20.0 ms); never later, when a page
  would be frozen with them and never freed (the course walk 1.5-2 MB higher); without
  the collection when the first screen is a page (`tutor lesson ID`);
- Python's own full collections put off tenfold (FULL_COLLECTIONS_DEFERRED) and one run
  after each page turn instead (`collect_after_page_turn`): on Python's schedule one
  (20-160 ms) fell inside a page build every few turns (tests/tui/test_page_garbage.py);
- Python's schedule and collection given back when an app ends (`restore_collection`),
  however it ends: a crash before the first screen had left collection off.

Garbage collection, the served session template (tutor.serve.template): off while it
preloads, then everything frozen before it forks (`share_with_forks`), so no session's
collection scans (and so copies) the pages all sessions share.

C malloc (glibc), the local app:
- two arenas (`limit_arenas`), set once the first screen is drawn: glibc gives each
  thread that allocates an arena of its own, up to eight per core, and the tutor's
  threads (tokenizer and store workers, Textual's) each kept one resident (112-113 MB
  against 114-117 MB for the walk through a lesson, side by side);
- free memory given back after each page turn's collection (`give_back`): the page left
  behind is freed inside the arenas, and the next page's work otherwise grew on top.
In served sessions neither lowered the memory a session adds (docs/teachers.md): the
template does not apply them.

OpenSSL, the local app (`without_openssl`, applied by tutor.commands.app before Textual
loads): a learner's app talks to no network and hashes only with SHA-256, which Python
also has built in; asyncio imports `ssl` and hashlib imports `_hashlib`, and either maps
OpenSSL's libcrypto and sets it up, about 4 MB of every learner's memory (the walk
through the course peaked at 104.9 and 105.3 against 108.9 and 108.4 MB, bench/memory.py
side by side; docs/performance.md). The modules are marked absent, the way Python runs
where it was built without OpenSSL, and asyncio and hashlib take their documented
fallbacks. Only when none of them is loaded yet: a process that already has one (a test
run, the served template) is left as it is.

pydantic's plugins, the local app (`without_plugin_discovery`, applied with
`without_openssl`): as it builds its first model, pydantic imports its plugin loader, and
that imports importlib.metadata (email, zipfile, csv) to read every installed package's
entry points. The tutor uses no pydantic plugin; the loader is replaced by one that finds
none (tutor.pydantic_compat), and the course walk stays 1.1-1.5 MB lower (bench/memory.py).

The build: torch's CPU kernels are pinned (tutor/core/kernels.py, a build input kept
there, imported by tutor/core/train.py before torch), so a build computes the same bits
on any x86-64 CPU with AVX2. Nothing here imports torch.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

from tutor import pydantic_compat

PYTHON_GC_THRESHOLD = gc.get_threshold()  # as the process had it, given back when an app ends
FULL_COLLECTIONS_DEFERRED = 10
FREEZE_AFTER_S = 1.0  # after the first screen, when Textual's long-lived objects are frozen
ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
OPENSSL_MODULES = ("ssl", "_ssl", "_hashlib")  # the modules that map libcrypto


def pause_collection() -> None:
    """No collections while the long-lived modules load; `collect_from_now` or
    `restore_collection` turns it on again."""
    gc.disable()


def collect_from_now(collect: bool = True) -> None:
    """What survives a collection now lives as long as the app: frozen, then collection
    on, with full collections left to the app (`collect_after_page_turn`). Without
    `collect`, the garbage made so far is frozen too (before a first screen that is a
    page, about a thousand objects, where the collection took 20 ms of the start)."""
    if collect:
        gc.collect()
    gc.freeze()
    young, middle, full = PYTHON_GC_THRESHOLD
    gc.set_threshold(young, middle, full * FULL_COLLECTIONS_DEFERRED)
    gc.enable()


def collect_after_page_turn() -> None:
    """A page left behind holds its widgets in cycles: a full collection frees it, and
    what it freed goes back to the system."""
    gc.collect()
    give_back()


def without_openssl() -> bool:
    """From now on this process cannot load OpenSSL; False (and nothing changed) if a
    module that loads it is already in."""
    if any(name in sys.modules for name in OPENSSL_MODULES):
        return False
    for name in OPENSSL_MODULES:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    return True


def without_plugin_discovery() -> bool:
    """From now on pydantic finds no plugins, without looking; False (and nothing changed)
    if it has looked already."""
    return pydantic_compat.install_plugin_loader_without_plugins()


def restore_collection() -> None:
    """Python's own schedule, collection on: an app ended and the process may go on (a
    test, a preview)."""
    gc.set_threshold(*PYTHON_GC_THRESHOLD)
    gc.enable()


def share_with_forks() -> None:
    """Everything made so far frozen: a fork's collections never scan (so never copy) it."""
    gc.freeze()


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
    """Return the free memory C malloc holds to the system (glibc's malloc_trim); False
    where there is no such call."""
    import ctypes

    trim = _glibc("malloc_trim", ctypes.c_size_t)
    return trim is not None and trim(0) == 1
