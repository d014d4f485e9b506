"""Opening model directories: the shipped layout, HF variants, and clear errors."""

from __future__ import annotations

import json
import mmap
import re
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tests.unit.model_fixture import build_model_dir, byte_bpe_json, write_tokenizer
from tutor.core.model import ModelError, open_model

DIM = 8
VOCAB = 400


def test_shipped_layout(tmp_path: Path) -> None:
    model_dir = build_model_dir(tmp_path / "m", dim=DIM, seed=3)
    model = open_model(model_dir)
    assert model is open_model(model_dir)  # cached per path
    assert model.path == model_dir.resolve()
    assert model.config.vocab_size == VOCAB and model.config.hidden_size == DIM
    assert model.config.tokenizer == "byte-bpe-zh" and model.config.tie_word_embeddings is False
    assert model.scheme.name == "byte-bpe-zh" and model.scheme.vocab_size == VOCAB
    assert model.has_before
    after, before = model.table("after"), model.table("before")
    assert after is model.table("after")
    assert (after.vocab_size, after.dim) == (VOCAB, DIM)
    assert isinstance(after.weights, np.memmap)
    rng = np.random.default_rng(3)  # the fixture draws before, then after
    assert np.array_equal(before.weights, rng.standard_normal((VOCAB, DIM), dtype=np.float32))
    assert np.array_equal(after.weights, rng.standard_normal((VOCAB, DIM), dtype=np.float32))
    assert model.embedding_parameters == VOCAB * DIM
    # embedding + lm_head + context.weight (d x 2d)
    assert model.total_parameters == 2 * VOCAB * DIM + DIM * 2 * DIM


def test_no_before_table_is_a_clear_error(tmp_path: Path) -> None:
    model = open_model(build_model_dir(tmp_path / "m", with_before=False))
    assert not model.has_before
    with pytest.raises(ModelError, match=r"no embeddings_before\.safetensors"):
        model.table("before")


def test_hf_style_dir_without_config(tmp_path: Path) -> None:
    model_dir = tmp_path / "hf"
    model_dir.mkdir()
    write_tokenizer(model_dir / "tokenizer.json", byte_bpe_json())
    # HF models often pad the table past the tokenizer's ids.
    weights = np.ones((VOCAB + 16, 4), np.float32)
    save_file(
        {"wte.weight": weights, "wpe.weight": np.ones((32, 4), np.float32)},
        model_dir / "model.safetensors",
    )
    model = open_model(model_dir)
    assert model.scheme.name == "hf"  # no config to name it: its folder does
    assert model.config.vocab_size is None
    assert model.table().vocab_size == VOCAB + 16
    assert model.total_parameters == (VOCAB + 16) * 4 + 32 * 4


def test_sharded_weights(tmp_path: Path) -> None:
    model_dir = tmp_path / "sharded"
    model_dir.mkdir()
    write_tokenizer(model_dir / "tokenizer.json", byte_bpe_json())
    embed = np.arange(VOCAB * 2, dtype=np.float32).reshape(VOCAB, 2)
    save_file({"model.embed_tokens.weight": embed}, model_dir / "model-00001-of-00002.safetensors")
    save_file({"lm_head.weight": embed}, model_dir / "model-00002-of-00002.safetensors")
    index = {
        "weight_map": {
            "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
            "lm_head.weight": "model-00002-of-00002.safetensors",
        }
    }
    (model_dir / "model.safetensors.index.json").write_text(json.dumps(index))
    model = open_model(model_dir)
    assert np.array_equal(model.table().weights, embed)
    assert model.total_parameters == 2 * VOCAB * 2


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        (None, "model directory not found"),
        ("tokenizer.json", "has no tokenizer.json"),
        ("model.safetensors", "has no model.safetensors"),
    ],
)
def test_missing_pieces(tmp_path: Path, remove: str | None, message: str) -> None:
    model_dir = build_model_dir(tmp_path / "m")
    target = tmp_path / "elsewhere" if remove is None else model_dir
    if remove:
        (model_dir / remove).unlink()
    with pytest.raises(ModelError, match=re.escape(message)):
        open_model(target)


