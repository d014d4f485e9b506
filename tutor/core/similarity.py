"""Which tokens are "near" a token, under the naive schemes and under the learned table.

The lesson's argument rests on these lists: by id, neighbours are arbitrary; by one-hot,
every token is equally far (a tie the output must show, not hide by sort order); in the
trained table, tokens used alike are close. Ties therefore carry shared ranks and a count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tutor.core.model import ProjectModel, Stage
from tutor.core.names import NEIGHBOUR_SCHEMES, NeighbourScheme
from tutor.core.refusal import Refusal
from tutor.core.table import EmbeddingTable, one_hot


class SimilarityError(Refusal):
    """A neighbour or similarity request that cannot be answered (a code per kind)."""


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One neighbour; tokens with equal scores share a rank (1, 1, 3, ...). `reserved`
    marks a special token or placeholder (only ID and one-hot lists show them)."""

    piece: str
    id: int
    score: float
    rank: int
    reserved: bool = False


@dataclass(frozen=True, slots=True)
class NeighbourResult:
    """The shown neighbours of a token; `tie_count` counts every token (shown or not) whose
    score equals the last shown one, so a cut-off inside a tie is visible."""

    piece: str
    id: int
    scheme: NeighbourScheme
    neighbours: list[Neighbour]
    tie_count: int

    @property
    def ties_left_out(self) -> int:
        """Tokens with the last shown score that the list had no room for."""
        if not self.neighbours:
            return 0
        last = self.neighbours[-1].rank
        return self.tie_count - sum(1 for n in self.neighbours if n.rank == last)


def cosine_matrix(vectors: np.ndarray) -> np.ndarray:
    """(n, n) cosine similarities, in float64 and clipped to [-1, 1].

    A zero vector has no direction: its similarity to everything (itself included) is 0.
    """
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2:
        raise SimilarityError(
            f"cosine_matrix needs an (n, d) array, got shape {v.shape}",
            "not_a_matrix",
            shape=str(v.shape),
        )
    norms = np.linalg.norm(v, axis=1)
    unit = np.divide(v, norms[:, None], out=np.zeros_like(v), where=norms[:, None] > 0)
    return np.clip(unit @ unit.T, -1.0, 1.0)


