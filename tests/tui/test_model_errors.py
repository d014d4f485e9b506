"""A model directory that cannot be opened says why in the learner's language: every
ModelError on the way to opening carries a code and values, and the tutor (its widgets,
and `tutor --model DIR` on the command line) says it in zh or en; paths, file and tensor
names are quoted verbatim, being names, not English."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tests.tui.test_explore import text_of, type_into
from tests.unit.hf_fixture import CONVENTIONS, random_table, write_hf_model, write_safetensors
from tests.unit.test_hf import break_index
from tests.waits import settle
from tutor.core.model import ModelError, ProjectModel
from tutor.tui.app import TutorApp
from tutor.words.i18n import Speaker
from tutor.words.refusals import model_error, say

VOCAB, DIM = 64, 8
LLAMA = next(c for c in CONVENTIONS if c.name == "llama")
FORMATS = ("safetensors", "JSON")  # names of file formats, in any language


def llama(tmp_path: Path) -> Path:
    return write_hf_model(tmp_path / "m", LLAMA, vocab=VOCAB, dim=DIM)


def weights_bytes(data: bytes) -> Callable[[Path], Path]:
    def make(tmp_path: Path) -> Path:
        (llama(tmp_path) / "model.safetensors").write_bytes(data)
        return tmp_path / "m"

    return make


def without(name: str, *, add: str = "") -> Callable[[Path], Path]:
    def make(tmp_path: Path) -> Path:
        model_dir = llama(tmp_path)
        (model_dir / name).unlink()
        if add:
            (model_dir / add).write_bytes(b"pickled")
        return model_dir

    return make


def with_file(name: str, text: str) -> Callable[[Path], Path]:
    def make(tmp_path: Path) -> Path:
        model_dir = llama(tmp_path)
        (model_dir / name).write_text(text)
        return model_dir

    return make


def with_tensors(tensors: dict[str, np.ndarray]) -> Callable[[Path], Path]:
    def make(tmp_path: Path) -> Path:
        model_dir = llama(tmp_path)
        save_file(tensors, model_dir / "model.safetensors")
        return model_dir

    return make


def int8_table(tmp_path: Path) -> Path:
    model_dir = llama(tmp_path)
    write_safetensors(model_dir / "model.safetensors", {LLAMA.table: random_table(VOCAB, DIM)})
    raw = (model_dir / "model.safetensors").read_bytes().replace(b'"F32"', b'"I8" ')
    (model_dir / "model.safetensors").write_bytes(raw)
    return model_dir


def truncated(tmp_path: Path) -> Path:
    weights = llama(tmp_path) / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])
    return tmp_path / "m"


def a_file(tmp_path: Path) -> Path:
    return llama(tmp_path) / "model.safetensors"


table = np.ones((VOCAB, 4), np.float32)
BROKEN: dict[str, Callable[[Path], Path]] = {
    "model_not_found": lambda tmp_path: tmp_path / "elsewhere",
    "model_is_file": a_file,
    "no_tokenizer": without("tokenizer.json"),
    "bad_tokenizer": with_file("tokenizer.json", "{not json"),
    "bad_config": with_file("config.json", '{"vocab_size": "many"}'),
    "no_weights": without("model.safetensors"),
    "torch_weights": without("model.safetensors", add="pytorch_model.bin"),
    "weights_empty": weights_bytes(b""),
    "weights_too_short": weights_bytes(b"junk"),
    "weights_header_too_big": weights_bytes(b"\xff" * 8 + b"junk" * 10),
    "not_safetensors": weights_bytes((8).to_bytes(8, "little") + b"not json"),
    "weights_truncated": truncated,
    "table_dtype": int8_table,
    "no_table": with_tensors({"blocks.0.mixer.weight": np.ones((3, 4), np.float32)}),
    "table_ambiguous": with_tensors(
        {"a.embed_tokens.weight": table, "b.embed_tokens.weight": table}
    ),
    "table_too_small": with_tensors({LLAMA.table: np.ones((10, 4), np.float32)}),
}


@pytest.mark.parametrize("code", list(BROKEN))
def test_a_broken_model_directory_is_said_in_chinese_with_its_names_verbatim(
    tmp_path: Path, code: str
) -> None:
    path = BROKEN[code](tmp_path)
    with pytest.raises(ModelError) as raised:
        ProjectModel(path)
    error = raised.value
    assert error.code == code, str(error)
    assert_said_in_both_languages(error, path)


def assert_said_in_both_languages(error: ModelError, path: Path) -> None:
    said = model_error(Speaker("zh"), error)
    assert said.startswith("模型打不开：")
    names = [str(value) for value in error.values.values() if isinstance(value, str | Path)]
    assert any(str(path) in name or name in str(path) for name in names), error.values
    for name in sorted(names, key=len, reverse=True):
        assert name in said  # a path or a tensor's name, whole
        said = said.replace(name, "")
    for name in FORMATS:
        said = said.replace(name, "")
    assert not re.search(r"[A-Za-z]{3,}", said), said
    english = model_error(Speaker("en"), error)
    assert english.startswith("Cannot open the model: ") and not re.search(r"[一-龥]", english)


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        ("not-json", "weights_index_not_json"),
        ("no-map", "bad_weights_index"),
        ("shard-missing", "weights_not_found"),
        ("wrong-shard", "table_not_in_shard"),
    ],
)
def test_a_broken_sharded_checkpoint_is_said_in_chinese(
    tmp_path: Path, damage: str, code: str
) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA, shards=3)
    break_index(model_dir, damage)
    with pytest.raises(ModelError) as raised:
        ProjectModel(model_dir)
    assert raised.value.code == code, str(raised.value)
    assert_said_in_both_languages(raised.value, model_dir)


async def test_the_explorer_says_a_broken_model_in_chinese(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    """Every panel that needs the model says why it cannot have it, in the learner's words."""
    model_dir = BROKEN["weights_truncated"](tmp_path)
    app = make_app(start_explore=True, model_dir=model_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_into(pilot, "#analogy", "猫 狗 鱼")
        shown = text_of(app, "#shapes") + text_of(app, "#analogy-out")
        weights = model_dir / "model.safetensors"
        assert f"模型打不开：{weights} 不完整：需要" in text_of(app, "#shapes")
        assert not re.search(r"[A-Za-z]{3,}", shown.replace(str(weights), "")), shown


def test_a_bad_config_names_its_field(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as raised:
        ProjectModel(BROKEN["bad_config"](tmp_path))
    said = model_error(Speaker("zh"), raised.value)
    config = tmp_path / "m" / "config.json"
    assert said == f"模型打不开：{config} 不是有效的模型配置（字段 vocab_size 的值不对）"


def tutor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *args], capture_output=True, text=True, timeout=120
    )