def test_table_smaller_than_the_tokenizer(tmp_path: Path) -> None:
    small = np.zeros((10, 4), np.float32)
    with pytest.raises(ModelError, match="the table has 10 rows but the tokenizer has 400 ids"):
        open_model(build_model_dir(tmp_path / "m", after=small))


def test_bad_config(tmp_path: Path) -> None:
    model_dir = build_model_dir(tmp_path / "m")
    (model_dir / "config.json").write_text('{"vocab_size": "many"}')
    with pytest.raises(ModelError, match=r"config\.json: not a valid config"):
        open_model(model_dir)


def test_the_recorded_run_is_mapped_not_copied(tmp_path: Path) -> None:
    """The training page reads the shipped run's rows where the file lies: reading them
    through safetensors imported its library and held the file twice while copying it
    (about 5 MB at the peak of a learner's walk). The rows and steps are the same."""
    import subprocess
    import sys

    from tutor.core import trajectory
    from tutor.core.paths import default_model_dir
    from tutor.core.recorded import recorded_run

    code = (
        "import json, sys, numpy as np\nfrom tutor.core.recorded import recorded_run\n"
        "from tutor.core.paths import default_model_dir\n"
        "run = recorded_run(default_model_dir())\n"
        "print(json.dumps({'mapped': isinstance(run.rows, np.memmap),"
        " 'safetensors': 'safetensors' in sys.modules, 'steps': run.steps}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout)
    assert (seen["mapped"], seen["safetensors"]) == (True, False)
    copied = trajectory.load(default_model_dir())
    mapped = recorded_run(default_model_dir())
    assert seen["steps"] == copied.steps and mapped.meta == copied.meta
    assert np.array_equal(mapped.rows, copied.rows) and mapped.rows.dtype == np.float32

    model_dir = build_model_dir(tmp_path / "m")
    with pytest.raises(trajectory.TrajectoryError) as raised:
        recorded_run(model_dir)
    assert raised.value.code == "no_trajectory"
    (model_dir / trajectory.META_FILE).write_text("{}")
    (model_dir / trajectory.ROWS_FILE).write_bytes(b"junk")
    with pytest.raises(trajectory.TrajectoryError) as raised:
        recorded_run(model_dir)
    assert raised.value.code == "trajectory_unreadable"


def _resident_bytes(rows: np.ndarray) -> int:
    """How much of the file map holding `rows` this process holds in memory (its Rss in
    /proc/self/smaps; another map of the same file is not counted)."""
    address = rows.__array_interface__["data"][0]
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            start, end = (int(bound, 16) for bound in fields[0].split("-"))
            inside = start <= address < end
        elif inside and fields[0] == "Rss:":
            resident += int(fields[1]) * 1024
    return resident


def test_a_pass_over_the_recorded_run_keeps_one_checkpoint_in_memory() -> None:
    """The training page reads every checkpoint of the mapped run (its heatmaps, its
    neighbours, its contrast curve, its map) while the learner's memory is at its walk's
    highest; each checkpoint's pages go back to the page cache once it is read, so a pass
    never holds the whole run (1.8 MB of the shipped one), only about one checkpoint."""
    from tutor.core.paths import default_model_dir
    from tutor.core.projection import direction_agreement, run_map
    from tutor.core.recorded import recorded_run

    run = recorded_run(default_model_dir())
    one_checkpoint = run.rows[0].nbytes + 2 * mmap.PAGESIZE  # its pages, cut anywhere
    assert run.rows.nbytes > 10 * one_checkpoint  # the test can tell the two apart
    float(run.rows[0].sum())  # read where it lies, as a pass read it before
    assert _resident_bytes(run.rows) >= run.rows[0].nbytes  # and this test sees it
    run.hand_back()
    tokens = ["小明", "小红", "猫", "狗", "苹果", "汽车", "男人", "女人"]
    held = []
    for index in range(len(run.steps)):
        run.similarity(tokens, index)
        run.nearest("猫", index)
        direction_agreement(run, [("男人", "女人")], index, tokens)
        held.append(_resident_bytes(run.rows))
    assert run.contrast.shape == (len(run.steps),)
    held.append(_resident_bytes(run.rows))
    run_map(run, tokens, [("男人", "女人")])
    held.append(_resident_bytes(run.rows))
    assert max(held) <= one_checkpoint
