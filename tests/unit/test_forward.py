"""The numpy forward pass is the shipped model: its next-token probabilities are torch's."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tutor.core.forward import Forward, sentence_ids
from tutor.core.paths import default_model_dir

SENTENCES = ("小明把苹果给了", "叔叔说他每天去", "中国是一个国家，大家都很", "猫")

# torch, in its own process (the test process stays as light as the tutor), runs the
# model exactly as tutor/core/train.py defines it on the windows given on stdin.
TORCH_PROBS = """
import json, sys
import torch
from safetensors.torch import load_file
from tutor.core.train import TinyLM, TrainConfig
from tutor.core.paths import default_model_dir

folder = default_model_dir()
config = json.loads((folder / "config.json").read_text())
fields = {k: config[k] for k in TrainConfig.__dataclass_fields__ if k in config}
model = TinyLM(config["vocab_size"], TrainConfig(**fields))
model.load_state_dict(load_file(str(folder / "model.safetensors")))
model.eval()
windows = torch.tensor(json.load(sys.stdin), dtype=torch.long)
with torch.no_grad():
    probs = torch.softmax(model(windows), dim=-1)
json.dump(probs.tolist(), sys.stdout)
"""

pytest.importorskip("torch")


def torch_probs(windows: np.ndarray) -> np.ndarray:
    out = subprocess.run(
        [sys.executable, "-c", TORCH_PROBS],
        input=json.dumps(windows.tolist()),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    return np.asarray(json.loads(out), dtype=np.float64)


def test_next_token_probabilities_match_torch_on_several_sentences() -> None:
    forward = Forward.open(default_model_dir())
    windows = np.stack([forward.last_window(sentence_ids(forward, s)) for s in SENTENCES])
    ours = forward.probabilities(windows)
    theirs = torch_probs(windows)
    assert ours.shape == theirs.shape == (len(SENTENCES), forward.vocab_size)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(ours - theirs).max() < 1e-5
    # the same favourites, not merely small numbers everywhere
    assert (ours.argmax(axis=1) == theirs.argmax(axis=1)).all()


def test_a_sentence_is_read_after_the_end_of_text_token_as_training_saw_lines() -> None:
    forward = Forward.open(default_model_dir())
    ids = sentence_ids(forward, "猫")
    window = forward.last_window(ids)
    assert len(window) == forward.context
    assert window[-1] == ids[-1]
    assert set(window[:-1].tolist()) == {forward.end_of_text}


@pytest.mark.slow  # the whole validation text: about 10 s of numpy
def test_validation_loss_matches_the_training_log() -> None:
    """The mean loss over the whole validation text is the one train_log.json recorded."""
    forward = Forward.open(default_model_dir())
    log = json.loads((default_model_dir() / "train_log.json").read_text())
    loss = forward.mean_loss(forward.encode_lines(forward.validation_text()))
    assert loss == pytest.approx(log["val_loss"][-1], abs=1e-3)


def test_the_forward_pass_reads_the_tokenizer_the_app_already_holds() -> None:
    """Page 10 runs the model beside every page that tokenizes with it; a second copy of
    the project tokenizer was 4.2 MB of the walk's peak."""
    from tutor.core.tokenize import shared_tokenizer

    folder = default_model_dir()
    shared = shared_tokenizer(folder / "tokenizer.json")
    assert Forward.open(folder).tokenizer is shared
