"""Static embedding models (model2vec, tokenlearn, sentence-transformers' StaticEmbedding):
the table is the whole model, looked up by ID and nothing else.

Their files differ from a transformer's in three ways the tutor follows: the table may be
int8 (dequantised with a `scales` tensor, one number for the table or one per row, where
the file has one; without it the stored integers are the row's direction, which is all a
cosine reads); a `mapping` tensor may send each token ID to a shared row, when the table
has fewer rows than the vocabulary has IDs; and a `weights` tensor may scale each token's
row. Everything is checked from the header, before the tokenizer is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tutor.core.refusal import Name
from tutor.core.table import (
    EmbeddingTable,
    TableError,
    TensorEntry,
    bf16_to_float32,
    check_table,
    checked_ids,
)

TABLE_NAMES = ("embeddings", "embedding.weight")
MAPPING = "mapping"  # token ID -> row
TOKEN_WEIGHTS = "weights"  # token ID -> a factor on its row
SCALE_NAMES = ("scales", "scale")  # int8 -> float: one for the table, or one per row
# Rows that must be dequantised or spread are held as float32: at most this many bytes (a
# 500,000 x 256 table takes 512 MB); a plain float table is memory-mapped instead.
MAX_ROWS_BYTES = 1 << 30

_FLOATS = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "F64": "<f8"}
_INTEGERS = {"I64": "<i8", "I32": "<i4", "I16": "<i2", "U32": "<u4", "U16": "<u2"}
_TABLE_DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "I8": "i1"}


def is_static(family: str | None, key: str) -> bool:
    """A static model: config.json says so, or its table has a static model's bare name."""
    return family == "static" or key in TABLE_NAMES


@dataclass(frozen=True, slots=True)
class StaticLayout:
    """Where a static model's parts are in its file, checked against each other."""

    path: Path
    key: str
    entries: dict[str, TensorEntry]
    data_start: int
    rows: int
    dim: int
    ids: int  # token IDs the table answers for: the mapping's length, or its rows
    mapping: str | None
    weights: str | None
    scale: str | None
    plain: bool  # a float table and nothing else: memory-mapped like any other table


def _refuse(path: Path, name: str, message: str, code: str, **values: object) -> TableError:
    return TableError(f"{name!r} in {path} {message}", code, path=path, tensor=Name(name), **values)


def _vector(path: Path, entries: dict[str, TensorEntry], name: str, kinds: dict[str, str]) -> int:
    """The length of a 1-D tensor of one of `kinds`' dtypes whose bytes fit its shape."""
    entry = entries[name]
    if entry.dtype not in kinds or len(entry.shape) != 1:
        wanted = "/".join(kinds)
        raise _refuse(
            path,
            name,
            f"is {entry.dtype} {list(entry.shape)}; a static model's {name} is a 1-D {wanted}",
            "static_part_shape",
            wanted=Name(wanted),
            part=Name(name),
            dtype=Name(entry.dtype),
            shape=Name(str(list(entry.shape))),
        )
    begin, end = entry.data_offsets
    if end - begin != np.dtype(kinds[entry.dtype]).itemsize * entry.shape[0]:
        raise _refuse(path, name, "has too few or too many bytes for its shape", "static_part_size")
    return entry.shape[0]


def static_layout(
    path: Path, entries: dict[str, TensorEntry], data_start: int, key: str
) -> StaticLayout:
    """A static model's table, mapping, weights and scale, read from the header alone; a
    dtype or shape the tutor cannot read is refused in one line."""
    entry = entries[key]
    if entry.dtype == "I8" and len(entry.shape) == 2:
        begin, end = entry.data_offsets
        if end - begin != math.prod(entry.shape):
            raise _refuse(
                path, key, "has too few or too many bytes for its shape", "static_part_size"
            )
    else:
        check_table(path, key, entry)
    rows, dim = entry.shape
    mapping = MAPPING if MAPPING in entries else None
    weights = TOKEN_WEIGHTS if TOKEN_WEIGHTS in entries else None
    scale = next((name for name in SCALE_NAMES if name in entries), None)
    plain = entry.dtype != "I8" and not (mapping or weights or scale)
    if not plain and rows * dim * 4 > MAX_ROWS_BYTES:
        raise _refuse(
            path,
            key,
            f"has {rows:,} x {dim:,} numbers: {rows * dim * 4 / 2**20:,.0f} MB as float32, "
            f"more than the {MAX_ROWS_BYTES // 2**20:,} MB the tutor holds for a static model",
            "static_too_big",
            rows=rows,
            dim=dim,
            limit=MAX_ROWS_BYTES // 2**20,
        )
    ids = _vector(path, entries, MAPPING, _INTEGERS) if mapping else rows
    if weights and _vector(path, entries, weights, _FLOATS) != ids:
        raise _refuse(
            path,
            weights,
            f"has {entries[weights].shape[0]:,} factors for {ids:,} token IDs",
            "static_weights_count",
            count=entries[weights].shape[0],
            ids=ids,
        )
    if scale:
        count = math.prod(entries[scale].shape)
        if entries[scale].dtype not in _FLOATS or count not in (1, rows):
            raise _refuse(
                path,
                scale,
                f"is {entries[scale].dtype} {list(entries[scale].shape)}; it must hold one "
                f"float for the table or one per row ({rows:,})",
                "static_scale_shape",
                dtype=Name(entries[scale].dtype),
                shape=Name(str(list(entries[scale].shape))),
                rows=rows,
            )
    layout = StaticLayout(
        path, key, entries, data_start, rows, dim, ids, mapping, weights, scale, plain
    )
    if mapping:
        _check_mapping(layout)
    return layout


