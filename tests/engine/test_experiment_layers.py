"""The experiment's first layers compute what their names say (torch, so the engine tier)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tutor.core.experiments import (  # noqa: E402  (after the skip: the module needs torch)
    RUN,
    ExperimentLM,
    first_layer_cost,
    unigram_loss,
)


def test_a_onehot_row_times_w_is_the_lookup_to_the_bit():
    torch.manual_seed(0)
    table = ExperimentLM(50, RUN, "table")
    torch.manual_seed(0)
    onehot = ExperimentLM(50, RUN, "onehot")
    ids = torch.tensor([[3, 3, 49, 0, 7, 12]])
    assert torch.equal(onehot.rows(ids), table.rows(ids))
    assert torch.equal(onehot(ids), table(ids))  # and the layers after it start the same


def test_the_id_as_a_number_is_one_direction_scaled():
    model = ExperimentLM(50, RUN, "id-number")
    rows = model.rows(torch.tensor([[0, 10, 25]]))[0]
    assert torch.equal(rows[0], torch.zeros(RUN.hidden_size))
    assert torch.allclose(rows[2], 2.5 * rows[1])


def test_first_layer_cost_counts_the_onehot_matrix():
    cost = first_layer_cost("onehot", 100, RUN)
    positions = RUN.batch * RUN.context
    assert cost["bytes_per_step"] == 4 * positions * (100 + RUN.hidden_size)
    assert first_layer_cost("table", 100, RUN)["multiply_adds_per_step"] == 0


def test_unigram_loss_is_the_add_one_frequencies_cross_entropy():
    loss = unigram_loss(np.array([0, 0, 2]), np.array([0, 2]), 3)
    assert loss == round(-(math.log(3 / 6) + math.log(2 / 6)) / 2, 4)
