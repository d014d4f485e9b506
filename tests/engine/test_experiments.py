"""The recorded experiments (tutor/core/experiments.py) show what pages 3-4 and 12 say.

Each check reads assets/models/experiments.json, the file `tutor assets build` wrote, and
compares it with the facts the pages quote and the JSON `tutor experiment` prints.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from itertools import pairwise

import numpy as np
import pytest

from tutor.cli import main
from tutor.core.experiment_record import SCHEMES, WIDTHS, load_experiments
from tutor.core.facts import load_facts
from tutor.core.measure import CATEGORIES
from tutor.core.paths import assets_dir


@pytest.fixture(scope="module")
def record():
    return load_experiments(assets_dir() / "models")


@pytest.fixture(scope="module")
def facts():
    return load_facts()


def test_the_three_runs_share_steps_and_start_from_chance(record):
    assert [run.scheme for run in record.inputs.runs] == list(SCHEMES)
    steps = record.inputs.runs[0].steps
    assert steps[0] == 0 and steps[-1] == record.steps
    for run in record.inputs.runs:
        assert run.steps == steps
        assert abs(run.val_loss[0] - record.chance) < 0.5, run.scheme  # near a uniform guess
    assert record.inputs.run("onehot").val_loss[0] == record.inputs.run("table").val_loss[0]
    assert record.chance == round(math.log(record.vocab_size), 4)


def test_onehot_times_w_is_the_lookup_within_float_rounding(record):
    onehot, table = record.inputs.run("onehot"), record.inputs.run("table")
    gaps = [abs(a - b) for a, b in zip(onehot.val_loss, table.val_loss, strict=True)]
    assert record.inputs.max_abs_diff_onehot_table == round(max(gaps), 4)
    assert max(gaps) <= 1e-3
    assert table.val_loss[-1] < record.unigram - 1  # and it learned: far below frequencies


def test_the_id_as_a_number_learns_little_past_the_token_frequencies(record):
    """What page 4 says: the ID-as-a-number run ends below the frequency baseline, but far
    above the lookup, which learned from the same batches."""
    naive, table = record.inputs.run("id-number"), record.inputs.run("table")
    assert naive.val_loss[-1] < record.unigram
    assert naive.val_loss[-1] - table.val_loss[-1] > 1.0
    assert record.unigram - naive.val_loss[-1] < naive.val_loss[-1] - table.val_loss[-1]


def test_onehot_moves_v_over_d_times_the_lookups_bytes(record):
    onehot, table = record.inputs.run("onehot"), record.inputs.run("table")
    positions = record.batch * record.context
    assert table.bytes_per_step == 4 * positions * record.d
    assert onehot.bytes_per_step == 4 * positions * (record.vocab_size + record.d)
    assert onehot.multiply_adds_per_step == positions * record.vocab_size * record.d
    assert record.inputs.bytes_ratio == round(onehot.bytes_per_step / table.bytes_per_step, 1)


def test_every_width_has_its_loss_and_contrast(record):
    runs = record.width.runs
    assert [run.d for run in runs] == list(WIDTHS)
    losses = [run.val_loss for run in runs]
    assert all(a > b for a, b in pairwise(losses))  # page 12: falls at every width
    assert all(run.contrast > run.contrast_before for run in runs if run.d >= 4)
    assert record.words == [w for ws in CATEGORIES.values() for w in ws]
    assert np.shape(record.width.coords["d1"]) == (20, 1)
    assert np.shape(record.width.coords["d2"]) == (20, 2)


def test_facts_quote_the_record(record, facts):
    for run in record.inputs.runs:
        key = run.scheme.replace("-", "_")
        assert facts[f"experiment.inputs.{key}.val_loss"].value == run.val_loss[-1]
        assert facts[f"experiment.inputs.{key}.bytes"].value == run.bytes_per_step
    for run in record.width.runs:
        assert facts[f"experiment.width.d{run.d}.val_loss"].value == run.val_loss
        assert facts[f"experiment.width.d{run.d}.contrast"].value == run.contrast
    assert facts["experiment.inputs.max_abs_diff"].value == record.inputs.max_abs_diff_onehot_table
    assert facts["experiment.unigram"].value == record.unigram
    assert all(facts[k].evidence == "measured" for k in facts if k.startswith("experiment."))


def test_every_recorded_experiment_the_command_line_offers_has_a_printer():
    """The parser names experiments from tutor.core.names (it imports no command); the
    command keeps one entry per name, so neither offers one the other lacks."""
    from tutor.commands.experiment import RECORDED
    from tutor.core.names import RECORDED_EXPERIMENTS

    assert sorted(RECORDED) == sorted(RECORDED_EXPERIMENTS)


def test_tutor_experiment_inputs_json(record, capsys):
    assert main(["experiment", "inputs", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [run["scheme"] for run in data["runs"]] == list(SCHEMES)
    assert data["runs"][2]["val_loss"] == record.inputs.run("table").val_loss
    assert data["chance"] == record.chance and data["unigram"] == record.unigram
    assert data["max_abs_diff_onehot_table"] == record.inputs.max_abs_diff_onehot_table
    assert data["bytes_ratio_onehot_table"] == record.inputs.bytes_ratio


def test_tutor_experiment_width_json(record, capsys):
    assert main(["experiment", "width", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [run["d"] for run in data["runs"]] == list(WIDTHS)
    assert [run["contrast"] for run in data["runs"]] == [r.contrast for r in record.width.runs]
    assert len(data["tokens"]) == len(data["kinds"]) == len(data["coords"]["d2"]) == 20
    assert data["steps"] == record.width_steps


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_tutor_experiment_prints_each_figure(record, capsys, lang):
    assert main(["experiment", "inputs", "--lang", lang]) == 0
    out = capsys.readouterr().out
    for run in record.inputs.runs:
        assert f"{run.val_loss[-1]:.3f}" in out
    assert f"{record.unigram:.3f}" in out and f"{record.chance:.3f}" in out
    assert main(["experiment", "width", "--lang", lang]) == 0
    out = capsys.readouterr().out
    for run in record.width.runs:
        assert f"{run.contrast:+.3f}" in out and f"{run.val_loss:.3f}" in out


def _runs(kinds: list[str]) -> list[str]:
    """The kinds of consecutive stretches: ["a", "a", "b"] -> ["a", "b"]."""
    return [k for n, k in enumerate(kinds) if n == 0 or kinds[n - 1] != k]


def test_one_number_lines_up_fruits_and_animals_but_mixes_people_and_vehicles(record):
    """Page 12: on the line (d = 1) fruits and animals each make one stretch, side by side;
    people and vehicles share the other end, interleaved."""
    values = [row[0] for row in record.width.coords["d1"]]
    order = [record.kinds[i] for i in sorted(range(20), key=values.__getitem__)]
    stretches = _runs(order)
    assert stretches.count("fruits") == stretches.count("animals") == 1
    assert {order[0], order[-1]} & {"fruits"}
    assert "animals" in (order[5], order[-6])  # next to the fruits' five
    mixed = [k for k in stretches if k in ("people", "vehicles")]
    assert len(mixed) > 2


def test_two_numbers_give_each_kind_its_own_patch_of_the_plane(record):
    """Page 12: at d = 2 every word's nearest word on the plane is of its own kind."""
    points = np.asarray(record.width.coords["d2"])
    distances = np.linalg.norm(points[:, None] - points[None, :], axis=-1)
    np.fill_diagonal(distances, np.inf)
    nearest = distances.argmin(axis=1)
    assert all(record.kinds[i] == record.kinds[j] for i, j in enumerate(nearest))


