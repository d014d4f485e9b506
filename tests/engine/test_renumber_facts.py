"""Page 10's measured facts: the renumbering experiment over a fixed set of seeds, kept
with the run-time facts, equal to what `tutor experiment renumber --json` prints."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

from tutor.cli import main
from tutor.core.facts import load_facts
from tutor.core.paths import assets_dir, content_dir
from tutor.core.runfacts import RENUMBER_SEEDS, RENUMBER_SENTENCE, keys_for, runtime_facts

pytestmark = pytest.mark.slow  # numpy forward passes and the run-time facts' child process

ASSETS = assets_dir()
KEYS = {
    "renumber.val_loss",
    "renumber.consistent_max_abs_diff",
    "renumber.tokenizer_only_val_loss",
    "renumber.tokenizer_only_val_loss_min",
    "renumber.tokenizer_only_val_loss_max",
    "renumber.chance",
}


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TUTOR_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        measured = runtime_facts(ASSETS)
    assert all(f["evidence"] == "measured" for f in measured if f["key"] in KEYS)
    return {fact["key"]: fact["value"] for fact in measured}


@pytest.fixture(scope="module")
def printed() -> list[dict]:
    """The CLI's JSON for every seed the facts average over (the default sentence)."""
    runs = []
    for seed in RENUMBER_SEEDS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["experiment", "renumber", "--json", "--seed", str(seed)]) == 0
        runs.append(json.loads(out.getvalue()))
    return runs


def test_the_keys_are_announced_and_measured(facts: dict[str, object]) -> None:
    assert set(keys_for(ASSETS)) >= KEYS
    assert set(facts) >= KEYS
    assert list(RENUMBER_SEEDS) == [1, 2, 3, 4, 5]


def test_the_facts_equal_what_the_cli_prints(facts: dict[str, object], printed: list[dict]) -> None:
    assert all(run["sentence"] == RENUMBER_SENTENCE for run in printed)
    garbled = [run["tokenizer_only_val_loss"] for run in printed]
    assert facts["renumber.val_loss"] == pytest.approx(printed[0]["val_loss"], abs=6e-4)
    assert facts["renumber.chance"] == pytest.approx(printed[0]["chance"], abs=6e-4)
    assert facts["renumber.chance"] == pytest.approx(
        math.log(load_facts()["model.vocab_size"].value), abs=5e-4
    )
    mean = sum(garbled) / len(garbled)
    assert facts["renumber.tokenizer_only_val_loss"] == pytest.approx(mean, abs=6e-4)
    assert facts["renumber.tokenizer_only_val_loss_min"] == pytest.approx(min(garbled), abs=6e-4)
    assert facts["renumber.tokenizer_only_val_loss_max"] == pytest.approx(max(garbled), abs=6e-4)
    worst = max(run["consistent_max_abs_diff"] for run in printed)
    assert facts["renumber.consistent_max_abs_diff"] == pytest.approx(worst, rel=0.05)


def test_what_page_10_says_holds(facts: dict[str, object]) -> None:
    """Consistent: float rounding only. Tokenizer only: every seed above ln V."""
    assert facts["renumber.consistent_max_abs_diff"] < 1e-9
    assert facts["renumber.tokenizer_only_val_loss_min"] > facts["renumber.chance"]
    assert facts["renumber.chance"] > facts["renumber.val_loss"]


def test_page_10_quotes_them_on_its_own_sentence() -> None:
    text = (content_dir() / "embedding" / "10-binding.md").read_text(encoding="utf-8")
    assert f"sentence: {RENUMBER_SENTENCE}\n" in text
    for key in (
        "val_loss",
        "tokenizer_only_val_loss",
        "tokenizer_only_val_loss_min",
        "tokenizer_only_val_loss_max",
        "chance",
        "consistent_max_abs_diff",
    ):
        assert f"{{{{fact:renumber.{key}}}}}" in text