def _top_k(keys: np.ndarray, valid: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The k nearest valid ids (smaller key = nearer), their ranks, and the tie count.

    Ties at the cut-off are filled in id order, so the choice is reproducible, and the
    tie count says how many tokens share the last shown key.
    """
    candidates = np.flatnonzero(valid & np.isfinite(keys))
    if candidates.size == 0:
        return candidates, candidates, 0
    cand_keys = keys[candidates]
    k = min(k, candidates.size)
    threshold = cand_keys[np.argpartition(cand_keys, k - 1)[:k]].max()
    tied = candidates[cand_keys == threshold]
    chosen = np.concatenate([candidates[cand_keys < threshold], tied])[:k]
    chosen = chosen[np.lexsort((chosen, keys[chosen]))]
    chosen_keys = keys[chosen]
    ranks = np.searchsorted(chosen_keys, chosen_keys, side="left") + 1
    return chosen, ranks, int(tied.size)


# float32 holds a cosine to about 7 digits; 6 of them decide its rank
COSINE_DIGITS = 6


def _cosine_keys(table: EmbeddingTable, query: np.ndarray, k: int, valid: np.ndarray) -> np.ndarray:
    """-cosine of each of the first len(valid) rows with `query` (smaller = nearer); a row
    that cannot be among the k nearest valid ones may be +inf (see `top_cosines`).

    Rounded to COSINE_DIGITS: float32 sums tell equal cosines apart in their last bits
    (rows that point one way at different lengths), and ties are filled in id order."""
    in_table = np.zeros(table.vocab_size, dtype=bool)
    in_table[: len(valid)] = valid
    cosines = table.top_cosines(query, k, in_table)[: len(valid)].astype(np.float64)
    return -np.round(cosines, COSINE_DIGITS)


def _neighbours(
    model: ProjectModel, ids: np.ndarray, ranks: np.ndarray, scores: np.ndarray
) -> list[Neighbour]:
    reserved = model.scheme.reserved_ids
    return [
        Neighbour(model.scheme.id_to_piece(int(i)), int(i), float(s), int(r), int(i) in reserved)
        for i, r, s in zip(ids, ranks, scores, strict=True)
    ]


def _check_k(k: int) -> None:
    if k < 1:
        raise SimilarityError(f"k must be at least 1, got {k}", "k_too_small", k=k)


def nearest(
    model: ProjectModel, piece: str, scheme: NeighbourScheme, k: int = 5, exact: bool = False
) -> NeighbourResult:
    """The k tokens nearest to `piece` (a typed word; the exact vocabulary entry when
    `exact`) under one scheme, the token itself excluded.

    id: |id difference| (smaller is nearer); onehot: Euclidean distance between one-hot
    vectors; before/after: cosine in the table (bigger is nearer, special tokens and
    placeholders excluded, since their rows say nothing about usage).
    """
    _check_k(k)
    if scheme not in NEIGHBOUR_SCHEMES:
        raise SimilarityError(
            f"unknown scheme {scheme!r}; choose {', '.join(NEIGHBOUR_SCHEMES)}",
            "unknown_scheme",
            scheme=scheme,
            choices=", ".join(NEIGHBOUR_SCHEMES),
        )
    token_id = model.scheme.single_id(piece, exact)
    n = model.scheme.vocab_size
    valid = np.ones(n, dtype=bool)
    valid[token_id] = False
    if scheme == "id":
        keys = np.abs(np.arange(n, dtype=np.int64) - token_id).astype(np.float64)
        sign = 1.0
    elif scheme == "onehot":
        # Every pair of distinct one-hot vectors differs in exactly two places: one distance
        # for all, computed on a real pair.
        other = 1 if token_id == 0 else 0
        pair = one_hot([token_id, other], n) if n > 1 else np.zeros((2, 1), np.float32)
        keys = np.full(n, float(np.linalg.norm(pair[0].astype(np.float64) - pair[1])))
        sign = 1.0
    else:
        table = model.table(scheme)
        valid[list(model.scheme.reserved_ids)] = False
        keys = _cosine_keys(table, table.lookup([token_id])[0], k, valid)
        sign = -1.0
    ids, ranks, tie_count = _top_k(keys, valid, k)
    return NeighbourResult(
        piece=model.scheme.id_to_piece(token_id),
        id=token_id,
        scheme=scheme,
        neighbours=_neighbours(model, ids, ranks, sign * keys[ids]),
        tie_count=tie_count,
    )


def similarity(
    model: ProjectModel, pieces: Sequence[str], stage: Stage = "after", exact: bool = False
) -> tuple[list[str], np.ndarray]:
    """Cosine matrix of the pieces' rows; each piece must be one token."""
    ids = [model.scheme.single_id(p, exact) for p in pieces]
    return list(pieces), cosine_matrix(model.table(stage).lookup(ids))


def analogy(
    model: ProjectModel,
    a: str,
    b: str,
    c: str,
    stage: Stage = "after",
    k: int = 5,
    exact: bool = False,
) -> list[Neighbour]:
    """Tokens nearest (cosine) to row(a) - row(b) + row(c); a, b, c and specials excluded."""
    _check_k(k)
    ids = [model.scheme.single_id(p, exact) for p in (a, b, c)]
    table = model.table(stage)
    rows = table.lookup(ids)
    query = rows[0] - rows[1] + rows[2]
    valid = np.ones(model.scheme.vocab_size, dtype=bool)
    valid[ids] = False
    valid[list(model.scheme.reserved_ids)] = False
    keys = _cosine_keys(table, query, k, valid)
    chosen, ranks, _ = _top_k(keys, valid, k)
    return _neighbours(model, chosen, ranks, -keys[chosen])
