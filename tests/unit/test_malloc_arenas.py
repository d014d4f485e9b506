"""The tutor keeps C malloc to two arenas: every thread that allocated (tokenizer and store
workers, Textual's own) otherwise kept an arena of its own, several MB of a learner's
resident memory each (bench/memory.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent(
    """
    import ctypes, sys, tempfile, threading
    if sys.argv[1] == "limited":
        from tutor.tuning import limit_arenas
        assert limit_arenas() is True
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.fopen.restype = ctypes.c_void_p
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    all_in = threading.Barrier(8)

    def allocate():
        libc.malloc(4096)  # the thread's first malloc picks or makes its arena
        all_in.wait(timeout=60)  # all alive at once, so none hands its arena to the next

    threads = [threading.Thread(target=allocate) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with tempfile.NamedTemporaryFile() as out:
        fp = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, fp)
        libc.fclose(fp)
        print(open(out.name).read().count("<heap nr="))
    """
)


def heaps(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_info")
def test_eight_threads_share_two_arenas() -> None:
    assert heaps("default") >= 5  # what glibc does by itself: an arena per thread, nearly
    assert heaps("limited") == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_free_memory_can_be_given_back() -> None:
    """glibc has the call the app makes after each page turn's collection."""
    from tutor.tuning import give_back

    assert give_back() is True
