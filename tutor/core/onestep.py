"""One training step on one sentence, taken in a child process (tutor/commands/one_step.py).

The numbers lesson says a step pushes only the rows the batch read; here the learner sees
it on the shipped model: the loss before and after one optimizer step on their sentence,
the input rows that changed (exactly the tokens read) and the output rows that changed
(all of them). torch is imported only by the child, as for the live training run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

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


def one_step(ids: list[int], eot: int, model_dir: Path, optimizer: Optimizer = "adam") -> OneStep:
    """Take one `optimizer` step of the model in `model_dir` on the sentence `ids`."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    lr = config["lr"] if optimizer == "adam" else SGD_LR
    command = [sys.executable, "-m", "tutor.commands.one_step", "--model", str(model_dir)]
    command += ["--ids", *map(str, ids[:MAX_TOKENS]), "--eot", str(eot)]
    command += ["--optimizer", optimizer, "--lr", str(lr)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise OneStepFailed(f"the training step did not finish: {last}", "step_failed", error=last)
    return OneStep.model_validate_json(lines[-1])