def test_tutor_with_a_bad_model_says_one_line_in_the_language_asked(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    zh = tutor("--lang", "zh", "--model", str(missing))
    assert zh.returncode == 2 and zh.stdout == ""
    assert zh.stderr == f"tutor：模型打不开：找不到模型文件夹 {missing}\n"
    en = tutor("explore", "--lang", "en", "--model", str(missing))
    assert en.returncode == 2
    assert en.stderr == f"tutor: error: model directory not found: {missing}\n"
    (tmp_path / "config.json").write_text(json.dumps({"vocab_size": 3}))
    by_default = tutor("--model", str(tmp_path))  # in Chinese
    assert by_default.stderr == f"tutor：模型打不开：{tmp_path} 里没有 tokenizer.json\n"


def test_a_model_without_a_recorded_run_says_so_in_chinese(tmp_path: Path) -> None:
    """Any Hugging Face model has no recorded run: the training page says which files
    are missing, not the core's English."""
    from tutor.core.trajectory import TrajectoryError, load

    model_dir = llama(tmp_path)
    with pytest.raises(TrajectoryError) as raised:
        load(model_dir)
    assert raised.value.code == "no_trajectory"
    said = say(Speaker("zh"), raised.value)
    assert said == f"{model_dir} 里没有 trajectory.json 和 trajectory.safetensors"
    (model_dir / "trajectory.json").write_text("{}")
    (model_dir / "trajectory.safetensors").write_bytes(b"junk")
    with pytest.raises(TrajectoryError) as raised:
        load(model_dir)
    assert raised.value.code == "trajectory_unreadable"
    assert say(Speaker("zh"), raised.value) == f"{model_dir} 里记录的训练过程读不出来"


def test_the_training_page_says_a_broken_model_in_chinese(tmp_path: Path) -> None:
    from tutor.content.widgets import TrainingWidget
    from tutor.progress.sqlite import SqliteStore
    from tutor.tui.context import TutorContext
    from tutor.tui.widgets.training import load_run

    missing = tmp_path / "gone"
    ctx = TutorContext("zh", SqliteStore("guest", guest=True), missing)
    run, why, _ = load_run(ctx, TrainingWidget(tokens=["猫", "狗"]))
    assert run is None and why == f"模型打不开：找不到模型文件夹 {missing}"
