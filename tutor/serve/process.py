"""What every process the server starts for a learner does and has, whether spawned
(child.py) or forked from the session template (template.py): its environment, its end of
the crash pipe, dying with the server, its memory ceiling, and being reaped."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tutor.crash import MEMORY_VARIABLE, lift_memory_ceiling, report_crash

MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"
_PR_SET_PDEATHSIG = 1
# the child's end of the pipe its crash report comes down (tutor.crash)
CRASH_FD = 3


def child_argv(entry: str, app_args: Sequence[str], learner_id: str) -> list[str]:
    """A spawned session's command line: child.py running `entry` (`module:function`) with
    `tutor`'s own arguments, which start at CHILD_ARGS_FROM (a forked session runs its
    template's entry with those)."""
    return [
        *(sys.executable, "-P", "-m", "tutor.serve.child", str(os.getpid()), entry),
        *app_args,
        "--learner",
        learner_id,
    ]


CHILD_ARGS_FROM = 6


def base_environment() -> dict[str, str]:
    """What every process the server starts for learners has in its environment, whoever
    the learner: the session template's whole environment (template.py)."""
    return {
        "LANG": "C.UTF-8",
        "PATH": MINIMAL_PATH,
        # the child imports the very tutor package the server runs
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        # many learners share the cores: one numeric thread per session
        "OMP_NUM_THREADS": "1",
    }


def reap(loop: asyncio.AbstractEventLoop, pid: int, pidfd: int) -> int | None:
    """A watched child's exit code (see os.waitstatus_to_exitcode) once it has exited, and
    its pidfd closed; None while it runs."""
    done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        return None
    loop.remove_reader(pidfd)
    os.close(pidfd)
    return os.waitstatus_to_exitcode(status)


def die_with_server(server_pid: int) -> None:
    """In the child: be killed when the server dies, however it dies (kill -9 included).

    The kernel sends the signal when the parent exits; a server that died before the
    request took effect is caught by comparing the parent with the pid it gave.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != server_pid:
        os._exit(1)


def limit_memory() -> None:
    """In the child: the session's memory ceiling, as the server set it in the environment.
    Only the soft limit: a live training run (its own process, counted by
    `--live-training`) raises it again for torch."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = int(os.environ[MEMORY_VARIABLE]) * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (ceiling, hard))


def end_session(argv: Sequence[str], run: Callable[[Sequence[str]], int]) -> int:
    """In the child: `run(argv)`, and whatever escapes it (an allocation past the ceiling
    in an import or in parsing, where the app's own crash path does not reach) ends
    through the crash path too, never as a child that could not start."""
    try:
        return run(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException as error:
        lift_memory_ceiling()
        from tutor.progress.store import default_data_dir
        from tutor.words.i18n import lang_of_argv

        return report_crash(error, default_data_dir(), lang_of_argv(argv))