def _check_mapping(layout: StaticLayout) -> None:
    """Every token ID must send to a row of the table (the mapping is V integers: read
    whole, at once)."""
    row_of = _read(layout, MAPPING, _INTEGERS)
    bad = np.flatnonzero((row_of < 0) | (row_of >= layout.rows))
    if bad.size:
        raise _refuse(
            layout.path,
            MAPPING,
            f"sends token ID {int(bad[0]):,} to row {int(row_of[bad[0]]):,}; the table has "
            f"rows 0..{layout.rows - 1:,}",
            "static_mapping_range",
            id=int(bad[0]),
            row=int(row_of[bad[0]]),
            rows=layout.rows,
        )


def _read(layout: StaticLayout, name: str, dtypes: dict[str, str]) -> np.ndarray:
    entry = layout.entries[name]
    raw = np.memmap(
        layout.path,
        dtype=dtypes[entry.dtype],
        mode="r",
        offset=layout.data_start + entry.data_offsets[0],
        shape=entry.shape,
    )
    if entry.dtype == "BF16":
        return bf16_to_float32(np.asarray(raw))
    return np.asarray(raw, dtype=np.int64 if name == MAPPING else np.float32)


def read_static(layout: StaticLayout) -> StaticTable:
    """The rows as float32 (dequantised, times their scale), with the mapping and weights."""
    rows = _read(layout, layout.key, _TABLE_DTYPES)
    if layout.scale:
        scale = _read(layout, layout.scale, _FLOATS).reshape(-1)
        rows = rows * (scale[:, None] if scale.size == layout.rows else scale[0])
    row_of = _read(layout, layout.mapping, _INTEGERS) if layout.mapping else None
    factors = _read(layout, layout.weights, _FLOATS) if layout.weights else None
    return StaticTable(np.ascontiguousarray(rows, np.float32), row_of, factors)


class StaticTable(EmbeddingTable):
    """A token's vector is row `row_of[id]` times `factors[id]`: the table stores fewer,
    shared rows, and every answer is computed on them and then spread to the IDs."""

    def __init__(
        self, rows: np.ndarray, row_of: np.ndarray | None, factors: np.ndarray | None
    ) -> None:
        super().__init__(rows)
        self.row_of = np.arange(len(rows)) if row_of is None else row_of
        self.factors = factors

    @property
    def vocab_size(self) -> int:
        return len(self.row_of)

    @property
    def parameter_count(self) -> int:
        """The numbers the table stores (its shared rows), not V x d."""
        return int(self.storage.size)

    def _spread(self, per_row: np.ndarray, factors: np.ndarray | None) -> np.ndarray:
        per_id = per_row[self.row_of]
        return per_id if factors is None else per_id * factors

    def lookup(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        ids = checked_ids(ids, self.vocab_size)
        rows = self.storage[self.row_of[ids]]
        factors = None if self.factors is None else self.factors[ids][:, None]
        return np.ascontiguousarray(rows if factors is None else rows * factors, np.float32)

    @property
    def weights(self) -> np.ndarray:
        return self.lookup(np.arange(self.vocab_size))

    def blocks(self, first: int = 0, stop: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
        stop = self.vocab_size if stop is None else stop
        for start in range(first, stop, self.block_rows):
            yield start, self.lookup(np.arange(start, min(start + self.block_rows, stop)))

    def dot(self, query: np.ndarray) -> np.ndarray:
        return self._spread(self.storage @ self._check_query(query), self.factors)

    @cached_property
    def row_norms(self) -> np.ndarray:
        norms = np.sqrt(np.einsum("ij,ij->i", self.storage, self.storage))
        return self._spread(norms, None if self.factors is None else np.abs(self.factors))
