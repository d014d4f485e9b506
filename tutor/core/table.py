"""The embedding table: V rows of d numbers, fetched by row number.

Read straight from safetensors files without torch. float32 tensors are memory-mapped, so
opening a 248,320 x 256 table costs nothing until rows are read, and queries that scan
the whole table (nearest neighbours) read the mapped rows in place instead of copying them.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ValidationError

EMBEDDING_KEYS = (
    "model.embed_tokens.weight",
    "embed_tokens.weight",
    "wte.weight",
    "transformer.wte.weight",
)

_NUMPY_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2"}


class TableError(ValueError):
    """A table that cannot be read or a row that does not exist; the message is for humans."""


class TensorEntry(BaseModel):
    """One tensor in a safetensors header: where its bytes are and how to read them."""

    dtype: str
    shape: tuple[int, ...]
    data_offsets: tuple[int, int]


def read_header(path: Path) -> tuple[dict[str, TensorEntry], int]:
    """The tensors listed in a safetensors file, and the byte offset where data starts."""
    try:
        with path.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            raw = json.loads(f.read(size))
    except FileNotFoundError as exc:
        raise TableError(f"file not found: {path}") from exc
    except (struct.error, ValueError) as exc:
        raise TableError(f"{path} is not a safetensors file: {exc}") from exc
    raw.pop("__metadata__", None)
    try:
        entries = {name: TensorEntry.model_validate(v) for name, v in raw.items()}
    except ValidationError as exc:
        raise TableError(f"{path} has a malformed safetensors header: {exc}") from exc
    return entries, 8 + size


def find_embedding_key(entries: dict[str, TensorEntry]) -> str:
    """The input-embedding tensor's name, by the conventions of the shipped and HF models."""
    for key in EMBEDDING_KEYS:
        if key in entries:
            return key
    embed = [n for n, e in entries.items() if "embed" in n and len(e.shape) == 2]
    if len(embed) == 1:
        return embed[0]
    raise TableError(
        "no embedding tensor: expected one of "
        f"{', '.join(EMBEDDING_KEYS)} or exactly one 2-D tensor named '*embed*' "
        f"(found {', '.join(sorted(entries)) or 'no tensors'})"
    )


def one_hot(ids: Sequence[int] | np.ndarray, vocab_size: int) -> np.ndarray:
    """(T, V) float32 rows, each all zeros except a 1 at its id."""
    ids = _as_ids(ids, vocab_size)
    out = np.zeros((len(ids), vocab_size), dtype=np.float32)
    out[np.arange(len(ids)), ids] = 1.0
    return out


def _as_ids(ids: Iterable[int] | np.ndarray, vocab_size: int) -> np.ndarray:
    arr = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids, dtype=np.int64)
    if arr.ndim != 1:
        raise TableError(f"ids must be a flat list, got shape {arr.shape}")
    bad = arr[(arr < 0) | (arr >= vocab_size)]
    if bad.size:
        raise TableError(f"id {int(bad[0])} is outside the table (rows 0..{vocab_size - 1:,})")
    return arr


class EmbeddingTable:
    """A V x d float32 table; `weights` may be a read-only memory map of the file."""

    def __init__(self, weights: np.ndarray) -> None:
        if weights.ndim != 2 or weights.dtype != np.float32:
            raise TableError(
                f"an embedding table is 2-D float32, got {weights.dtype} {weights.shape}"
            )
        self.weights = weights

    @classmethod
    def from_safetensors(
        cls, path: Path, key: str | None = None, mmap: bool = True
    ) -> EmbeddingTable:
        """Read one 2-D tensor (default: the embedding) without torch.

        float32 is mapped in place when `mmap`; F16/BF16/F64 are converted to float32 once,
        since every computation here is float32.
        """
        entries, data_start = read_header(path)
        key = key or find_embedding_key(entries)
        if key not in entries:
            raise TableError(f"{path} has no tensor {key!r}")
        entry = entries[key]
        if len(entry.shape) != 2:
            raise TableError(f"{key!r} in {path} is not 2-D: shape {list(entry.shape)}")
        if entry.dtype not in _NUMPY_DTYPES:
            raise TableError(f"{key!r} in {path} has unsupported dtype {entry.dtype}")
        begin, end = entry.data_offsets
        dtype = np.dtype(_NUMPY_DTYPES[entry.dtype])
        if end - begin != dtype.itemsize * entry.shape[0] * entry.shape[1]:
            raise TableError(f"{key!r} in {path}: byte range does not match its shape")
        raw = np.memmap(path, dtype=dtype, mode="r", offset=data_start + begin, shape=entry.shape)
        if entry.dtype == "BF16":  # bfloat16 is the top half of a float32
            weights = (raw.astype(np.uint32) << 16).view(np.float32)
        elif entry.dtype != "F32" or not mmap:
            weights = np.array(raw, dtype=np.float32)
        else:
            weights = raw
        return cls(weights)

    @property
    def vocab_size(self) -> int:
        return int(self.weights.shape[0])

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])

    @property
    def parameter_count(self) -> int:
        return self.vocab_size * self.dim

    @property
    def _dense(self) -> np.ndarray:
        # A plain ndarray view of the memmap: same memory, no np.memmap results from math.
        return np.asarray(self.weights)

    def lookup(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """(T, d): row ids[t] for each t. This is all an embedding layer does."""
        return np.array(self._dense[_as_ids(ids, self.vocab_size)], dtype=np.float32)

    def one_hot(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """(T, V) one-hot rows for the ids."""
        return one_hot(ids, self.vocab_size)

    def one_hot_matmul(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """one_hot(ids) @ W as a real matrix product, to show that it equals `lookup`."""
        return self.one_hot(ids) @ self._dense

    @cached_property
    def row_norms(self) -> np.ndarray:
        """(V,) Euclidean norm of every row, computed once per table; einsum makes no V x d copy."""
        squares = np.einsum("ij,ij->i", self._dense, self._dense)
        return np.sqrt(squares, out=squares)

    def dot(self, query: np.ndarray) -> np.ndarray:
        """(V,) W @ query as one BLAS matrix-vector product straight over the mapped rows.

        No copy of W is made. Splitting the product into chunks was measured slower here
        (each BLAS call pays a thread wake-up, ~8 ms on a busy 2-core machine).
        """
        query = np.asarray(query, dtype=np.float32)
        if query.shape != (self.dim,):
            raise TableError(f"query must have shape ({self.dim},), got {query.shape}")
        return self._dense @ query