def test_page_12_quotes_the_contrast_range_from_d8_on(record):
    """Page 12: from d = 8 to 64 the contrast lies between d = 64's and d = 16's, every
    one of them far above its value before training; at d = 2 the four patches lie on one
    side of the origin (every point's cosine to their mean direction is positive)."""
    wide = {run.d: run for run in record.width.runs if run.d >= 8}
    assert min(wide.values(), key=lambda r: r.contrast).d == 64
    assert max(wide.values(), key=lambda r: r.contrast).d == 16
    assert all(abs(run.contrast_before) < 0.1 for run in wide.values())
    points = np.asarray(record.width.coords["d2"])
    assert (points @ points.mean(axis=0) > 0).all()


def test_the_command_and_the_widgets_never_load_torch():
    probe = (
        "import contextlib, io, sys\n"
        "from tutor.cli import main\n"
        "import tutor.tui.widgets.inputs_experiment, tutor.tui.widgets.width_experiment\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    codes = [main(['experiment', name]) for name in ('inputs', 'width')]\n"
        "print(codes, 'torch' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["[0,", "0]", "False"]


@pytest.mark.parametrize(("lang", "said"), [("zh", "请运行 `tutor assets build`"), ("en", "run")])
def test_a_missing_record_is_said_with_its_fix(tmp_path, monkeypatch, capsys, lang, said):
    monkeypatch.setattr("tutor.core.paths.assets_dir", lambda: tmp_path)
    assert main(["experiment", "width", "--lang", lang]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "models" / "experiments.json") in err and said in err
