"""A stand-in for the tutor in a session: it reports what its process looks like and ends.

Run both ways a session starts: spawned (`python -m tests.serve.standin`) and forked from
the session template (its entry, `tests.serve.standin:report`), so tests can compare them.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

MARK = "STANDIN"
# signals 32 and 33: the C library's own (thread cancellation, set*id across threads),
# which it sets up as its threads need them; no program sees or sets them
GLIBC_RESERVED = 0b11 << 31


def process_facts(args: Sequence[str]) -> dict[str, object]:
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    stat = Path("/proc/self/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    handlers = {}
    for signum in sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}):
        try:
            handlers[int(signum)] = repr(signal.getsignal(signum))
        except (OSError, ValueError):
            continue
    return {
        "args": list(args),
        "env": dict(os.environ),
        "blocked_ignored_caught": [
            f"{int(status[k], 16) & ~GLIBC_RESERVED:016x}" for k in ("SigBlk", "SigIgn", "SigCgt")
        ],
        "handlers": handlers,
        "limits": Path("/proc/self/limits").read_text(),
        "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
        "session_leader": int(fields[3]) == os.getpid(),
        "terminal_is_controlling": os.tcgetpgrp(0) == os.getpid(),
        "stdio_on_tty": [os.isatty(fd) for fd in (0, 1, 2)],
        "stdout_line_buffered": sys.stdout.line_buffering,
        "crash_fd_is_pipe": os.path.exists("/proc/self/fd/3")
        and os.readlink("/proc/self/fd/3").startswith("pipe:"),
        "ppid": os.getppid(),
        "textual_loaded": "textual" in sys.modules,
    }


def report(args: Sequence[str]) -> int:
    print(MARK + json.dumps(process_facts(args)) + MARK, flush=True)
    return 5


if __name__ == "__main__":
    from tutor.serve.process import limit_memory

    limit_memory()  # as tutor.serve.child's main does before the tutor
    sys.exit(report(sys.argv[3:]))  # after the server pid and the entry


def echo_line(args: Sequence[str]) -> int:
    """Read one line from the terminal and say it back."""
    print(MARK + input() + MARK, flush=True)
    return 5


def faulty_tutor(args: Sequence[str]) -> int:
    """The real tutor, with a fault in its first screen on a terminal under 10 columns: a
    bug only some learners meet, the others' sessions running on beside them."""
    from tutor.cli import main
    from tutor.tui.app import TutorApp

    def fault(self: TutorApp) -> None:
        raise RuntimeError("a fault the test put in the first screen")

    if os.get_terminal_size(0).columns < 10:
        TutorApp.on_ready = fault  # type: ignore[method-assign]
    return main(list(args))


def out_of_memory_before_the_app(args: Sequence[str]) -> int:
    """A session whose memory ran out where no handler of the tutor's own runs (its
    imports, its argument parsing): the last allocation fails outside the app."""
    raise MemoryError


def aborted_tutor(args: Sequence[str]) -> int:
    """A session ended by the C library (a failed allocation in C code aborts): no
    Python handler runs at all."""
    print("drawn before the abort", flush=True)
    os.abort()
