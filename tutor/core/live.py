"""A learner's own training run, in a child process, streamed back checkpoint by checkpoint.

torch costs ~3.5 s and ~220 MB to import, and a training step holds a core; in the app's
process either would stall every key. So the app starts a child process, which
trains the project model's architecture at the learner's width and step count, records
the same tokens as the shipped run, and writes one JSON line per event to stdout
(tutor/commands/train_live.py). The app reads them on a thread; cancelling ends the
child. The finished run is a model directory that `tutor --model DIR` opens.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from tutor.core.refusal import Coded
from tutor.core.trajectory import Checkpoint, TrajectoryRecording

WIDTHS = (8, 16, 32, 64)
STEPS = (20, 100, 300, 1000)
CORPUS_ENV = "TUTOR_TRAIN_CORPUS"  # a UTF-8 text to train on instead of the project corpus
ENABLED_ENV = "TUTOR_LIVE_TRAINING"  # served sessions: how many runs the server allows
SLOTS_ENV = "TUTOR_LIVE_SLOTS"  # served sessions: the folder whose lock files count runs
REMOTE_ENV = "TUTOR_REMOTE"
# finished runs kept per learner (about 1.4 MB each); the oldest goes when a new one starts
MAX_KEPT_RUNS = 10
# a learner id a folder can be named after as it is (a key fingerprint, `/` aside)
_PLAIN_LEARNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9.:+=/-]{0,99}")


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Started(_Message):
    """The run's plan: what is recorded, how far it goes, the uniform-guess loss."""

    kind: Literal["started"] = "started"
    tokens: list[str]
    ids: list[int]
    categories: dict[str, list[str]]
    total_steps: int
    vocab_size: int


class Reached(_Message):
    """One checkpoint: both losses and the recorded tokens' rows (float32, base64)."""

    kind: Literal["checkpoint"] = "checkpoint"
    step: int
    train_loss: float
    val_loss: float
    shape: tuple[int, int]
    rows: str

    @classmethod
    def of(cls, checkpoint: Checkpoint) -> Reached:
        rows = np.ascontiguousarray(checkpoint.rows, dtype=np.float32)
        return cls(
            step=checkpoint.step,
            train_loss=checkpoint.train_loss,
            val_loss=checkpoint.val_loss,
            shape=(rows.shape[0], rows.shape[1]),
            rows=base64.b64encode(rows.tobytes()).decode("ascii"),
        )

    def checkpoint(self) -> Checkpoint:
        rows = np.frombuffer(base64.b64decode(self.rows), dtype=np.float32).reshape(self.shape)
        return Checkpoint(self.step, self.train_loss, self.val_loss, rows)


class Finished(_Message):
    kind: Literal["finished"] = "finished"
    model_dir: str
    warning: str = ""


class Failed(_Message):
    """The run stopped: `message` in English; `code` and `values` (tutor.core.refusal)
    where the reason has them, for the app to say it in the learner's language."""

    kind: Literal["failed"] = "failed"
    message: str
    code: str = ""
    values: dict[str, str | int] = {}

    @classmethod
    def of(cls, error: Exception) -> Failed:
        values = getattr(error, "values", {})
        return cls(
            message=str(error),
            code=getattr(error, "code", ""),
            values={k: v if isinstance(v, int) else str(v) for k, v in values.items()},
        )


LiveMessage = Annotated[Started | Reached | Finished | Failed, Field(discriminator="kind")]
_MESSAGE = TypeAdapter(LiveMessage)


def past_the_session_ceiling() -> None:
    """In a child process of the app: lift a served session's memory ceiling (tutor.serve
    .child), which bounds the app; torch alone holds about 0.9 GB, and the server counts
    such runs by `tutor serve --live-training N` instead."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))


def torch_available() -> bool:
    """Whether the train extra is installed, found without importing torch."""
    return importlib.util.find_spec("torch") is not None


def allowed_runs(env: Mapping[str, str]) -> int:
    """The server's limit on live runs (0: off); anything but a whole number is 0."""
    value = env.get(ENABLED_ENV, "0").strip()
    return int(value) if value.isdigit() else 0


class LiveUnavailable(Coded):
    """Why a live run cannot start here; the app says it by its code."""


def why_not(environ: dict[str, str] | None = None) -> LiveUnavailable | None:
    """Why a live run cannot start here (None when it can)."""
    env = os.environ if environ is None else environ
    if env.get(REMOTE_ENV) == "1" and not allowed_runs(env):
        return LiveUnavailable(
            "live training is off on this server; its admin can turn it on with "
            "`tutor serve --live-training N` (N runs at a time)",
            "off_here",
        )
    if not torch_available():
        return LiveUnavailable(
            "training needs torch, which is not installed here; install the train extra: "
            "pip install 'embedding-tutor[train]'",
            "no_torch",
        )
    return None


