"""Renumbering the shipped model's IDs: consistently it changes nothing, in the tokenizer
alone it turns the predictions into noise (measured on the validation text, chance beside)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tutor.core.renumber import SAMPLE_POSITIONS, Experiment, draw, renumbered_tokenizer

SENTENCE = "小明把苹果给了"
SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def experiment() -> Experiment:
    return Experiment.open()


def test_a_permutation_is_drawn_from_its_seed_and_differs_between_seeds() -> None:
    one, again, two = draw(1, 3805), draw(1, 3805), draw(2, 3805)
    assert sorted(one.tolist()) == list(range(3805))
    assert (one == again).all()
    assert (one != two).mean() > 0.99


def test_the_renumbered_tokenizer_gives_every_token_its_new_id(experiment: Experiment) -> None:
    """The real tokenizer with its ID map permuted, not a relabelling after the fact: the
    validation sample, end-of-text tokens included, comes out as new_id[old id]."""
    new_id = draw(7, experiment.forward.vocab_size)
    renamed = experiment.forward.renumbered(
        renumbered_tokenizer(experiment.forward.tokenizer, new_id)
    )
    before = experiment.forward.encode_lines(experiment.sample_text)
    after = renamed.encode_lines(experiment.sample_text)
    assert (after == new_id[before]).all()
    assert renamed.end_of_text == new_id[experiment.forward.end_of_text]


@pytest.mark.parametrize("seed", SEEDS)
def test_consistent_renumbering_leaves_the_predictions_unchanged(
    experiment: Experiment, seed: int
) -> None:
    shown = experiment.sentence(seed, SENTENCE)
    base = experiment.baseline_top(SENTENCE)
    assert shown.consistent_max_abs_diff < 1e-6
    assert [p.piece for p in shown.consistent_top] == [p.piece for p in base]
    assert [p.probability for p in shown.consistent_top] == pytest.approx(
        [p.probability for p in base], abs=1e-6
    )
    # the same tokens under new numbers: the IDs themselves did change
    new_id = draw(seed, experiment.forward.vocab_size)
    assert [p.id for p in shown.consistent_top] == [int(new_id[p.id]) for p in base]


def test_consistent_renumbering_leaves_the_validation_loss_unchanged(
    experiment: Experiment,
) -> None:
    assert experiment.consistent_loss(1) == pytest.approx(experiment.val_loss(), abs=1e-5)


def test_tokenizer_only_renumbering_turns_predictions_into_noise(experiment: Experiment) -> None:
    """Averaged over seeds, the loss on the validation sample rises from well below chance
    (ln V: a uniform guess) to above it: the model is confidently wrong."""
    chance = math.log(experiment.forward.vocab_size)
    base = experiment.val_loss()
    after = [experiment.tokenizer_only_loss(seed) for seed in SEEDS]
    assert base < chance / 2
    assert np.mean(after) > chance
    assert min(after) > base + 5
    # and the favourites for the sentence are other tokens
    base_top = {p.piece for p in experiment.baseline_top(SENTENCE)}
    noise = [experiment.sentence(seed, SENTENCE).tokenizer_only_top for seed in SEEDS]
    assert all(len(base_top & {p.piece for p in top}) <= 1 for top in noise)


def test_the_sample_is_the_first_positions_of_the_validation_text(experiment: Experiment) -> None:
    stream = experiment.forward.encode_lines(experiment.sample_text)
    assert len(stream) - experiment.forward.context >= SAMPLE_POSITIONS
    assert experiment.forward.validation_text().startswith(experiment.sample_text)
