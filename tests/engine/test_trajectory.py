"""The recorded training run: its ends are the shipped tables, recording leaves the
weights alone, and the category contrast grows as the model trains."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tutor.commands.assets import lesson_tokens
from tutor.core import build, trajectory
from tutor.core.facts import load_facts
from tutor.core.model import open_model
from tutor.core.paths import assets_dir, default_model_dir
from tutor.core.similarity import cosine_matrix

MODEL_DIR = default_model_dir()


@pytest.fixture(scope="module")
def run():
    return trajectory.load(MODEL_DIR)


def _tutor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *args], capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("total", [1, 5, 29, 30, 200, 1500, 100_000])
def test_checkpoints_are_log_spaced_from_zero_to_the_last_step(total):
    steps = trajectory.checkpoint_steps(total)
    assert steps[0] == 0
    assert steps[-1] == total
    assert steps == sorted(set(steps))
    assert len(steps) == min(total + 1, trajectory.CHECKPOINTS) or (
        trajectory.CHECKPOINTS <= len(steps) <= trajectory.CHECKPOINTS + 2
    )
    if total >= 1000:  # as many frames in the first tenth as in the last half, or more
        assert sum(s <= total / 10 for s in steps) >= sum(s >= total / 2 for s in steps)


def test_step_zero_is_the_shipped_before_table_and_the_last_the_after_table(run):
    model = open_model(MODEL_DIR)
    before = model.table("before").lookup(run.meta.ids)
    after = model.table("after").lookup(run.meta.ids)
    assert np.array_equal(run.rows[0], before)
    assert np.array_equal(run.rows[-1], after)
    assert run.steps[-1] == model.config.steps


def test_the_category_contrast_grows_with_training(run):
    assert run.contrast[-1] > run.contrast[0] + 0.2
    assert abs(run.contrast[0]) < 0.1  # random rows: chance level


def test_contrast_is_the_average_over_all_pairs(run):
    groups = run.groups
    rows = run.rows[-1]
    within, across = [], []
    for g, group in enumerate(groups):
        for h, other in enumerate(groups):
            for i in group:
                for j in other:
                    if i != j:
                        cos = float(cosine_matrix(rows[[i, j]])[0, 1])
                        (within if g == h else across).append(cos)
    assert run.contrast[-1] == pytest.approx(np.mean(within) - np.mean(across))


def test_every_lesson_widget_token_and_category_word_is_recorded(run):
    assert set(lesson_tokens()) <= set(run.tokens)
    assert len(run.meta.categories) == 4
    assert all(len(members) >= 5 for members in run.meta.categories.values())
    assert len(run.tokens) == len(set(run.meta.ids)) == trajectory.MAX_TOKENS


def test_it_ships_small_and_in_the_manifest(run):
    files = [MODEL_DIR / trajectory.ROWS_FILE, MODEL_DIR / trajectory.META_FILE]
    assert sum(f.stat().st_size for f in files) <= 2_000_000
    manifest = json.loads((assets_dir() / build.MANIFEST).read_text("utf-8"))
    for f in files:
        assert str(f.relative_to(assets_dir())) in manifest["files"]
    assert 28 <= len(run.steps) <= 32
    assert len(run.meta.train_loss) == len(run.meta.val_loss) == len(run.steps)
    assert run.meta.val_loss[-1] < run.meta.val_loss[0] - 1.0
    assert load_facts()["trajectory.steps"].value == run.steps


def test_similarity_at_a_step_on_the_command_line(run):
    step = run.steps[len(run.steps) // 2]
    result = _tutor("similarity", "猫", "狗", "汽车", "--step", str(step), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["step"] == step
    _, expected = run.similarity(["猫", "狗", "汽车"], run.steps.index(step))
    assert np.allclose(data["matrix"], expected)
    first = _tutor("similarity", "猫", "狗", "--step", "0", "--json")
    before = _tutor("similarity", "猫", "狗", "--stage", "before", "--json")
    assert json.loads(first.stdout)["matrix"] == json.loads(before.stdout)["matrix"]


def test_neighbours_at_a_step_say_they_search_the_recorded_tokens(run):
    result = _tutor("--lang", "en", "neighbours", "猫", "--step", str(run.steps[-1]), "--k", "3")
    assert result.returncode == 0, result.stderr
    assert f"among the {len(run.tokens)} tokens recorded" in result.stdout
    nearest = run.nearest("猫", len(run.steps) - 1, k=3)
    for neighbour in nearest:
        assert neighbour.piece in result.stdout


def test_an_unrecorded_step_names_the_nearest_recorded_ones(run):
    missing = next(s for s in range(run.steps[-1]) if s not in run.steps)
    result = _tutor("--lang", "en", "similarity", "猫", "狗", "--step", str(missing))
    assert result.returncode == 2
    assert "was not recorded" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_recording_leaves_the_trained_weights_alone():
    torch = pytest.importorskip("torch")
    from tutor.core import corpus as corpus_mod
    from tutor.core.train import TrainConfig, train
    from tutor.core.vocab import TokenizerSpec, build_byte_bpe

    corpus = corpus_mod.generate(zh_train=600, zh_valid=60, en_train=10, en_valid=10)
    tokenizer = build_byte_bpe(corpus, TokenizerSpec("small", 400, 1.0, 0.0, min_frequency=20))
    cfg = TrainConfig(hidden_size=8, steps=40, batch=64, eval_every=20)
    plain, plain_before, plain_log = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
    recording = trajectory.start_recording(tokenizer, corpus.zh_train, ["猫", "狗"], limit=30)
    watched, watched_before, watched_log = train(
        tokenizer, corpus.zh_train, corpus.zh_valid, cfg, **recording.train_kwargs(cfg.steps)
    )
    assert [c.step for c in recording.checkpoints] == trajectory.checkpoint_steps(40)
    for key, tensor in plain.state_dict().items():
        assert torch.equal(tensor, watched.state_dict()[key]), key
    assert plain_log.val_loss == watched_log.val_loss
    assert plain.training and watched.training
    recorded = recording.trajectory()
    table = watched.model.embed_tokens.weight.detach().numpy()
    assert np.array_equal(recorded.rows[-1], table[recorded.meta.ids])
    first = plain_before["model.embed_tokens.weight"].numpy()[recorded.meta.ids]
    assert np.array_equal(recorded.rows[0], first)
    assert torch.equal(
        plain_before["model.embed_tokens.weight"], watched_before["model.embed_tokens.weight"]
    )


def test_a_model_without_a_recorded_run_is_a_one_line_error(tmp_path):
    import shutil

    model_dir = tmp_path / "model"
    shutil.copytree(MODEL_DIR, model_dir)
    (model_dir / trajectory.ROWS_FILE).unlink()
    result = _tutor("--lang", "en", "--model", str(model_dir), "neighbours", "猫", "--step", "0")
    assert result.returncode == 2
    assert "has no recorded training run" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    said = _tutor("--model", str(model_dir), "neighbours", "猫", "--step", "0")  # zh
    assert said.returncode == 2
    assert said.stderr == (
        f"tutor：这个模型没有记录训练过程，只能看训练前后两张表。（{model_dir} 里没有 "
        "trajectory.json 和 trajectory.safetensors）\n"
    )


@pytest.mark.parametrize(
    ("lang", "neighbours", "similarity"),
    [
        (
            "zh",
            "'的' 在训练第 0 步：余弦，越大越近；"
            "只在训练时记录下的 {count} 个 token 里找，不是整张表",
            "训练第 0 步（共 {total} 步）的余弦相似度（验证集 loss {loss:.3f}）",
        ),
        (
            "en",
            "'的' at training step 0: cosine, bigger is nearer; among the {count} tokens recorded "
            "during training, not the whole table",
            "cosine similarity at training step 0 of {total} (validation loss {loss:.3f})",
        ),
    ],
)
def test_a_step_is_said_in_the_interface_language(run, capsys, lang, neighbours, similarity):
    from tutor.cli import main

    assert main(["--lang", lang, "neighbours", "的", "--step", "0", "--k", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == neighbours.format(count=len(run.tokens))
    assert main(["--lang", lang, "similarity", "猫", "狗", "--step", "0"]) == 0
    said = similarity.format(total=run.steps[-1], loss=run.meta.val_loss[0])
    assert capsys.readouterr().out.splitlines()[0] == said


@pytest.mark.parametrize(
    ("argv", "zh", "en"),
    [
        (
            ["similarity", "猫", "狗", "--step", "8"],
            "tutor：训练时没有记录第 8 步；最近的记录点是第 7 步或第 9 步"
            "（`tutor facts --key trajectory.steps` 会列出全部）",
            "tutor: error: step 8 was not recorded; the nearest recorded steps are 7 or 9 "
            "(`tutor facts --key trajectory.steps` lists them all)",
        ),
        (
            ["neighbours", "猫", "--step", "99999"],
            "tutor：训练时没有记录第 99,999 步；最近的记录点是第 800 步"
            "（`tutor facts --key trajectory.steps` 会列出全部）",
            "tutor: error: step 99999 was not recorded; the nearest recorded step is 800 "
            "(`tutor facts --key trajectory.steps` lists them all)",
        ),
        (
            ["neighbours", "汽油", "--step", "0"],
            "tutor：「汽油」不在训练时记录下的 60 个 token 里；记录下的有 猫 狗 汽车 小明 小王 "
            "小红 小李 小张 …",
            "tutor: error: '汽油' is not among the 60 tokens recorded during training; the "
            "recorded ones include 猫 狗 汽车 小明 小王 小红 小李 小张 …",
        ),
        (
            ["neighbours", "猫", "--step", "0", "--k", "0"],
            "tutor：要列出的近邻个数至少是 1，这里是 0",
            "tutor: error: k must be at least 1, got 0",
        ),
    ],
)
def test_what_a_recorded_run_cannot_answer_is_said_in_the_interface_language(capsys, argv, zh, en):
    from tutor.cli import main

    for lang, said in (("zh", zh), ("en", en)):
        assert main(["--lang", lang, *argv]) == 2
        assert capsys.readouterr().err == said + "\n"
