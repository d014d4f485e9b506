"""`tutor train` as people expect it: any step count, --out checked first, log-friendly
progress, a warning for a run worse than guessing, files with one mode."""

from __future__ import annotations

import io
import json
import math
import os
import stat
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from tutor.core import corpus as corpus_mod  # noqa: E402
from tutor.core.train import (  # noqa: E402
    TrainConfig,
    loss_warning,
    make_scheduler,
    print_progress,
    save_model_dir,
    train,
)
from tutor.core.vocab import TokenizerSpec, build_byte_bpe  # noqa: E402


@pytest.fixture(scope="module")
def small():
    corpus = corpus_mod.generate(zh_train=600, zh_valid=60, en_train=10, en_valid=10)
    return corpus, build_byte_bpe(corpus, TokenizerSpec("small", 400, 1.0, 0.0, min_frequency=20))


def _tutor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *args], capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("steps", range(1, 41))
def test_the_schedule_runs_for_every_step_count(steps):
    cfg = TrainConfig(steps=steps)
    weight = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([weight], lr=cfg.lr)
    sched = make_scheduler(opt, cfg)
    rates = []
    for _ in range(steps):
        opt.step()
        rates.append(opt.param_groups[0]["lr"])
        sched.step()
    assert all(0 < rate <= cfg.lr * (1 + 1e-9) for rate in rates)
    assert max(rates) > cfg.lr / 2  # the run reaches its peak rate


def test_ten_steps_train(small):
    corpus, tokenizer = small
    cfg = TrainConfig(hidden_size=8, steps=10, batch=64, eval_every=5)
    _, _, log = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
    assert log.val_steps == [5, 10]
    assert all(math.isfinite(v) for v in log.val_loss)


def test_the_default_schedule_is_unchanged():
    """The shipped model's 1,500 steps keep OneCycleLR's 10% warm-up."""
    weight = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([weight], lr=3e-3)
    sched = make_scheduler(opt, TrainConfig())
    assert isinstance(sched, torch.optim.lr_scheduler.OneCycleLR)
    reference = torch.optim.lr_scheduler.OneCycleLR(
        torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=3e-3),
        max_lr=3e-3,
        total_steps=1500,
        pct_start=0.1,
    )
    assert sched.total_steps == reference.total_steps
    assert sched._schedule_phases == reference._schedule_phases


@pytest.mark.slow  # a real `tutor train` process
def test_out_that_is_a_file_is_refused_before_training(tmp_path, small):
    corpus, _ = small
    text = tmp_path / "mine.txt"
    text.write_text(corpus.zh_train, encoding="utf-8")
    out = tmp_path / "taken"
    out.write_text("keep me", encoding="utf-8")
    result = _tutor("train", "--corpus", str(text), "--steps", "5", "--out", str(out))
    assert result.returncode == 2
    assert "is a file" in result.stderr
    assert "training d=" not in result.stderr  # refused before any training started
    assert out.read_text(encoding="utf-8") == "keep me"


@pytest.mark.slow  # a real `tutor train` process
def test_out_holding_other_files_is_refused(tmp_path, small):
    corpus, _ = small
    text = tmp_path / "mine.txt"
    text.write_text(corpus.zh_train, encoding="utf-8")
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.txt").write_text("mine", encoding="utf-8")
    result = _tutor("train", "--corpus", str(text), "--steps", "5", "--out", str(out))
    assert result.returncode == 2
    assert "thesis.txt" in result.stderr
    assert "training d=" not in result.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_one_line_on_a_terminal():
    stream = _Terminal()
    show = print_progress(100, stream=stream)
    for step in range(1, 101):
        show(step, 2.0, 1000.0, 1.0)
    text = stream.getvalue()
    assert text.count("\r") == 20  # every 5th step
    assert text.count("\n") == 1
    assert "step 100/100" in text


def test_progress_in_a_log_prints_a_line_every_few_seconds():
    stream = io.StringIO()
    clock = iter(float(t) for t in range(1000))  # one second per step
    show = print_progress(100, stream=stream, clock=lambda: next(clock), interval=10.0)
    for step in range(1, 101):
        show(step, 2.0, 1000.0, 1.0)
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert 9 <= len(lines) <= 12
    assert lines[-1].startswith("step 100/100")


def test_loss_worse_than_guessing_is_warned():
    vocab = 400
    assert loss_warning(math.log(vocab) + 0.1, vocab) is not None
    assert "too small" in loss_warning(math.log(vocab) + 0.1, vocab)
    assert loss_warning(math.log(vocab) - 0.1, vocab) is None


@pytest.mark.slow  # a real `tutor train` process
def test_a_run_worse_than_guessing_ends_with_the_warning(tmp_path, small):
    corpus, _ = small
    text = tmp_path / "mine.txt"
    text.write_text(corpus.zh_train, encoding="utf-8")
    out = tmp_path / "model"
    result = _tutor("train", "--corpus", str(text), "--steps", "1", "--d", "8", "--out", str(out))
    assert result.returncode == 0, result.stderr
    log = json.loads((out / "train_log.json").read_text(encoding="utf-8"))
    vocab = json.loads((out / "config.json").read_text(encoding="utf-8"))["vocab_size"]
    assert log["val_loss"][-1] > math.log(vocab)  # one step is no better than a guess
    assert "warning:" in result.stderr
    assert "ln V" in result.stderr


def test_written_files_share_one_mode(tmp_path, small):
    corpus, tokenizer = small
    cfg = TrainConfig(hidden_size=8, steps=2, batch=32, eval_every=1)
    model, before, log = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
    save_model_dir(tmp_path / "m", tokenizer, model, before, log, cfg, "small")
    umask = os.umask(0)
    os.umask(umask)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "m").iterdir()}
    assert set(modes.values()) == {0o666 & ~umask}, modes


def test_retraining_into_a_model_dir_drops_its_old_recorded_run(tmp_path, small):
    from tutor.core import trajectory

    corpus, tokenizer = small
    cfg = TrainConfig(hidden_size=8, steps=3, batch=32, eval_every=1)
    recording = trajectory.start_recording(tokenizer, corpus.zh_train, [], limit=10)
    model, before, log = train(
        tokenizer, corpus.zh_train, corpus.zh_valid, cfg, **recording.train_kwargs(cfg.steps)
    )
    out = tmp_path / "m"
    save_model_dir(out, tokenizer, model, before, log, cfg, "small", recording.trajectory())
    assert trajectory.has_trajectory(out)
    save_model_dir(out, tokenizer, model, before, log, cfg, "small")
    assert not trajectory.has_trajectory(out)
    assert not (out / trajectory.ROWS_FILE).exists()
