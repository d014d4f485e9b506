"""The training page's 2-D map: one plane for the whole run, so that a point that moves
on the map moved in the table, and the 男→女 direction the names share."""

from __future__ import annotations

import numpy as np
import pytest

from tutor.core import corpus
from tutor.core.paths import default_model_dir
from tutor.core.projection import direction_agreement, gender_of_names, run_map
from tutor.core.recorded import recorded_run

TOKENS = ["小明", "小王", "小红", "小李", "小张", "猫", "狗", "苹果", "汽车", "男人", "女人"]


def test_the_plane_is_fitted_once_on_every_checkpoint() -> None:
    run = recorded_run(default_model_dir())
    mapped = run_map(run, TOKENS)
    at = [run.token_index(t) for t in TOKENS]
    rows = np.asarray(run.rows[:, at], dtype=np.float64)
    flat = rows.reshape(-1, rows.shape[-1])
    centred = flat - flat.mean(axis=0)
    # the two axes are the leading principal directions of all checkpoints together
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    for axis, expected in zip(mapped.plane.axes, vt[:2], strict=True):
        assert abs(abs(float(axis @ expected)) - 1) < 1e-6
    # and every checkpoint is projected on that same plane
    for index in (0, len(run.steps) // 2, len(run.steps) - 1):
        expected = (rows[index] - flat.mean(axis=0)) @ mapped.plane.axes.T
        assert np.allclose(mapped.points[index], expected, atol=1e-6)
    assert mapped.low.shape == mapped.high.shape == (2,)
    assert np.all(mapped.points >= mapped.low - 1e-9)
    assert np.all(mapped.points <= mapped.high + 1e-9)
    # the trained rows spread out from where the random ones started
    spread = [float(np.ptp(mapped.points[i], axis=0).max()) for i in (0, -1)]
    assert spread[1] > 3 * spread[0]


def test_names_split_by_the_pronoun_the_corpus_gives_them() -> None:
    male, female = gender_of_names(["小明", "小红", "猫", "小李", "小王"])
    assert male == ["小明", "小王"] and female == ["小红", "小李"]
    assert set(female) <= corpus.FEMALE_NAMES


def test_the_names_split_along_the_same_direction_as_man_to_woman() -> None:
    """At the last step the names' 他→她 difference points the way 男人→女人 does, far
    beyond the cosine of two random differences of recorded rows; at step 0 it does not."""
    run = recorded_run(default_model_dir())
    last = direction_agreement(run, [("男人", "女人")], len(run.steps) - 1)
    first = direction_agreement(run, [("男人", "女人")], 0)
    assert last.cosine > 3 * last.chance_sd
    assert abs(first.cosine) < 3 * first.chance_sd
    assert 0 < last.chance_sd < 0.5


def test_on_the_man_to_woman_axis_the_names_split_and_the_other_kinds_do_not() -> None:
    """The first axis is 男人→女人 (by construction); no name helped to fit it, yet at the
    last step every 她 name lies further along it than every 他 name, while animals,
    fruits and vehicles stay near the middle."""
    run = recorded_run(default_model_dir())
    kinds = [*corpus.ANIMALS[:5], *corpus.FRUITS[:5], *corpus.VEHICLES[:5]]
    tokens = [*corpus.PEOPLE[:5], *kinds, "男人", "女人"]
    mapped = run_map(run, tokens, [("男人", "女人")])
    diff = np.mean(
        np.asarray(run.rows[:, run.token_index("女人")], dtype=np.float64)
        - np.asarray(run.rows[:, run.token_index("男人")], dtype=np.float64),
        axis=0,
    )
    assert np.allclose(mapped.plane.axes[0], diff / np.linalg.norm(diff))
    assert abs(float(mapped.plane.axes[0] @ mapped.plane.axes[1])) < 1e-9
    x = dict(zip(tokens, mapped.points[-1, :, 0], strict=True))
    male, female = gender_of_names(tokens)
    assert min(x[t] for t in female) > max(x[t] for t in male)
    split = np.mean([x[t] for t in female]) - np.mean([x[t] for t in male])
    others = [abs(x[t]) for t in kinds]
    assert max(others) < split / 4
    # the page: at first the points are crowded in a small patch, then they spread out
    area = [float(np.prod(np.ptp(mapped.points[i], axis=0))) for i in (0, -1)]
    assert area[1] > 5 * area[0]


def test_fitting_the_map_copies_only_the_rows_it_maps() -> None:
    """The training page fits its map in the learner's process: it reads the mapped
    tokens' rows and the pairs' one checkpoint at a time, never a float64 copy of them all
    (those copies, and before them the full SVD, were most of the page's passing peak)."""
    import tracemalloc

    run = recorded_run(default_model_dir())
    tokens = [*corpus.PEOPLE[:5], *corpus.ANIMALS[:5], *corpus.FRUITS[:5], *corpus.VEHICLES[:5]]
    tokens = [t for t in [*tokens, "男人", "女人"] if t in run.tokens]
    mapped_rows = run.rows[:, [run.token_index(t) for t in tokens]].astype(np.float64).nbytes
    tracemalloc.start()
    try:
        run_map(run, tokens, [("男人", "女人")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the mapped rows as stored (float32), read a checkpoint at a time in float64, and the
    # d x d scatter matrix with the eigen-solver's copy and vectors of it: less than a float64
    # copy of the mapped rows and two scatter matrices (a float64 copy of the rows, centred
    # again for the fit and again for the points, took 3 MB, more than the page's own rows)
    d = run.rows.shape[-1]
    assert peak < mapped_rows + 2 * d * d * 8
    assert peak < np.asarray(run.rows, dtype=np.float64).nbytes


def test_the_map_never_solves_for_every_eigenvector(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plane needs the two leading directions of a 256 x 256 scatter matrix; solving
    for all 256 (np.linalg.eigh: a copy, every vector, LAPACK's 2d² workspace, ~2 MB
    outside Python's heap) was the learner's highest passing peak on the training pages."""
    from tutor.core import projection

    solved: list[tuple[int, ...]] = []
    eigh = np.linalg.eigh

    def noting(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        solved.append(matrix.shape)
        return eigh(matrix)

    monkeypatch.setattr(projection.np.linalg, "eigh", noting)
    run = recorded_run(default_model_dir())
    run_map(run, TOKENS, [("男人", "女人")])
    run_map(run, TOKENS)
    assert solved and max(max(shape) for shape in solved) <= 16  # a block's, not 256


def test_the_leading_directions_are_the_eigenvectors_even_when_close() -> None:
    """Subspace iteration against the full solver, on scatter matrices whose second and
    third eigenvalues lie within 1% of each other (the lesson's run: 10%)."""
    from tutor.core.projection import leading_directions

    rng = np.random.default_rng(7)
    for spread in (np.linspace(1, 3, 256), np.r_[3.0, 2.0, 1.99, np.linspace(0.1, 1, 253)]):
        rows = rng.standard_normal((1800, 256)) * spread
        scatter = rows.T @ rows
        _, vectors = np.linalg.eigh(scatter)
        found = leading_directions(scatter, 2)
        for n in range(2):
            assert abs(abs(float(found[:, n] @ vectors[:, -1 - n])) - 1) < 1e-9
        assert np.allclose(found.T @ found, np.eye(2), atol=1e-12)
