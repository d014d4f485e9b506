"""The embedding table: one-hot x E is the lookup; safetensors read without torch."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from safetensors.numpy import save_file

from tutor.core.table import EmbeddingTable, TableError, one_hot

# Finite float32 values; subnormals are left out because BLAS kernels may flush them to
# zero, which is a property of the CPU, not of the lookup.
FLOATS = st.floats(width=32, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def table_and_ids(draw: st.DrawFn) -> tuple[np.ndarray, list[int]]:
    vocab = draw(st.integers(1, 60))
    dim = draw(st.integers(1, 12))
    weights = draw(arrays(np.float32, (vocab, dim), elements=FLOATS))
    ids = draw(st.lists(st.integers(0, vocab - 1), max_size=20))
    return weights, ids


@given(table_and_ids())
def test_one_hot_matmul_equals_lookup(case: tuple[np.ndarray, list[int]]) -> None:
    weights, ids = case
    table = EmbeddingTable(weights)
    rows = table.lookup(ids)
    assert rows.shape == (len(ids), weights.shape[1])
    assert np.array_equal(rows, weights[ids])
    assert np.array_equal(table.one_hot_matmul(ids), rows)


@given(table_and_ids())
def test_one_hot_rows(case: tuple[np.ndarray, list[int]]) -> None:
    weights, ids = case
    hot = EmbeddingTable(weights).one_hot(ids)
    assert hot.shape == (len(ids), weights.shape[0]) and hot.dtype == np.float32
    assert np.array_equal(hot.sum(axis=1), np.ones(len(ids)))
    assert [int(np.argmax(row)) for row in hot] == ids


def test_lookup_rejects_ids_outside_the_table() -> None:
    table = EmbeddingTable(np.zeros((5, 2), np.float32))
    with pytest.raises(TableError, match=r"id 5 is outside the table \(rows 0..4\)"):
        table.lookup([1, 5])
    with pytest.raises(TableError, match="id -1"):
        one_hot([-1], 5)


def test_shape_and_dtype_are_checked() -> None:
    with pytest.raises(TableError, match="2-D float32"):
        EmbeddingTable(np.zeros((3, 2), np.float64))
    with pytest.raises(TableError, match="2-D float32"):
        EmbeddingTable(np.zeros(3, np.float32))


def test_sizes() -> None:
    table = EmbeddingTable(np.zeros((7, 3), np.float32))
    assert (table.vocab_size, table.dim, table.parameter_count) == (7, 3, 21)


def test_from_safetensors_maps_float32_in_place(tmp_path: Path) -> None:
    weights = np.arange(24, dtype=np.float32).reshape(6, 4)
    path = tmp_path / "m.safetensors"
    save_file({"model.embed_tokens.weight": weights, "other": np.ones((2, 2), np.float32)}, path)
    mapped = EmbeddingTable.from_safetensors(path)
    assert isinstance(mapped.weights, np.memmap)
    assert np.array_equal(mapped.weights, weights)
    loaded = EmbeddingTable.from_safetensors(path, mmap=False)
    assert not isinstance(loaded.weights, np.memmap)
    assert np.array_equal(loaded.weights, weights)
    assert np.array_equal(
        EmbeddingTable.from_safetensors(path, key="other").weights, np.ones((2, 2))
    )


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        (["lm_head.weight", "embed_tokens.weight"], "embed_tokens.weight"),
        (["wte.weight", "wpe.weight"], "wte.weight"),
        (["transformer.wte.weight", "lm_head.weight"], "transformer.wte.weight"),
        (["encoder.word_embeddings.weight", "lm_head.weight"], "encoder.word_embeddings.weight"),
    ],
)
def test_embedding_key_conventions(tmp_path: Path, names: list[str], chosen: str) -> None:
    tensors = {name: np.full((3, 2), i, np.float32) for i, name in enumerate(names)}
    save_file(tensors, tmp_path / "m.safetensors")
    table = EmbeddingTable.from_safetensors(tmp_path / "m.safetensors")
    assert np.array_equal(table.weights, tensors[chosen])


def test_ambiguous_or_missing_embedding_is_an_error(tmp_path: Path) -> None:
    save_file(
        {
            "a.embed.weight": np.ones((2, 2), np.float32),
            "b.embed.weight": np.ones((2, 2), np.float32),
        },
        tmp_path / "two.safetensors",
    )
    with pytest.raises(TableError, match="no input embedding table"):
        EmbeddingTable.from_safetensors(tmp_path / "two.safetensors")
    with pytest.raises(TableError, match="file not found"):
        EmbeddingTable.from_safetensors(tmp_path / "none.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\x05\x00")
    with pytest.raises(TableError, match="too short to be a safetensors file: it has 2 bytes"):
        EmbeddingTable.from_safetensors(tmp_path / "junk.safetensors")


def test_half_precision_tables_become_float32(tmp_path: Path) -> None:
    weights = np.array([[1.5, -2.0], [0.25, 3.0]], np.float16)
    save_file({"embed_tokens.weight": weights}, tmp_path / "h.safetensors")
    table = EmbeddingTable.from_safetensors(tmp_path / "h.safetensors")
    assert table.weights.dtype == np.float32
    assert np.array_equal(table.weights, weights.astype(np.float32))


def test_bfloat16_tables_become_float32(tmp_path: Path) -> None:
    # numpy has no bfloat16, so write the file by hand: bf16 = top 16 bits of a float32.
    values = np.array([[1.5, -2.0, 0.15625]], np.float32)
    raw = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    header = {"embed_tokens.weight": {"dtype": "BF16", "shape": [1, 3], "data_offsets": [0, 6]}}
    head = json.dumps(header).encode()
    path = tmp_path / "bf.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + raw)
    assert np.array_equal(EmbeddingTable.from_safetensors(path).weights, values)


def test_row_norms_and_dot_read_the_mapped_table(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    weights = rng.standard_normal((50, 5), dtype=np.float32)
    save_file({"embed_tokens.weight": weights}, tmp_path / "m.safetensors")
    table = EmbeddingTable.from_safetensors(tmp_path / "m.safetensors")
    query = rng.standard_normal(5, dtype=np.float32)
    np.testing.assert_allclose(table.row_norms, np.linalg.norm(weights, axis=1), rtol=1e-6)
    assert table.row_norms is table.row_norms  # computed once per table
    scores = table.dot(query)
    assert type(scores) is np.ndarray and scores.dtype == np.float32
    np.testing.assert_allclose(scores, weights @ query, rtol=1e-5, atol=1e-6)
    with pytest.raises(TableError, match=r"query must have shape \(5,\)"):
        table.dot(np.ones(4, np.float32))


def _resident_kb(table: EmbeddingTable) -> int:
    """Resident kB of the file map behind `table` (the kernel's count, from smaps)."""
    start = np.frombuffer(table.mapping, np.uint8, count=1).__array_interface__["data"][0]
    found = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and all(c in "0123456789abcdef-" for c in head):
            low, high = (int(x, 16) for x in head.split("-"))
            found = low <= start < high
        elif found and line.startswith("Rss:"):
            return int(line.split()[1])
    raise AssertionError("the table's map is not in smaps")


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's smaps")
def test_a_scan_leaves_none_of_a_mapped_table_resident(tmp_path: Path) -> None:
    """The lesson's tables are scanned whole for every neighbour list and analogy: each
    scan gives the pages it read back to the page cache, so a scanned table does not stay
    in the learner's memory (the two lesson tables were 7 MB of it); the answers stay."""
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((3000, 96), dtype=np.float32)  # 1.1 MB, several blocks
    save_file({"embed_tokens.weight": weights}, tmp_path / "m.safetensors")
    table = EmbeddingTable.from_safetensors(tmp_path / "m.safetensors")
    query = weights[7]
    expected = weights @ query
    assert np.allclose(table.dot(query), expected, rtol=1e-5, atol=1e-4)
    assert _resident_kb(table) == 0
    norms = np.linalg.norm(weights, axis=1)
    assert np.allclose(table.cosines(query), expected / (norms * norms[7]), atol=1e-5)
    assert np.allclose(table.row_norms, norms, rtol=1e-5)
    assert _resident_kb(table) == 0
    valid = np.ones(3000, dtype=bool)
    assert np.argmax(table.top_cosines(query, 3, valid)) == 7
    assert _resident_kb(table) == 0
    assert np.array_equal(table.lookup([5, 9]), weights[[5, 9]])  # rows still read right
