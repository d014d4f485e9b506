"""The embedding table: V rows of d numbers, fetched by row number.

Read straight from safetensors files without torch, memory-mapped in the dtype the file
stores (float32, float16 or bfloat16), so opening a 248,320 x 5,120 table costs nothing
until rows are read. Every computation is float32: looked-up rows are converted one by one,
and scans of the whole table (row norms, the product with a query) convert a block of rows
at a time, so a bf16 table is never copied whole (it would take 5 GB as float32).
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property, wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from tutor.core.hf import HFError, field_of, find_input_table, first_error
from tutor.core.refusal import Coded, Name, recoded

_Map = mmap.mmap  # `from_safetensors` has a parameter named mmap

# safetensors dtype -> how numpy reads its bytes (bf16 as raw 16-bit words)
_NUMPY_DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}

# safetensors' own limit on the JSON header
MAX_HEADER_BYTES = 100_000_000
# A block of rows converted to float32 at once: about 1 MB, so it stays in the CPU cache.
BLOCK_BYTES = 1 << 20
# Scans of tables whose float32 form is at least this big use this many threads at most.
PARALLEL_MIN_BYTES = 64 << 20
SCAN_THREADS = 2
# How far a cosine read from bf16 pairs (`_paired_products`) can be from the exact one.
BF16_PAIR_ERROR = 2.0**-7
# Rows rescored exactly at once after a paired estimate (5,120 wide: 5 MB as float32).
RESCORE_ROWS = 256
# Row norms of tables at least this big are kept in the cache dir between runs.
NORMS_CACHE_MIN_BYTES = 64 << 20
# Mapped tables smaller than this give their pages back after each scan (`hand_back`):
# mapping them again costs about 0.1 ms for the lesson's 3.9 MB tables; bigger ones stay
# mapped, since mapping them again would about double a query's time.
HAND_BACK_MAX_BYTES = 64 << 20


class TableError(Coded, ValueError):
    """A table that cannot be read or a row that does not exist; the message is for humans,
    the code (where it has one) and values for an interface to say it in its language."""


class TensorEntry(BaseModel):
    """One tensor in a safetensors header: where its bytes are and how to read them."""

    dtype: str
    shape: tuple[int, ...]
    data_offsets: tuple[int, int]


def read_header(path: Path) -> tuple[dict[str, TensorEntry], int]:
    """The tensors listed in a safetensors file, and the byte offset where data starts.

    A file cut short (an interrupted download) is refused here, in one line, before
    anything is mapped.
    """
    try:
        size_on_disk = path.stat().st_size
        if size_on_disk < 8:
            raise TableError(
                _too_short(path, size_on_disk),
                "weights_too_short" if size_on_disk else "weights_empty",
                path=path,
                size=size_on_disk,
            )
        with path.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            if size > MAX_HEADER_BYTES:
                raise TableError(
                    f"{path} is not a safetensors file: it starts with a header length of "
                    f"{size:,} bytes (safetensors allows {MAX_HEADER_BYTES:,})",
                    "weights_header_too_big",
                    path=path,
                    size=size,
                    limit=MAX_HEADER_BYTES,
                )
            if 8 + size > size_on_disk:
                raise TableError(
                    f"{path} is truncated: its header needs {8 + size:,} bytes but the file "
                    f"has {size_on_disk:,}",
                    "weights_truncated",
                    path=path,
                    needed=8 + size,
                    size=size_on_disk,
                )
            raw = json.loads(f.read(size))
    except FileNotFoundError as exc:
        raise TableError(f"file not found: {path}", "weights_not_found", path=path) from exc
    except OSError as exc:
        raise TableError(
            f"cannot read {path}: {exc.strerror}", "weights_unreadable", path=path, why=exc.strerror
        ) from exc
    except (struct.error, ValueError) as exc:
        if isinstance(exc, TableError):
            raise
        raise TableError(
            f"{path} is not a safetensors file: {exc}", "not_safetensors", path=path
        ) from exc
    if not isinstance(raw, dict):
        raise TableError(
            f"{path} is not a safetensors file: its header is not a JSON object",
            "not_safetensors",
            path=path,
        )
    raw.pop("__metadata__", None)
    try:
        entries = {name: TensorEntry.model_validate(v) for name, v in raw.items()}
    except ValidationError as exc:
        raise TableError(
            f"{path} has a malformed safetensors header: {first_error(exc)}",
            "bad_safetensors_header",
            path=path,
            field=field_of(exc),
        ) from exc
    data_end = max((e.data_offsets[1] for e in entries.values()), default=0)
    if 8 + size + data_end > size_on_disk:
        raise TableError(
            f"{path} is truncated: its tensors need {8 + size + data_end:,} bytes but the "
            f"file has {size_on_disk:,} (was the download interrupted?)",
            "weights_truncated",
            path=path,
            needed=8 + size + data_end,
            size=size_on_disk,
        )
    return entries, 8 + size


def _too_short(path: Path, size: int) -> str:
    if size == 0:
        return f"{path} is empty (was the download interrupted?)"
    return (
        f"{path} is too short to be a safetensors file: it has {size} bytes, "
        "fewer than the 8 that give its header's length (was the download interrupted?)"
    )


def check_table(path: Path, key: str, entry: TensorEntry) -> np.dtype:
    """How numpy reads a 2-D table's bytes; a table the tutor cannot map is refused here,
    so a model directory is refused when it is opened rather than at its first question."""
    if len(entry.shape) != 2:
        raise TableError(
            f"{key!r} in {path} is not a table: shape {list(entry.shape)}",
            "not_a_table",
            path=path,
            tensor=Name(key),
            shape=Name(str(list(entry.shape))),
        )
    if entry.dtype not in _NUMPY_DTYPES:
        raise TableError(
            f"{key!r} in {path} has dtype {entry.dtype}; the tutor reads F32, F16 and BF16",
            "table_dtype",
            path=path,
            tensor=Name(key),
            dtype=Name(entry.dtype),
        )
    dtype = np.dtype(_NUMPY_DTYPES[entry.dtype])
    begin, end = entry.data_offsets
    needed = dtype.itemsize * entry.shape[0] * entry.shape[1]
    if end - begin != needed:
        raise TableError(
            f"{key!r} in {path}: its {end - begin:,} bytes do not hold shape "
            f"{list(entry.shape)} in {entry.dtype} ({needed:,} bytes)",
            "table_size",
            path=path,
            tensor=Name(key),
            bytes=end - begin,
            shape=Name(str(list(entry.shape))),
            dtype=Name(entry.dtype),
            needed=needed,
        )
    return dtype


def map_float32(path: Path, key: str) -> np.ndarray:
    """One float32 tensor of any shape in a safetensors file, memory-mapped read-only:
    nothing is copied, and its pages are read as they are used."""
    entries, data_start = read_header(path)
    entry = entries.get(key)
    if entry is None:
        raise TableError(f"{path} has no tensor {key!r}")
    begin, end = entry.data_offsets
    needed = 4 * math.prod(entry.shape)
    if entry.dtype != "F32" or end - begin != needed:
        raise TableError(
            f"{key!r} in {path}: {end - begin:,} bytes of {entry.dtype} do not hold shape "
            f"{list(entry.shape)} in F32 ({needed:,} bytes)"
        )
    return np.memmap(path, dtype="<f4", mode="r", offset=data_start + begin, shape=entry.shape)


def find_embedding_key(entries: dict[str, TensorEntry]) -> str:
    """The input-embedding tensor's name, by every naming convention `tutor.core.hf` knows."""
    try:
        return find_input_table({name: e.shape for name, e in entries.items()})
    except HFError as exc:
        raise recoded(TableError, exc) from exc


