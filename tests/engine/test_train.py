"""Training: the loss falls, the model directory opens, bad corpora get one-line errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from tutor.core import corpus as corpus_mod  # noqa: E402
from tutor.core.model import open_model  # noqa: E402
from tutor.core.train import TrainConfig, save_model_dir, train  # noqa: E402
from tutor.core.vocab import TokenizerSpec, build_byte_bpe  # noqa: E402

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


@pytest.fixture(scope="module")
def small():
    corpus = corpus_mod.generate(zh_train=1500, zh_valid=100, en_train=10, en_valid=10)
    return corpus, build_byte_bpe(corpus, TokenizerSpec("small", 600, 1.0, 0.0, min_frequency=20))


def test_short_run_lowers_the_loss_and_is_deterministic(small, tmp_path):
    corpus, tokenizer = small
    cfg = TrainConfig(hidden_size=16, steps=150, batch=256, eval_every=50)
    model, before, log = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
    uniform_guess = torch.log(torch.tensor(float(tokenizer.get_vocab_size()))).item()
    assert log.val_loss[0] > log.val_loss[-1]
    assert log.val_loss[-1] < uniform_guess - 1.0
    again, before_again, log_again = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
    assert before.keys() == before_again.keys() == {"model.embed_tokens.weight", "lm_head.weight"}
    for key, tensor in before.items():
        assert torch.equal(tensor, before_again[key])
    for (key, tensor), (_, tensor_again) in zip(
        model.state_dict().items(), again.state_dict().items(), strict=True
    ):
        assert torch.equal(tensor, tensor_again), key  # bit for bit, not merely close
    assert log_again.val_loss == log.val_loss
    save_model_dir(tmp_path, tokenizer, model, before, log, cfg, "small")
    opened = open_model(tmp_path)
    assert opened.table("after").dim == 16
    assert not (opened.table("before").weights == opened.table("after").weights).all()


def _tutor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *args], capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "corpus file not found"),
        (b"\xff\xfe not utf-8\n" * 50, "not UTF-8"),
        (b"", "is empty"),
        ("一行\n".encode() * 5, "too small to train on"),
    ],
)
def test_bad_corpus_is_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "corpus.txt"
    if content is not None:
        path.write_bytes(content)
    result = _tutor("train", "--corpus", str(path), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_train_on_own_corpus_then_open_it_with_model(tmp_path, small):
    corpus, _ = small
    text = tmp_path / "mine.txt"
    text.write_text(corpus.zh_train, encoding="utf-8")
    out = tmp_path / "model"
    result = _tutor("train", "--corpus", str(text), "--steps", "30", "--d", "8", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "step 30/30" in result.stderr
    for name in (
        "tokenizer.json",
        "model.safetensors",
        "embeddings_before.safetensors",
        "config.json",
        "train_log.json",
    ):
        assert (out / name).is_file()
    nb = _tutor("--model", str(out), "neighbours", "小明", "--scheme", "after", "--json")
    assert nb.returncode == 0, nb.stderr
    assert '"scheme": "after"' in nb.stdout
