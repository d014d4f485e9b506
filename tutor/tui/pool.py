"""The thread pool the app's thread workers run on: each job in a context of its own.

Textual's thread worker sets `active_worker` in the context of the pool thread that runs
it, and a pool thread keeps its context from job to job. The worker holds the widget that
started it, so every pool thread kept the last widget it worked for, with that widget's
page (the training page's whole run), until it next ran a job: under load, jobs spread
over more threads and pages outlived their turn.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

_loops_with_pool: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


class FreshContextPool(ThreadPoolExecutor):
    """A pool whose jobs each start in a new, empty context, and leave nothing behind.

    `asyncio.to_thread` still runs its function in the caller's context: it passes
    that context's `run` as the job."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(contextvars.Context().run, fn, *args, **kwargs)


def use_fresh_context_pool(loop: asyncio.AbstractEventLoop) -> None:
    """Make the loop's default executor a FreshContextPool, once per loop (apps tested
    one after another share a loop)."""
    if loop not in _loops_with_pool:
        loop.set_default_executor(FreshContextPool(thread_name_prefix="tutor-work"))
        _loops_with_pool.add(loop)
