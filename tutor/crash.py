"""The one way the tutor ends on a bug: a short apology with an incident id, never a
traceback, and exit status EXIT_CRASH.

The traceback goes where someone who can fix it will look. In a served session the
server hands the tutor a pipe (TUTOR_CRASH_FD) and writes what comes down it into its
log; a learner over SSH must not see server paths and variables. A local learner gets a
crash file in the data dir, and the apology says where it is.

The apology's two languages live here, not in strings.toml: the path that reports a
broken tutor must depend on as little of it as possible.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

EXIT_CRASH = 70  # EX_SOFTWARE: `tutor serve` logs such an exit as reason=crash
CRASH_FD_VARIABLE = "TUTOR_CRASH_FD"
# a served session's memory ceiling in MB (tutor.serve.child sets it)
MEMORY_VARIABLE = "TUTOR_SESSION_MEMORY_MB"
MAX_REPORT_BYTES = 64 * 1024  # one pipe's buffer: the write never waits on the server

_APOLOGY = {
    "zh": "抱歉，导师程序出了故障，已经停止（事件编号 {incident}）。此前的学习进度都已保存。",
    "en": "Sorry: the tutor stopped because of a fault in it (incident {incident}). "
    "Your progress up to here is saved.",
}
# instead of the apology when a served session ran into its memory ceiling
_OUT_OF_MEMORY = {
    "zh": "这次会话用到了服务器给每个会话的内存上限（{limit} MB），已经停止"
    "（事件编号 {incident}）。此前的学习进度都已保存；重新连接即可继续。",
    "en": "This session reached the memory limit the server gives each session ({limit} MB) "
    "and stopped (incident {incident}). Your progress up to here is saved; connect again "
    "to continue.",
}
_WHERE_SERVED = {
    "zh": "服务器的日志里记下了这个编号的详情；告诉老师这个编号即可。",
    "en": "The server's log has the details under this number; tell your teacher the number.",
}
_WHERE_FILE = {
    "zh": "详情在 {path}，报告问题时请附上这个文件。",
    "en": "The details are in {path}; please attach that file when you report it.",
}
_WHERE_NOWHERE = {
    "zh": "详情无法保存到 {path}：{why}。",
    "en": "The details could not be saved in {path}: {why}.",
}
# why, by the code tutor.progress.trouble gives an OSError (its errno); another error says
# the system's own words, labelled as such
_WHY = {
    "full": {"zh": "磁盘已满", "en": "the disk is full"},
    "no_permission": {"zh": "没有写入权限", "en": "there is no permission to write there"},
    "read_only": {"zh": "那里是只读的", "en": "it is read-only"},
    "not_a_folder": {"zh": "路径上有一处不是文件夹", "en": "part of the path is not a folder"},
    "io": {"zh": "磁盘读写出错", "en": "the disk failed to write"},
}
_WHY_UNKNOWN = {"zh": "系统的原话：{error}", "en": "{error}"}


def _why(error: OSError, lang: str) -> str:
    from tutor.progress.trouble import trouble

    known = _WHY.get(trouble(error))
    if known is not None:
        return known[lang]
    return _WHY_UNKNOWN[lang].format(error=error.strerror or error)


@dataclass(frozen=True, slots=True)
class Incident:
    id: str
    where: str  # the sentence that says where the details are


def record(error: BaseException, data_dir: Path, lang: str) -> Incident:
    """Write the traceback where it belongs (see the module's docstring)."""
    incident = secrets.token_hex(4)
    report = f"incident {incident}\n" + _traceback(error)
    lang = lang if lang in _APOLOGY else "zh"
    crash_fd = os.environ.get(CRASH_FD_VARIABLE, "")
    if crash_fd.isdigit():
        try:
            os.write(int(crash_fd), report.encode()[:MAX_REPORT_BYTES])
            return Incident(incident, _WHERE_SERVED[lang])
        except OSError:
            pass  # no server listening: a file, as for a local learner
    try:
        directory = data_dir / "crashes"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{time.strftime('%Y%m%d-%H%M%S')}-{incident}.txt"
        path.write_text(report, encoding="utf-8")
    except OSError as exc:
        where = _WHERE_NOWHERE[lang].format(path=data_dir, why=_why(exc, lang))
        return Incident(incident, where)
    return Incident(incident, _WHERE_FILE[lang].format(path=path))


def _traceback(error: BaseException) -> str:
    """The error's traceback. A failed worker's error (Textual's WorkerFailed, made and
    never raised, holds it as `error`) comes first with its own traceback, which says
    where the fault was; the wrapper's one line follows."""
    inner = getattr(error, "error", None)
    if isinstance(inner, BaseException) and inner.__traceback__ is not None:
        return "".join(traceback.format_exception(inner) + traceback.format_exception(error))
    return "".join(traceback.format_exception(error))


def report_crash(error: BaseException, data_dir: Path, lang: str) -> int:
    """Record the crash, apologise on stderr, and give the exit status to end with."""
    lift_memory_ceiling()
    incident = record(error, data_dir, lang)
    lang = lang if lang in _APOLOGY else "zh"
    limit = os.environ.get(MEMORY_VARIABLE, "")
    if limit.isdigit() and _out_of_memory(error):
        apology = _OUT_OF_MEMORY[lang].format(limit=f"{int(limit):,}", incident=incident.id)
    else:
        apology = _APOLOGY[lang].format(incident=incident.id)
    print(f"\n{apology}\n{incident.where}", file=sys.stderr, flush=True)
    return EXIT_CRASH


def lift_memory_ceiling() -> None:
    """A served session ends here, often because its ceiling was met: the report and the
    apology need memory too, so the soft limit goes back up to the hard one (the server's
    own ceiling, tutor.serve.process.limit_memory) for the moments that are left."""
    if not os.environ.get(MEMORY_VARIABLE, "").isdigit():
        return
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))


def _out_of_memory(error: BaseException | None) -> bool:
    """A MemoryError, or a thread that could not get its stack, or an error that another
    (a failed worker's) was raised from."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, MemoryError) or str(error) == "can't start new thread":
            return True
        error = error.__cause__ or error.__context__ or getattr(error, "error", None)
        seen += 1
    return False