def one_hot(ids: Sequence[int] | np.ndarray, vocab_size: int) -> np.ndarray:
    """(T, V) float32 rows, each all zeros except a 1 at its id."""
    ids = checked_ids(ids, vocab_size)
    out = np.zeros((len(ids), vocab_size), dtype=np.float32)
    out[np.arange(len(ids)), ids] = 1.0
    return out


def checked_ids(ids: Iterable[int] | np.ndarray, vocab_size: int) -> np.ndarray:
    """`ids` as a flat int64 array, each a row of a table of `vocab_size` rows, or why not."""
    arr = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids, dtype=np.int64)
    if arr.ndim != 1:
        raise TableError(f"ids must be a flat list, got shape {arr.shape}")
    bad = arr[(arr < 0) | (arr >= vocab_size)]
    if bad.size:
        raise TableError(f"id {int(bad[0])} is outside the table (rows 0..{vocab_size - 1:,})")
    return arr


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _hands_back(scan: Callable[_P, _R]) -> Callable[_P, _R]:
    """A scan of the whole table leaves none of it in the process's memory (see
    `EmbeddingTable.hand_back`)."""

    @wraps(scan)
    def scanned(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return scan(*args, **kwargs)
        finally:
            args[0].hand_back()  # type: ignore[attr-defined]

    return scanned


def bf16_to_float32(words: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """bfloat16 stored as 16-bit words -> float32: a bf16 is the top half of a float32."""
    wide = np.left_shift(words, 16, dtype=np.uint32, out=out)
    return wide.view(np.float32)


class EmbeddingTable:
    """A V x d table; `storage` may be a read-only memory map in float32, float16 or bf16."""

    def __init__(self, storage: np.ndarray, *, bfloat16: bool = False) -> None:
        allowed = (np.uint16,) if bfloat16 else (np.float32, np.float16)
        if storage.ndim != 2 or storage.dtype not in allowed:
            raise TableError(
                "an embedding table is 2-D float32, float16 or bfloat16, got "
                f"{storage.dtype} {storage.shape}"
            )
        self.storage = storage
        self.dtype_name = (
            "BF16" if bfloat16 else {np.float32: "F32", np.float16: "F16"}[storage.dtype.type]
        )
        self.norms_cache: Path | None = None  # where row norms are kept between runs
        # the file map behind `storage`, when the table was mapped from a file, and where
        # in it the first row starts
        self.mapping: mmap.mmap | None = None
        self._row0_in_map = 0

    def hand_back(self) -> None:
        """Give the mapped pages a scan read back to the page cache: every row is read
        on each query, so a scanned table would otherwise stay whole in the learner's
        memory (the lesson's two tables were 7 MB of it). The next scan maps them again
        from the page cache, without reading the disk; an unmapped table has nothing to give."""
        if self._gives_back:
            self.mapping.madvise(mmap.MADV_DONTNEED)  # type: ignore[union-attr]

    @property
    def _gives_back(self) -> bool:
        return (
            self.mapping is not None
            and hasattr(self.mapping, "madvise")
            and self.storage.nbytes < HAND_BACK_MAX_BYTES
        )

    def _stored_blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """(first row, stored rows) for float32 computed where it lies: about BLOCK_BYTES
        at a time for a table that gives its pages back (`hand_back`), each block's pages
        given back once the next block is asked for, so a scan holds about one block of
        the table at a time; else the whole table at once."""
        storage = np.asarray(self.storage)
        if not self._gives_back:  # one BLAS call over the whole table is the quickest
            yield 0, storage
            return
        rows, row_bytes = self.block_rows, self.dim * storage.itemsize
        handed_back = 0  # bytes of the map, from its start, already given back
        for first in range(0, self.vocab_size, rows):
            yield first, storage[first : first + rows]
            read = self._row0_in_map + min(first + rows, self.vocab_size) * row_bytes
            whole_pages = read // mmap.PAGESIZE * mmap.PAGESIZE
            if whole_pages > handed_back:
                self.mapping.madvise(  # type: ignore[union-attr]
                    mmap.MADV_DONTNEED, handed_back, whole_pages - handed_back
                )
                handed_back = whole_pages

    @classmethod
    def from_safetensors(
        cls, path: Path, key: str | None = None, mmap: bool = True
    ) -> EmbeddingTable:
        """Map one 2-D tensor (default: the embedding) without torch, in its stored dtype."""
        entries, data_start = read_header(path)
        key = key or find_embedding_key(entries)
        if key not in entries:
            raise TableError(f"{path} has no tensor {key!r}")
        entry = entries[key]
        dtype = check_table(path, key, entry)
        begin = entry.data_offsets[0]
        raw = np.memmap(path, dtype=dtype, mode="r", offset=data_start + begin, shape=entry.shape)
        table = cls(raw if mmap else np.array(raw), bfloat16=entry.dtype == "BF16")
        if mmap and raw.nbytes >= NORMS_CACHE_MIN_BYTES:
            table.norms_cache = _norms_cache_path(path, key)
        if mmap and isinstance(raw.base, _Map):
            table.mapping = raw.base
            mapped_at = np.frombuffer(raw.base, np.uint8, count=1).__array_interface__["data"][0]
            table._row0_in_map = raw.__array_interface__["data"][0] - mapped_at
        return table

    @property
    def vocab_size(self) -> int:
        return int(self.storage.shape[0])

    @property
    def dim(self) -> int:
        return int(self.storage.shape[1])

    @property
    def parameter_count(self) -> int:
        return self.vocab_size * self.dim

    def _as_float32(self, rows: np.ndarray) -> np.ndarray:
        if self.dtype_name == "BF16":
            return bf16_to_float32(rows)
        return np.asarray(rows, dtype=np.float32)

    @property
    def weights(self) -> np.ndarray:
        """The whole table as float32: the mapped file itself for float32, a full copy
        otherwise, so only small tables' callers use it; scans go through `blocks`."""
        if self.dtype_name == "F32":
            return self.storage
        return self._as_float32(self.storage)

    def lookup(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """(T, d): row ids[t] for each t. This is all an embedding layer does."""
        picked = np.asarray(self.storage)[checked_ids(ids, self.vocab_size)]  # a copy of the rows
        return np.ascontiguousarray(self._as_float32(picked), dtype=np.float32)

    def one_hot(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """(T, V) one-hot rows for the ids."""
        return one_hot(ids, self.vocab_size)

    def one_hot_matmul(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """one_hot(ids) @ W as a real matrix product, to show that it equals `lookup`."""
        return self.one_hot(ids) @ np.asarray(self.weights)

    @property
    def block_rows(self) -> int:
        return max(1, BLOCK_BYTES // (4 * self.dim))

    def blocks(self, first: int = 0, stop: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """(first row, float32 rows) for consecutive blocks of about 1 MB, from row `first`
        (a multiple of `block_rows`) up to `stop`.

        The float32 buffer is reused: a block is valid until the next one is asked for.
        """
        rows = self.block_rows
        stop = self.vocab_size if stop is None else stop
        storage = np.asarray(self.storage)
        buffer = np.empty(
            (rows, self.dim), dtype=np.uint32 if self.dtype_name == "BF16" else np.float32
        )
        for start in range(first, stop, rows):
            part = storage[start : min(start + rows, stop)]
            out = buffer[: len(part)]
            if self.dtype_name == "BF16":
                yield start, bf16_to_float32(part, out)
            else:
                np.copyto(out, part, casting="unsafe")
                yield start, out

    def _scan(self, query: np.ndarray | None, norms: bool) -> tuple[np.ndarray, np.ndarray]:
        """One pass over the table: W @ query and/or every row's norm, block by block."""
        products = np.empty(self.vocab_size, np.float32)
        squares = np.empty(self.vocab_size, np.float32)

        def scan_span(span: tuple[int, int]) -> None:
            for start, block in self.blocks(*span):
                stop = start + len(block)
                if query is not None:
                    np.matmul(block, query, out=products[start:stop])
                if norms:
                    np.einsum("ij,ij->i", block, block, out=squares[start:stop])

        self._in_spans(scan_span)
        return products, np.sqrt(squares, out=squares) if norms else squares

    def _in_spans(self, scan_span: Callable[[tuple[int, int]], None]) -> None:
        spans = self._spans()
        if len(spans) == 1:
            scan_span(spans[0])
        else:  # numpy lets go of the GIL while it converts and multiplies
            with ThreadPoolExecutor(len(spans)) as pool:
                list(pool.map(scan_span, spans))

    def _paired_products(self, query: np.ndarray) -> np.ndarray:
        """W @ query for a bf16 table with even d, converting only half of each row.

        Read as float32, each pair of bf16 words is the odd word's value with the even
        word's bits below its mantissa: within 2**-7 of it, relatively. The even words are
        exact once shifted up. So one conversion pass instead of two, and every product is
        within BF16_PAIR_ERROR x |row| x |query| of the exact one.
        """
        products = np.empty(self.vocab_size, np.float32)
        odd, even = np.ascontiguousarray(query[1::2]), np.ascontiguousarray(query[0::2])
        storage = np.asarray(self.storage)
        rows = self.block_rows

        def scan_span(span: tuple[int, int]) -> None:
            buffer = np.empty((rows, self.dim // 2), np.uint32)
            for start in range(span[0], span[1], rows):
                pairs = storage[start : min(start + rows, span[1])].view(np.uint32)
                shifted = np.left_shift(pairs, np.uint32(16), out=buffer[: len(pairs)])
                out = products[start : start + len(pairs)]
                np.matmul(pairs.view(np.float32), odd, out=out)
                out += shifted.view(np.float32) @ even

        self._in_spans(scan_span)
        return products

    def _spans(self) -> list[tuple[int, int]]:
        """The table cut into one span of whole blocks per scanning thread; big tables are
        scanned by as many threads as there are cores (up to SCAN_THREADS)."""
        threads = min(SCAN_THREADS, os.cpu_count() or 1)
        if self.parameter_count * 4 < PARALLEL_MIN_BYTES or threads == 1:
            return [(0, self.vocab_size)]
        blocks = -(-self.vocab_size // self.block_rows)
        cuts = [self.block_rows * (blocks * n // threads) for n in range(threads)]
        return list(zip(cuts, [*cuts[1:], self.vocab_size], strict=True))

    @property
    def _in_place(self) -> bool:
        """float32 storage is computed on where it lies; anything else block by block."""
        return self.dtype_name == "F32"

    @cached_property
    @_hands_back
    def row_norms(self) -> np.ndarray:
        """(V,) Euclidean norm of every row, computed once per table (and kept in the cache
        dir for big mapped tables); einsum makes no V x d copy."""
        norms = self._read_norms()
        if norms is not None:
            return norms
        if self._in_place:
            squares = np.empty(self.vocab_size, np.float32)
            for first, rows in self._stored_blocks():
                np.einsum("ij,ij->i", rows, rows, out=squares[first : first + len(rows)])
            norms = np.sqrt(squares, out=squares)
        else:
            norms = self._scan(None, norms=True)[1]
        self._write_norms(norms)
        return norms

    def _check_query(self, query: np.ndarray) -> np.ndarray:
        query = np.asarray(query, dtype=np.float32)
        if query.shape != (self.dim,):
            raise TableError(f"query must have shape ({self.dim},), got {query.shape}")
        return query

    @_hands_back
    def dot(self, query: np.ndarray) -> np.ndarray:
        """(V,) W @ query. float32 is multiplied where it lies: in one BLAS product (block
        by block was measured slower for big tables: each call pays a thread wake-up), or
        a block of about 1 MB of rows per product for a table that gives its pages back as
        the scan goes (`_stored_blocks`); other dtypes are converted a block at a time."""
        query = self._check_query(query)
        if self._in_place:
            products = np.empty(self.vocab_size, np.float32)
            for first, rows in self._stored_blocks():
                np.matmul(rows, query, out=products[first : first + len(rows)])
            return products
        return self._scan(query, norms=False)[0]

    @_hands_back
    def cosines(self, query: np.ndarray) -> np.ndarray:
        """(V,) cosine of every row with `query`, clipped to [-1, 1]; a zero row scores 0.

        When a converted table's row norms are not known yet, they are computed in the
        same pass as the product, so even the first query reads the table once.
        """
        query = self._check_query(query)
        if self._in_place or "row_norms" in self.__dict__:
            products, norms = self.dot(query), self.row_norms
        else:
            cached = self._read_norms()
            products, scanned = self._scan(query, norms=cached is None)
            norms = scanned if cached is None else cached
            if cached is None:
                self._write_norms(norms)
            self.__dict__["row_norms"] = norms  # what the cached property would hold
        denom = norms * np.float32(np.linalg.norm(query))
        cos = np.divide(products, denom, out=np.zeros_like(denom), where=denom > 0)
        return np.clip(cos, -1.0, 1.0, out=cos)

    @_hands_back
    def top_cosines(self, query: np.ndarray, k: int, valid: np.ndarray) -> np.ndarray:
        """Cosines exact for every valid row that can be among the k highest, -inf for
        the rest: what a top-k search needs, at about half the conversion cost on a bf16
        table whose row norms are known.

        Every row whose paired estimate comes within twice the estimate's error bound of
        the k-th best estimate is rescored exactly, so no row that belongs in the top k
        (ties included) is lost.
        """
        query = self._check_query(query)
        paired = self.dtype_name == "BF16" and self.dim % 2 == 0 and not self._in_place
        if paired and "row_norms" not in self.__dict__:
            cached = self._read_norms()
            if cached is not None:
                self.__dict__["row_norms"] = cached
        if not paired or "row_norms" not in self.__dict__:
            cos = self.cosines(query)
            return np.where(valid, cos, -np.inf).astype(np.float32)
        denom = self.row_norms * np.float32(np.linalg.norm(query))
        estimate = np.divide(
            self._paired_products(query), denom, out=np.zeros_like(denom), where=denom > 0
        )
        estimate[~valid] = -np.inf
        count = min(k, int(valid.sum()))
        if count == 0:
            return estimate
        kth = np.partition(estimate, -count)[-count]
        near = np.flatnonzero(valid & (estimate >= kth - 2 * BF16_PAIR_ERROR - 1e-4))
        exact = np.full(self.vocab_size, -np.inf, np.float32)
        for start in range(0, len(near), RESCORE_ROWS):  # memory stays bounded
            rows = near[start : start + RESCORE_ROWS]
            exact[rows] = np.divide(
                self.lookup(rows) @ query,
                denom[rows],
                out=np.zeros(len(rows), np.float32),
                where=denom[rows] > 0,
            )
        np.clip(exact, -1.0, 1.0, out=exact, where=np.isfinite(exact))
        return exact

    def _read_norms(self) -> np.ndarray | None:
        if self.norms_cache is None:
            return None
        try:
            norms = np.load(self.norms_cache, allow_pickle=False)
        except (OSError, ValueError):
            return None
        return norms if norms.shape == (self.vocab_size,) and norms.dtype == np.float32 else None

    def _write_norms(self, norms: np.ndarray) -> None:
        """Keep the norms for the next run; a cache that cannot be written is only slower."""
        if self.norms_cache is None:
            return
        temporary = self.norms_cache.with_name(f".{self.norms_cache.name}.{os.getpid()}")
        try:
            self.norms_cache.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as f:
                np.save(f, norms, allow_pickle=False)
            os.replace(temporary, self.norms_cache)
        except OSError:
            temporary.unlink(missing_ok=True)


def _norms_cache_path(path: Path, key: str) -> Path:
    """`<cache dir>/row-norms/<hash>.npy`, named by the file's path, size, modification
    time and tensor, so a changed or replaced file never reuses old norms."""
    from tutor.core.paths import default_cache_dir

    stat = path.stat()
    identity = f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0{key}"
    digest = hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return default_cache_dir() / "row-norms" / f"{digest}.npy"


class RecreatedTable(EmbeddingTable):
    """A table drawn from normal(0, std) the way a config says the model was initialised:
    an honest stand-in for the "before" table of a model that did not save one, never the
    model's real initial table. Rows are drawn block by block from seeds, so any row can be
    drawn again without the whole table ever being in memory."""

    def __init__(self, vocab_size: int, dim: int, std: float, seed: int = 0) -> None:
        # A zero-stride array: the table's shape, with no memory behind it.
        shape_only = np.lib.stride_tricks.as_strided(
            np.zeros(1, np.float32), shape=(vocab_size, dim), strides=(0, 0), writeable=False
        )
        super().__init__(shape_only)
        self.std = std
        self.seed = seed

    @property
    def _in_place(self) -> bool:
        return False

    def _block(self, index: int) -> np.ndarray:
        rows = self.block_rows
        count = min(rows, self.vocab_size - index * rows)
        rng = np.random.default_rng([self.seed, index])
        block = rng.standard_normal((count, self.dim), dtype=np.float32)
        return np.multiply(block, np.float32(self.std), out=block)

    @property
    def weights(self) -> np.ndarray:
        return np.concatenate([block for _, block in self.blocks()])

    def blocks(self, first: int = 0, stop: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
        stop = self.vocab_size if stop is None else stop
        for index in range(first // self.block_rows, -(-stop // self.block_rows)):
            yield index * self.block_rows, self._block(index)

    def lookup(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        ids = checked_ids(ids, self.vocab_size)
        out = np.empty((len(ids), self.dim), np.float32)
        block_of = ids // self.block_rows
        for index in np.unique(block_of):
            where = np.flatnonzero(block_of == index)
            out[where] = self._block(int(index))[ids[where] - index * self.block_rows]
        return out
