"""One training step on one sentence, taken by the real child process on the shipped model:
only the rows the sentence read change in the input table, every output row changes, and
the sentence's loss goes down."""

from __future__ import annotations

import json

import pytest

from tutor.core.live import torch_available
from tutor.core.model import open_model
from tutor.core.onestep import one_step

pytestmark = [
    pytest.mark.slow,  # imports torch in a child process: tens of seconds
    pytest.mark.skipif(not torch_available(), reason="needs the train extra (torch)"),
]

SENTENCE = "小明把苹果给了小王"


@pytest.fixture(scope="module")
def sentence() -> tuple[list[int], int]:
    scheme = open_model().scheme
    return [t.id for t in scheme.encode(SENTENCE)], scheme.single_id("<|endoftext|>")


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_one_step_moves_only_the_rows_read_and_lowers_the_loss(
    sentence: tuple[list[int], int], optimizer: str
) -> None:
    ids, eot = sentence
    model_dir = open_model().path
    step = one_step(ids, eot, model_dir, optimizer)  # type: ignore[arg-type]
    assert step.read_ids == sorted({eot, *ids})
    assert step.changed_ids == step.read_ids
    assert step.others_max == 0.0  # not small: exactly zero
    assert step.head_changed == step.vocab_size  # every output row is pushed
    assert step.loss_after < step.loss_before
    if optimizer == "adam":
        lr = json.loads((model_dir / "config.json").read_text())["lr"]
        # Adam's first step is lr per number whatever the gradient's size (page 5's reason)
        assert step.changed_by == pytest.approx([lr] * len(step.changed_ids), abs=1e-6)
