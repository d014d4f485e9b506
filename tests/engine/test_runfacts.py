"""The numbers lesson's run-time facts, recomputed from the shipped artifacts and checked
against what the build measured and against what the page says they show."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tutor.core.facts import load_facts
from tutor.core.paths import assets_dir
from tutor.core.runfacts import BANDS, input_counts, keys_for, row_cosines, runtime_facts

pytestmark = pytest.mark.slow  # tokenizes the training corpus (seconds, in a child process)

ASSETS = assets_dir()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TUTOR_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        facts = runtime_facts(ASSETS)
        assert runtime_facts(ASSETS) == facts  # the second read is the kept one
    return {fact["key"]: fact["value"] for fact in facts}


def test_every_announced_key_is_measured(run: dict[str, object]) -> None:
    assert sorted(run) == sorted(keys_for(ASSETS))
    assert keys_for(Path("/nonexistent")) == []


def test_the_loss_at_step_0_lies_a_little_above_ln_v(run: dict[str, object]) -> None:
    recorded = json.loads((ASSETS / "models/project/trajectory.json").read_text("utf-8"))
    ln_v = math.log(load_facts()["model.vocab_size"].value)
    assert run["loss.step0"] == round(recorded["val_loss"][0], 2)
    assert run["loss.step0_over_ln_v"] == pytest.approx(recorded["val_loss"][0] - ln_v, abs=0.01)
    assert 0 < run["loss.step0_over_ln_v"] < 0.1 * ln_v  # above ln V, by a few per cent


def test_the_bands_agree_with_what_the_build_measured(run: dict[str, object]) -> None:
    build = load_facts()
    vocab = build["model.vocab_size"].value
    counts = input_counts(ASSETS)
    assert counts.sum() == build["model.train_tokens"].value  # the same stream as training
    assert sum(run[f"moved.{name}.tokens"] for name, _, _ in BANDS) == vocab
    never_share = build["rows.never_seen_share"].value / 100
    assert run["moved.never.tokens"] / vocab == pytest.approx(never_share, abs=0.001)
    assert run["moved.never.cos"] == pytest.approx(1.0, abs=1e-3)
    assert run["moved.seen_cos_mean"] == build["rows.seen_cos_mean"].value


def test_rare_rows_turned_no_less_than_common_ones(run: dict[str, object]) -> None:
    """What page 5 says: a row read a handful of times turned as far from its random start
    as one read hundreds of times (AdamW steps are about lr whatever the gradient's size);
    the most frequent turned least. Beside it: the spread of a random band of that size."""
    rare, common = run["moved.rare.cos"], run["moved.common.cos"]
    sd = max(run["moved.rare.chance_sd"], run["moved.common.chance_sd"])
    assert rare <= common + 2 * sd
    assert (
        run["moved.frequent.cos"] - run["moved.seen_cos_mean"] > 5 * run["moved.frequent.chance_sd"]
    )
    cosines = row_cosines(ASSETS)
    counts = input_counts(ASSETS)
    once = cosines[(counts >= 1) & (counts <= 9)]
    assert np.mean(once) == pytest.approx(rare, abs=5e-4)


def test_the_registry_knows_the_keys_before_measuring_and_a_prefetch_fills_them(
    run: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tutor.core.facts import FactRegistry

    monkeypatch.setenv("TUTOR_CACHE_DIR", str(tmp_path / "cold"))
    registry = FactRegistry({}, ASSETS)
    assert "moved.rare.cos" in registry and "moved.rare.cos" not in set(registry)
    assert registry.pending == set(keys_for(ASSETS))
    registry.prefetch()  # a thread measures; reading waits for it instead of measuring again
    assert registry["moved.rare.cos"].value == run["moved.rare.cos"]
    assert registry.pending == frozenset()
    assert FactRegistry({}, tmp_path).pending == frozenset()  # no model there: nothing to measure
