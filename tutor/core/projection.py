"""The training page's map: the recorded tokens' rows on one plane for the whole run.

The plane is fitted once on every checkpoint's rows together, so its axes are the same
at every step and a point that moves on the map moved in the table (a plane fitted per
step would turn and flip from one step to the next). Given 男→女 pairs, its first axis is
their direction and the second the rows' principal direction across it; without, both
are principal directions (PCA). On the plain PCA plane of the lesson's tokens the
男人→女人 difference keeps about a tenth of its length, too little to draw; on this one it
keeps all of it, and whether the names split along it is what the map shows. A live
run's plane is refitted as each checkpoint arrives, over all of its checkpoints so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tutor.core import corpus as corpus_mod

if TYPE_CHECKING:
    from tutor.core.trajectory import Trajectory


@dataclass(frozen=True, slots=True)
class Plane:
    """A mean row and two orthonormal axes: the plane the rows are seen on."""

    mean: np.ndarray  # (d,)
    axes: np.ndarray  # (2, d)

    def project(self, rows: np.ndarray) -> np.ndarray:
        return (np.asarray(rows, dtype=np.float64) - self.mean) @ self.axes.T


def fit_plane(
    rows: np.ndarray, along: np.ndarray | None = None, spread: Sequence[int] | None = None
) -> Plane:
    """The plane through the mean of `rows` (..., tokens, d), all of them together: `along`
    (a direction, kept as it points) and the principal direction across it, or the two
    principal directions; of the tokens `spread` (default: all) where given. A principal
    axis is signed so that its largest component is positive: a refit does not flip it.

    The principal directions are the leading eigenvectors of the d x d scatter matrix
    (with `along` projected out of it), not an SVD of every row, summed one checkpoint
    (the leading axis of `rows`) at a time: the training page fits this in the learner's
    process, and the SVD's copies, then float64 copies of all the rows, were most of its
    passing peak."""
    d = rows.shape[-1]
    # one checkpoint's rows at a time, in float64: never a float64 copy of them all
    checkpoints = rows.reshape(-1, *rows.shape[-2:])
    chosen = slice(None) if spread is None else list(spread)
    total, spread_total = np.zeros(d), np.zeros(d)
    for checkpoint in checkpoints:
        block = np.asarray(checkpoint, dtype=np.float64)
        total += block.sum(axis=0)
        spread_total += block[chosen].sum(axis=0)
    mean = total / (len(checkpoints) * checkpoints.shape[1])
    spread_mean = spread_total / (len(checkpoints) * len(checkpoints[0][chosen]))
    scatter = np.zeros((d, d))
    for checkpoint in checkpoints:
        centred = np.asarray(checkpoint[chosen], dtype=np.float64) - spread_mean
        scatter += centred.T @ centred
    axes = []
    if along is not None:
        first = along / np.linalg.norm(along)
        # the scatter of the rows with `along` taken out, (I - ffᵀ) S (I - ffᵀ), in place
        pull = scatter @ first
        scatter -= np.outer(first, pull)
        scatter -= np.outer(pull, first)
        scatter += float(first @ pull) * np.outer(first, first)
        axes.append(first)
    for axis in leading_directions(scatter, 2 - len(axes)).T:
        axes.append(axis if axis[np.argmax(np.abs(axis))] > 0 else -axis)
    return Plane(mean, np.stack(axes))


RITZ_BLOCK = 8  # directions refined together: the error shrinks by λ9/λ2 a step, not λ3/λ2
RITZ_STEPS = 500  # a cap: the lesson's run settles in 14-16
RITZ_RESIDUAL = 1e-12  # |S v - λ v| against the largest λ: the axes to ~1e-11


def leading_directions(scatter: np.ndarray, count: int) -> np.ndarray:
    """The `count` leading eigenvectors (d, count), the leading one first, of the scatter
    matrix `scatter` (symmetric, positive semi-definite), by subspace iteration with
    Rayleigh-Ritz: a block of directions multiplied by the matrix, the leading ones picked
    out of the small matrix the block spans, until they are eigenvectors to RITZ_RESIDUAL.

    Not np.linalg.eigh of the d x d matrix: its copy of the matrix, every eigenvector and
    LAPACK's workspace (2d² floats) were 2 MB of the training page's passing peak, the
    highest of the learner's walk; here the eigen-solver sees a RITZ_BLOCK-square matrix."""
    d = len(scatter)
    size = min(d, max(RITZ_BLOCK, count))
    start = np.argsort(np.diag(scatter), kind="stable")[::-1][:size]  # the widest columns
    block, _ = np.linalg.qr(scatter[:, start])
    leading = block[:, :count]
    scale = max(float(np.abs(np.diag(scatter)).max()), np.finfo(np.float64).tiny)
    for _ in range(RITZ_STEPS):
        moved = scatter @ block
        values, vectors = np.linalg.eigh(block.T @ moved)  # ascending
        vectors = vectors[:, ::-1]
        leading = block @ vectors[:, :count]
        residual = moved @ vectors[:, :count] - leading * values[::-1][:count]
        if float(np.abs(residual).max()) <= RITZ_RESIDUAL * scale:
            break
        block, _ = np.linalg.qr(moved @ vectors)
    return leading


