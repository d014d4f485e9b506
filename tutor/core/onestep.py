"""One training step on one sentence, taken in a child process (tutor/commands/one_step.py).

The numbers lesson says a step pushes only the rows the batch read; here the learner sees
it on the shipped model: the loss before and after one optimizer step on their sentence,
the input rows that changed (exactly the tokens read) and the output rows that changed
(all of them). torch is imported only by the child, as for the live training run, and
like a run the child holds a core: in a served session it takes one of the server's
live-training slots (tutor.core.live.Slot) and can be ended when the learner leaves.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tutor.core.live import Slot
from tutor.core.refusal import Coded

Optimizer = Literal["adam", "sgd"]
SGD_LR = 0.05  # plain SGD: small enough that one step on one sentence lowers its loss
TIMEOUT_S = 300  # importing torch on a busy machine takes tens of seconds; never for ever
MAX_TOKENS = 64  # one sentence, not a page


class OneStepFailed(Coded, RuntimeError):
    """The child ended without its answer (the message holds the last line it wrote)."""


class OneStep(BaseModel):
    """What one step did: the sentence's loss before and after, and which rows moved."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    loss_before: float
    loss_after: float
    read_ids: list[int]
    """Distinct input rows the sentence's windows read (its tokens and the end-of-text)."""
    changed_ids: list[int]
    """Input rows whose numbers changed in the step."""
    changed_by: list[float]
    """Each changed row's largest change of one number."""
    others_max: float
    """The largest change of any other input row (0.0: they did not move)."""
    head_changed: int
    """Output-layer rows that changed."""
    vocab_size: int


class StepProcess:
    """One step's child process and the live-training slot it holds until it ends.

    Taking the slot is the constructor (SlotBusy when none is free), so a refusal comes
    before any work; `run` may then go on a worker thread while `cancel`, from any thread,
    ends the child and frees the slot.
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        self._slot = Slot(environ)
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._cancelled = False

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def exit_code(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def run(self, ids: list[int], eot: int, model_dir: Path, optimizer: Optimizer) -> OneStep:
        """Take one `optimizer` step of the model in `model_dir` on the sentence `ids`."""
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        lr = config["lr"] if optimizer == "adam" else SGD_LR
        command = [sys.executable, "-m", "tutor.commands.one_step", "--model", str(model_dir)]
        command += ["--ids", *map(str, ids[:MAX_TOKENS]), "--eot", str(eot)]
        command += ["--optimizer", optimizer, "--lr", str(lr)]
        try:
            with self._lock:
                if self._cancelled:
                    raise OneStepFailed("the training step was cancelled", "step_failed")
                self._process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,  # its own group, so cancel ends all of it
                )
            try:
                out, err = self._process.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.cancel()
                out, err = self._process.communicate()
        finally:
            with self._lock:
                self._slot.release()
        lines = out.strip().splitlines()
        if self._process.returncode != 0 or not lines:
            last = (err.strip().splitlines() or [f"exit status {self._process.returncode}"])[-1]
            raise OneStepFailed(
                f"the training step did not finish: {last}", "step_failed", error=last
            )
        return OneStep.model_validate_json(lines[-1])

    def cancel(self) -> None:
        """End the child (if it started) and free the slot; a later `run` does nothing."""
        with self._lock:
            self._cancelled = True
            process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        with self._lock:
            self._slot.release()


def one_step(ids: list[int], eot: int, model_dir: Path, optimizer: Optimizer = "adam") -> OneStep:
    """Take one `optimizer` step of the model in `model_dir` on the sentence `ids`."""
    return StepProcess().run(ids, eot, model_dir, optimizer)
