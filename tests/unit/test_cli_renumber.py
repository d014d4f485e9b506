"""`tutor experiment renumber`: the page's experiment, printed so its figures can be checked."""

from __future__ import annotations

import json
import math

import pytest

from tutor.cli import main
from tutor.core.renumber import SAMPLE_POSITIONS, Experiment

pytestmark = pytest.mark.slow  # seconds of numpy per experiment


@pytest.fixture(scope="module")
def experiment() -> Experiment:
    return Experiment.open()


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["experiment", "renumber", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_gives_the_experiment_s_values(
    capsys: pytest.CaptureFixture[str], experiment: Experiment
) -> None:
    data = run_json(capsys, "--seed", "3")
    assert data["seed"] == 3 and data["positions"] == SAMPLE_POSITIONS
    assert data["val_loss"] == pytest.approx(experiment.val_loss(), abs=1e-4)
    assert data["consistent_val_loss"] == pytest.approx(data["val_loss"], abs=1e-5)
    assert 0 <= data["consistent_max_abs_diff"] < 1e-6
    assert data["tokenizer_only_val_loss"] == pytest.approx(
        experiment.tokenizer_only_loss(3), abs=1e-4
    )
    assert data["chance"] == pytest.approx(math.log(experiment.forward.vocab_size), abs=1e-4)
    assert data["tokenizer_only_val_loss"] > data["chance"] > data["val_loss"]
    original = [p["piece"] for p in data["top5"]["original"]]
    assert original == [p.piece for p in experiment.baseline_top(data["sentence"])]
    assert [p["piece"] for p in data["top5"]["consistent"]] == original
    assert len(data["top5"]["tokenizer_only"]) == 5


def test_another_seed_draws_another_permutation(capsys: pytest.CaptureFixture[str]) -> None:
    one, two = run_json(capsys, "--seed", "1"), run_json(capsys, "--seed", "2")
    assert one["val_loss"] == two["val_loss"]
    assert one["tokenizer_only_val_loss"] != two["tokenizer_only_val_loss"]
    assert [p["id"] for p in one["top5"]["consistent"]] != [
        p["id"] for p in two["top5"]["consistent"]
    ]


@pytest.mark.parametrize(
    ("lang", "words"), [("zh", ["只改分词器", "ln V"]), ("en", ["tokenizer only", "ln V"])]
)
def test_text_output_is_in_the_interface_language(
    capsys: pytest.CaptureFixture[str], lang: str, words: list[str]
) -> None:
    assert main(["experiment", "renumber", "--lang", lang]) == 0
    out = capsys.readouterr().out
    for word in words:
        assert word in out