@dataclass(frozen=True, slots=True)
class RunMap:
    """Every checkpoint's points on the run's one plane, and the bounds of them all."""

    tokens: list[str]
    plane: Plane
    points: np.ndarray  # (steps, tokens, 2)
    low: np.ndarray  # (2,)
    high: np.ndarray  # (2,)


def run_map(
    run: Trajectory, tokens: Sequence[str], pairs: Sequence[tuple[str, str]] = ()
) -> RunMap:
    """The recorded `tokens` on the plane fitted to all of the run's checkpoints, its
    first axis the (male, female) `pairs`' mean difference over them all, if any, and its
    other axis the principal direction across it of the tokens not in a pair (the pair
    words lie far from the rest and would take the axis for themselves)."""
    paired = [t for pair in pairs for t in pair]
    read = [*tokens, *(t for t in dict.fromkeys(paired) if t not in tokens)]
    at = [run.token_index(t) for t in read]
    # the mapped tokens' rows and the pairs', as stored (float32), read out of the run a
    # checkpoint at a time; the fit and the projection take one at a time in float64
    stored = np.stack([run.at(index)[at] for index in range(len(run.steps))])
    rows = stored[:, : len(tokens)]
    if not pairs:
        plane = fit_plane(rows)
    else:

        def column(token: str) -> np.ndarray:  # one token's row at every step
            return np.asarray(stored[:, read.index(token)], dtype=np.float64)

        along = np.mean([column(b) - column(a) for a, b in pairs], axis=(0, 1))
        plane = fit_plane(rows, along, [n for n, t in enumerate(tokens) if t not in paired])
    points = np.stack([plane.project(checkpoint) for checkpoint in rows])
    return RunMap(list(tokens), plane, points, points.min(axis=(0, 1)), points.max(axis=(0, 1)))


def gender_of_names(tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """The corpus's named people among `tokens`, as (他, 她): the generator gives each name
    a gender and every pronoun after it agrees, which is all that tells them apart."""
    names = [t for t in tokens if t in corpus_mod.PEOPLE]
    female = [t for t in names if t in corpus_mod.FEMALE_NAMES]
    return [t for t in names if t not in female], female


@dataclass(frozen=True, slots=True)
class Agreement:
    """How well the names' 他→她 difference points along the pairs' 男→女 difference, and
    the cosine of two random differences of the same rows (its root mean square)."""

    cosine: float
    chance_sd: float


def direction_agreement(
    run: Trajectory, pairs: Sequence[tuple[str, str]], index: int, tokens: Sequence[str] = ()
) -> Agreement:
    """At checkpoint `index`: the cosine between the mean female − male difference of
    `pairs` and the female names' mean row − the male names' (names among `tokens`, or
    among all recorded tokens); chance from every two disjoint pairs of those rows."""
    rows = np.asarray(run.at(index), dtype=np.float64)
    row = {t: rows[run.token_index(t)] for t in (tokens or run.tokens)}
    male, female = gender_of_names(list(row))
    pair = np.mean([rows[run.token_index(b)] - rows[run.token_index(a)] for a, b in pairs], axis=0)
    names = np.mean([row[t] for t in female], axis=0) - np.mean([row[t] for t in male], axis=0)
    return Agreement(_cosine(pair, names), _chance_sd(np.stack(list(row.values()))))


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _chance_sd(rows: np.ndarray) -> float:
    """Root mean square cosine between the differences of two disjoint pairs of rows."""
    first, second = np.triu_indices(len(rows), k=1)
    diffs = rows[first] - rows[second]
    diffs /= np.linalg.norm(diffs, axis=1, keepdims=True)
    cos = diffs @ diffs.T
    disjoint = (
        (first[:, None] != first[None, :])
        & (first[:, None] != second[None, :])
        & (second[:, None] != first[None, :])
        & (second[:, None] != second[None, :])
    )
    return float(np.sqrt(np.mean(cos[disjoint] ** 2)))