class SlotBusy(Coded, RuntimeError):
    """Every run this server allows is going."""


class Slot:
    """One of the server's N live-run slots: a lock file held while the run goes.

    A lock dies with the process that holds it, so a killed session frees its slot.
    Outside a served session there is no limit and no lock.
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        import fcntl

        env = os.environ if environ is None else environ
        self._file: IO[bytes] | None = None
        folder, limit = env.get(SLOTS_ENV), allowed_runs(env)
        if env.get(REMOTE_ENV) != "1" or not folder or limit < 1:
            return
        Path(folder).mkdir(parents=True, exist_ok=True)
        for n in range(limit):
            handle = (Path(folder) / f"run-{n}.lock").open("ab")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            self._file = handle
            return
        raise SlotBusy(
            f"all {limit} live training runs this server allows are going; try again in a "
            "few minutes",
            "slots_busy",
            limit=limit,
        )

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the lock
            self._file = None


def learner_folder(learner_id: str) -> str:
    """A folder name for one learner's runs: the id itself where it is plain (a key's
    fingerprint, whose `/` becomes `_`, which base64 never holds), else a digest of it."""
    if _PLAIN_LEARNER.fullmatch(learner_id):
        return learner_id.replace("/", "_")
    return "learner-" + hashlib.sha256(learner_id.encode()).hexdigest()[:24]


def make_room(folder: Path, keep: int = MAX_KEPT_RUNS) -> None:
    """Before a new run goes into `folder`: remove the oldest runs so that `keep - 1` stay,
    so a learner's runs never pile up past `keep`."""
    if not folder.is_dir():
        return
    runs = sorted((path for path in folder.iterdir() if path.is_dir()), key=_started)
    for old in runs[: max(len(runs) - (keep - 1), 0)]:
        shutil.rmtree(old, ignore_errors=True)


def _started(run: Path) -> float:
    return run.stat().st_mtime


class ChildRun:
    """The app's side of a child process that streams JSON lines: the process and the
    thread reading them, until a "finished" or "failed" line or the child's end.

    Start it from the app's main thread: the child asks to be killed when the thread that
    started it ends (Linux's parent-death signal), and a worker thread ends at once.
    """

    messages: TypeAdapter = _MESSAGE

    def _start(self, module: str, args: list[str], on_message: Callable[..., None]) -> None:
        self._on_message = on_message
        self._slot = Slot()
        self._cancelled = False
        # a file, not a pipe: a chatty child must never block on a pipe nobody reads yet
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the reader)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", module, *args, "--parent", str(os.getpid())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                start_new_session=True,  # the terminal's ctrl+c is the app's, not the run's
            )
        except OSError:
            self._slot.release()
            raise
        self._reader = threading.Thread(target=self._read, name="live-run", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        ended = False
        for line in self._process.stdout:
            try:
                message = self.messages.validate_json(line)
            except ValidationError:
                continue  # a stray line (a library's print) is not a message
            ended = ended or message.kind in ("finished", "failed")
            self._on_message(message)
        code = self._process.wait()
        self._errors.seek(0)
        errors = self._errors.read().decode("utf-8", "replace").strip()
        self._errors.close()
        self._slot.release()
        if not ended and not self._cancelled:
            last = errors.splitlines()[-1] if errors else ""
            message = f"the training process ended (exit {code}) {last}".rstrip()
            self._on_message(Failed(message=message, code="child_ended", values={"exit": code}))

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def cancel(self) -> None:
        """End the child; its partial output is removed by the child's own exit."""
        self._cancelled = True
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGTERM)
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)


class LiveRun(ChildRun):
    """A learner's training run (tutor.commands.train_live)."""

    def __init__(
        self, d: int, steps: int, out: Path, model_dir: Path, on_message: Callable[..., None]
    ) -> None:
        if d not in WIDTHS or steps not in STEPS:
            raise ValueError(f"choose d from {WIDTHS} and steps from {STEPS}")
        self.d, self.steps, self.out = d, steps, out
        args = ["--d", str(d), "--steps", str(steps), "--out", str(out), "--model", str(model_dir)]
        self._start("tutor.commands.train_live", args, on_message)


def recording_of(started: Started) -> TrajectoryRecording:
    """An empty recording for the checkpoints of a run that just started."""
    return TrajectoryRecording(started.tokens, started.ids, started.categories)
