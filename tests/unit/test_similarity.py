"""Neighbours and similarity: ties are visible, cosine stays in [-1, 1], results are right."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from tokenizers import Tokenizer

from tests.unit.model_fixture import build_model_dir, byte_bpe_json
from tutor.core.model import ModelError, ProjectModel, open_model
from tutor.core.similarity import (
    SimilarityError,
    analogy,
    cosine_matrix,
    nearest,
    similarity,
)
from tutor.core.table import one_hot
from tutor.core.tokenize import TokenizeError

VOCAB = 400
DIM = 8
SPECIAL_ID = 0
_HF = Tokenizer.from_str(byte_bpe_json())


def tid(word: str) -> int:
    (only,) = _HF.encode(word).ids
    return only


def planted_table() -> np.ndarray:
    """Random rows, with known structure planted where the tests look."""
    rng = np.random.default_rng(7)
    table = rng.standard_normal((VOCAB, DIM), dtype=np.float32)
    table[tid("狗")] = table[tid("猫")] + 0.05 * rng.standard_normal(DIM, dtype=np.float32)
    table[SPECIAL_ID] = table[tid("猫")]  # would be the nearest if specials counted
    twin = table[tid("香蕉")] + 0.01 * rng.standard_normal(DIM, dtype=np.float32)
    table[tid("苹果")] = twin  # two identical rows: an exact cosine tie
    table[tid("汽车")] = twin
    table[tid("学习")] = table[tid("小明")] - table[tid("小王")] + table[tid("喜欢")]
    return table


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> ProjectModel:
    path = tmp_path_factory.mktemp("model") / "m"
    return open_model(build_model_dir(path, dim=DIM, after=planted_table()))


def reference_nearest(table: np.ndarray, token: int, k: int) -> list[tuple[int, float]]:
    """Brute force in float64: every cosine, token and specials excluded, (-cos, id) order."""
    t = table.astype(np.float64)
    cos = t @ t[token] / (np.linalg.norm(t, axis=1) * np.linalg.norm(t[token]))
    order = sorted(
        (i for i in range(len(t)) if i not in (token, SPECIAL_ID)), key=lambda i: (-cos[i], i)
    )
    return [(i, float(cos[i])) for i in order[:k]]


@settings(deadline=None)
@given(st.data())
def test_cosine_matrix_is_bounded_symmetric_and_right(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 8))
    floats = st.floats(width=32, allow_nan=False, allow_infinity=False)
    vectors = data.draw(arrays(np.float32, (n, d), elements=floats))
    m = cosine_matrix(vectors)
    assert m.shape == (n, n)
    assert np.all(m >= -1.0) and np.all(m <= 1.0)
    np.testing.assert_allclose(m, m.T, atol=1e-12)
    v = vectors.astype(np.float64)
    for i in range(n):
        for j in range(n):
            ni, nj = np.linalg.norm(v[i]), np.linalg.norm(v[j])
            expected = 0.0 if ni == 0 or nj == 0 else np.dot(v[i] / ni, v[j] / nj)
            assert m[i, j] == pytest.approx(min(1.0, max(-1.0, expected)), abs=1e-9)


def test_cosine_matrix_of_known_vectors() -> None:
    m = cosine_matrix(np.array([[1, 0], [0, 2], [-3, 0], [1, 1], [0, 0]], np.float32))
    assert m[0, 1] == 0.0 and m[0, 2] == -1.0 and m[0, 0] == 1.0
    assert m[0, 3] == pytest.approx(1 / math.sqrt(2))
    assert m[4].tolist() == [0.0] * 5  # a zero vector has no direction
    with pytest.raises(SimilarityError, match=r"\(n, d\)"):
        cosine_matrix(np.ones(3))


def test_after_neighbours_match_brute_force(model: ProjectModel) -> None:
    result = nearest(model, "猫", "after", k=6)
    expected = reference_nearest(model.table("after").weights, tid("猫"), 6)
    assert [n.id for n in result.neighbours] == [i for i, _ in expected]
    assert [n.score for n in result.neighbours] == pytest.approx([s for _, s in expected], abs=1e-5)
    assert result.neighbours[0].piece == "狗" and result.neighbours[0].score > 0.99
    assert [n.rank for n in result.neighbours] == [1, 2, 3, 4, 5, 6]
    assert result.tie_count == 1
    assert (result.piece, result.id, result.scheme) == ("猫", tid("猫"), "after")


def test_special_tokens_are_not_neighbours(model: ProjectModel) -> None:
    everything = nearest(model, "猫", "after", k=VOCAB)
    ids = [n.id for n in everything.neighbours]
    assert SPECIAL_ID not in ids and tid("猫") not in ids
    assert len(ids) == VOCAB - 2


def test_cosine_ties_share_a_rank(model: ProjectModel) -> None:
    first, second = sorted((tid("苹果"), tid("汽车")))
    top1 = nearest(model, "香蕉", "after", k=1)
    assert [(n.id, n.rank) for n in top1.neighbours] == [(first, 1)]  # ties filled by id
    assert top1.tie_count == 2  # the unshown twin is counted
    top3 = nearest(model, "香蕉", "after", k=3)
    assert [(n.id, n.rank) for n in top3.neighbours[:2]] == [(first, 1), (second, 1)]
    assert top3.neighbours[0].score == top3.neighbours[1].score
    assert top3.neighbours[2].rank == 3 and top3.tie_count == 1


def test_before_uses_the_initial_table(model: ProjectModel) -> None:
    result = nearest(model, "猫", "before", k=3)
    expected = reference_nearest(model.table("before").weights, tid("猫"), 3)
    assert [n.id for n in result.neighbours] == [i for i, _ in expected]


def test_onehot_everything_ties_at_sqrt2(model: ProjectModel) -> None:
    result = nearest(model, "猫", "onehot", k=5)
    assert result.tie_count == VOCAB - 1
    assert [n.rank for n in result.neighbours] == [1] * 5
    assert [n.score for n in result.neighbours] == [math.sqrt(2)] * 5
    assert [n.id for n in result.neighbours] == [0, 1, 2, 3, 4]  # the tie is filled by id
    hot = one_hot([tid("猫"), 3], VOCAB).astype(np.float64)
    assert np.linalg.norm(hot[0] - hot[1]) == result.neighbours[3].score


@settings(deadline=None, max_examples=60)
@given(token=st.integers(0, VOCAB - 1), k=st.integers(1, 12))
def test_id_neighbours_rank_and_ties(model: ProjectModel, token: int, k: int) -> None:
    result = nearest(model, model.scheme.id_to_piece(token), "id", k=k, exact=True)
    assert result.id == token
    others = [i for i in range(VOCAB) if i != token]
    distances = sorted((abs(i - token), i) for i in others)
    assert [(n.score, n.id) for n in result.neighbours] == [
        (float(dist), i) for dist, i in distances[:k]
    ]
    for n in result.neighbours:
        assert n.rank == 1 + sum(1 for dist, _ in distances if dist < n.score)
    last = result.neighbours[-1].score
    assert result.tie_count == sum(1 for dist, _ in distances if dist == last)


def test_id_neighbours_on_both_sides_share_a_rank(model: ProjectModel) -> None:
    token = tid("猫")
    result = nearest(model, "猫", "id", k=4)
    assert [(n.id - token, n.score, n.rank) for n in result.neighbours] == [
        (-1, 1.0, 1),
        (1, 1.0, 1),
        (-2, 2.0, 3),
        (2, 2.0, 3),
    ]
    assert result.tie_count == 2


def test_neighbours_of_a_word_that_is_not_one_token(model: ProjectModel) -> None:
    with pytest.raises(TokenizeError, match=r"splits into '汽车' \+ '猫'"):
        nearest(model, "汽车猫", "after")
    with pytest.raises(SimilarityError, match="k must be at least 1"):
        nearest(model, "猫", "after", k=0)


def test_similarity_matrix(model: ProjectModel) -> None:
    pieces, matrix = similarity(model, ["猫", "狗", "汽车"], "after")
    assert pieces == ["猫", "狗", "汽车"]
    rows = model.table("after").lookup([tid("猫"), tid("狗"), tid("汽车")])
    np.testing.assert_allclose(matrix, cosine_matrix(rows))
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    assert matrix[0, 1] > 0.99 > matrix[0, 2]
    _, before = similarity(model, ["猫", "狗"], "before")
    assert before[0, 1] != pytest.approx(matrix[0, 1])


def test_analogy_finds_the_planted_row(model: ProjectModel) -> None:
    result = analogy(model, "小明", "小王", "喜欢", k=3)
    assert result[0].piece == "学习" and result[0].score == pytest.approx(1.0, abs=1e-6)
    assert [n.rank for n in result] == [1, 2, 3]
    assert {tid(w) for w in ("小明", "小王", "喜欢")}.isdisjoint(n.id for n in result)


def test_before_stage_missing(tmp_path: Path) -> None:
    bare = open_model(build_model_dir(tmp_path / "m", with_before=False))
    with pytest.raises(ModelError, match="only the 'after' stage is available"):
        nearest(bare, "猫", "before")


def test_rows_in_the_same_direction_tie_whatever_their_lengths(tmp_path: Path) -> None:
    """Rows pointing the same way at different lengths (a static model's weighted rows do)
    have equal cosines but for float32's last bits: a tie, filled in id order, whatever
    the rounding of the sums (it was not, and a snapshot flipped between runs)."""
    table = planted_table()
    query = table[tid("香蕉")]
    twins = [i for i in range(1, VOCAB) if i != tid("香蕉")]
    for n, i in enumerate(twins):
        table[i] = query * np.float32(0.5 + n / 97)
    model = open_model(build_model_dir(tmp_path / "m", dim=DIM, after=table))
    top = nearest(model, "香蕉", "after", k=3)
    assert [(n.id, n.rank) for n in top.neighbours] == [(i, 1) for i in twins[:3]]
    assert top.tie_count == len(twins)
