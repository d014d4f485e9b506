"""What page 8 says about the recorded run and the random table, checked against them:
the "before" gaps are noise by the measure the page gives (each under two of its standard
deviations, though not all under one), and the loss falls before the kinds separate."""

from __future__ import annotations

import numpy as np
import pytest

from tutor.core.facts import load_facts
from tutor.core.paths import default_model_dir
from tutor.core.recorded import recorded_run

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

KINDS = ("people", "animals", "fruits", "vehicles")


def test_the_gaps_before_training_are_under_two_chance_sds_not_all_under_one() -> None:
    facts = load_facts()
    sd = facts["cat.gap_chance_sd"].value
    sigmas = [abs(facts[f"cat.{kind}.gap.before"].value) / sd for kind in KINDS]
    assert max(sigmas) < 2
    assert max(sigmas) > 1  # so "within one standard deviation" would not be true
    assert min(facts[f"cat.{kind}.gap.after"].value / sd for kind in KINDS) > 10


def _share(values: np.ndarray) -> np.ndarray:
    """How much of its whole change, first to last checkpoint, a curve has made so far."""
    return (values - values[0]) / (values[-1] - values[0])


def test_the_loss_falls_before_the_kinds_separate() -> None:
    """When the validation loss has made half its fall the contrast has made almost none
    of its rise; when the contrast has made half its rise the loss is nearly done."""
    run = recorded_run(default_model_dir())
    loss = _share(np.asarray(run.meta.val_loss))
    contrast = _share(run.contrast)
    half_loss = int(np.argmax(loss >= 0.5))
    half_contrast = int(np.argmax(contrast >= 0.5))
    assert half_loss < half_contrast
    assert contrast[half_loss] < 0.05
    assert loss[half_contrast] > 0.9


def test_the_names_nearest_neighbours_share_their_pronoun() -> None:
    """The page names them: 小红's nearest three are the other 她 names, 小明's nearest
    four the other 他 names (the corpus's cast, tutor/core/corpus.py)."""
    from tutor.core import corpus
    from tutor.core.model import open_model
    from tutor.core.similarity import nearest

    model = open_model()
    hong = [n.piece for n in nearest(model, "小红", "after", k=3).neighbours]
    ming = [n.piece for n in nearest(model, "小明", "after", k=4).neighbours]
    assert hong == ["小芳", "小李", "小林"]
    assert set(hong) == corpus.FEMALE_NAMES - {"小红"}
    assert set(ming) == {"小王", "小刚", "小张", "小周"}
    assert not set(ming) & corpus.FEMALE_NAMES
