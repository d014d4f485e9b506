"""Opening the model directories people actually have: every naming convention, shards,
half precision, tied heads, a padding tokenizer, re-created "before" tables, bad dirs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

import tutor.core.table as table_module
from tests.unit.hf_fixture import (
    CONVENTIONS,
    WORDS,
    Convention,
    as_bf16,
    byte_fallback_tokenizer_json,
    random_table,
    write_hf_model,
    write_safetensors,
)
from tutor.core.model import ModelError, ProjectModel, open_model
from tutor.core.similarity import analogy, nearest

VOCAB, DIM = 64, 8
LLAMA = next(c for c in CONVENTIONS if c.name == "llama")
BERT = next(c for c in CONVENTIONS if c.name == "bert")


def reference_cosines(table: np.ndarray, row: int) -> np.ndarray:
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit[row]


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.name)
def test_every_convention_opens(tmp_path: Path, convention: Convention) -> None:
    model = ProjectModel(write_hf_model(tmp_path / convention.name, convention))
    assert model.embedding_key == convention.table
    assert model.table_shape == (VOCAB, DIM)
    assert model.head == convention.head
    expected = random_table(VOCAB, DIM)
    assert np.array_equal(model.table().weights, expected)
    cat = model.scheme.single_id("cat")
    result = nearest(model, "cat", "after", k=3)
    scores = reference_cosines(expected, cat)
    scores[[cat, 0, 1]] = -np.inf  # itself and the specials ([PAD], [UNK]) are left out
    assert [n.id for n in result.neighbours] == list(np.argsort(-scores, kind="stable")[:3])


def test_a_convention_s_family_wins_over_other_names(tmp_path: Path) -> None:
    # An OPT file also holds a tensor that ends like BLOOM's table: the config decides.
    opt = Convention(
        "opt-with-decoy",
        "model.decoder.embed_tokens.weight",
        {"model.decoder.word_embeddings.weight": ("V", "D")},
        {"model_type": "opt"},
    )
    model = ProjectModel(write_hf_model(tmp_path / "m", opt))
    assert model.embedding_key == "model.decoder.embed_tokens.weight"


def test_sharded_checkpoint_opens_only_the_table_s_shard(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA, shards=3)
    index = json.loads((model_dir / "model.safetensors.index.json").read_text())
    table_shard = index["weight_map"][LLAMA.table]
    for shard in set(index["weight_map"].values()) - {table_shard}:
        (model_dir / shard).write_bytes(b"not read")  # the other shards are never opened
    model = ProjectModel(model_dir)
    assert np.array_equal(model.table().weights, random_table(VOCAB, DIM))
    assert model.head == "untied"  # lm_head is in a shard the index names; its bytes unread
    assert len(nearest(model, "cat", "after", k=2).neighbours) == 2
    with pytest.raises(ModelError, match="not a safetensors file"):
        model.total_parameters  # noqa: B018 - the shapes panel reads every shard's header


def test_sharded_checkpoint_counts_every_shard(tmp_path: Path) -> None:
    model = ProjectModel(write_hf_model(tmp_path / "m", LLAMA, shards=3))
    assert model.total_parameters == 2 * VOCAB * DIM + 32 * DIM
    assert model.weights_bytes == sum(f.stat().st_size for f in model.path.glob("*.safetensors"))


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_half_precision_tables_stay_half_and_convert_block_by_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dtype: str
) -> None:
    monkeypatch.setattr(table_module, "BLOCK_BYTES", 3 * DIM * 4)  # 3 rows per block
    values = random_table(VOCAB, DIM)
    model = ProjectModel(write_hf_model(tmp_path / dtype, LLAMA, dtype=dtype))
    table = model.table()
    assert model.table_dtype == dtype and table.dtype_name == dtype
    assert isinstance(table.storage, np.memmap)
    assert table.storage.dtype == (np.float16 if dtype == "F16" else np.uint16)
    assert table.block_rows == 3
    assert np.array_equal(table.weights, values)  # the values survive exactly
    assert np.array_equal(table.lookup([5, 2]), values[[5, 2]])
    query = values[7]
    np.testing.assert_allclose(table.dot(query), values @ query, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(table.cosines(query), reference_cosines(values, 7), atol=1e-5)
    np.testing.assert_allclose(table.row_norms, np.linalg.norm(values, axis=1), rtol=1e-6)


def test_bf16_keeps_the_top_half_of_each_float(tmp_path: Path) -> None:
    values = np.random.default_rng(2).standard_normal((VOCAB, DIM)).astype(np.float32)
    model = ProjectModel(write_hf_model(tmp_path / "m", LLAMA, dtype="BF16", table=values))
    assert np.array_equal(model.table().weights, as_bf16(values))


def test_a_tokenizer_that_pads_to_128_is_used_without_padding(tmp_path: Path) -> None:
    model = ProjectModel(write_hf_model(tmp_path / "m", BERT, pad_to=128))
    tokens = model.scheme.encode("cat dog")
    assert [t.piece for t in tokens] == ["cat", "dog"]
    assert model.scheme.single_id("queen") == 2 + WORDS.index("queen")
    long_text = " ".join(["cat"] * 300)
    assert len(model.scheme.encode(long_text)) == 300  # not truncated to 128 either


def test_re_created_before_table_follows_the_config(tmp_path: Path) -> None:
    model = ProjectModel(write_hf_model(tmp_path / "m", BERT, vocab=2000, dim=16))
    assert model.before_kind == "recreated" and model.has_before
    assert "re-created" in model.before_description
    assert "initializer_range" in model.before_description
    before = model.table("before")
    weights = before.weights
    assert weights.shape == (2000, 16)
    assert abs(float(weights.std()) - 0.02) < 0.001 and abs(float(weights.mean())) < 0.001
    ids = [0, 1999, 700, 5]
    assert np.array_equal(before.lookup(ids), weights[ids])  # rows can be drawn again
    np.testing.assert_allclose(before.row_norms, np.linalg.norm(weights, axis=1), rtol=1e-6)
    np.testing.assert_allclose(before.cosines(weights[9]), reference_cosines(weights, 9), atol=1e-5)
    # after training the table differs from the re-creation
    assert not np.allclose(model.table("after").lookup([9]), before.lookup([9]))


def test_no_initialisation_means_no_before(tmp_path: Path) -> None:
    opt = next(c for c in CONVENTIONS if c.name == "opt")
    model = ProjectModel(write_hf_model(tmp_path / "m", opt))
    assert model.before_kind == "none" and not model.has_before
    with pytest.raises(ModelError, match="names no initialisation"):
        model.table("before")


def test_analogy_on_an_hf_model(tmp_path: Path) -> None:
    table = random_table(VOCAB, DIM)
    ids = {w: 2 + i for i, w in enumerate(WORDS)}
    table[ids["queen"]] = table[ids["king"]] - table[ids["man"]] + table[ids["woman"]]
    model = ProjectModel(write_hf_model(tmp_path / "m", LLAMA, table=table))
    found = analogy(model, "king", "man", "woman", k=3)
    assert found[0].piece == "queen" and found[0].score == pytest.approx(1.0, abs=1e-5)
    assert {"king", "man", "woman"}.isdisjoint(n.piece for n in found)


def many_tensors_dir(tmp_path: Path, count: int = 120) -> Path:
    model_dir = tmp_path / "unknown"
    write_hf_model(model_dir, LLAMA)
    tensors = {f"blocks.{i}.mixer.weight": np.ones((i + 2, 4), np.float32) for i in range(count)}
    save_file(tensors, model_dir / "model.safetensors")
    return model_dir


def test_no_table_is_one_line_naming_at_most_five(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        ProjectModel(many_tensors_dir(tmp_path))
    message = str(caught.value)
    assert "\n" not in message and "no input embedding table" in message
    assert "llama models use" in message and "embed_tokens.weight" in message
    named = [n for n in (f"blocks.{i}.mixer.weight" for i in range(120)) if n + " " in message]
    assert named == [f"blocks.{i}.mixer.weight" for i in range(115, 120)]  # the most rows
    assert "and 115 more" in message


def test_two_tables_are_ambiguous(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA)
    two = {"a.embed_tokens.weight": np.ones((VOCAB, 4), np.float32)}
    two["b.embed_tokens.weight"] = two["a.embed_tokens.weight"]
    save_file(two, model_dir / "model.safetensors")
    with pytest.raises(ModelError, match="more than one tensor could be the input table"):
        ProjectModel(model_dir)


def test_truncated_weights_are_one_line(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA)
    weights = model_dir / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])
    with pytest.raises(ModelError, match=r"is truncated: .* \(was the download interrupted\?\)"):
        ProjectModel(model_dir)
    weights.write_bytes(weights.read_bytes()[:20])
    with pytest.raises(ModelError, match="is truncated: its header needs"):
        ProjectModel(model_dir)
    weights.write_bytes(weights.read_bytes()[:5])
    with pytest.raises(ModelError) as caught:
        ProjectModel(model_dir)
    assert str(caught.value) == (
        f"{weights} is too short to be a safetensors file: it has 5 bytes, "
        "fewer than the 8 that give its header's length (was the download interrupted?)"
    )
    weights.write_bytes(b"")
    with pytest.raises(ModelError) as caught:
        ProjectModel(model_dir)
    assert str(caught.value) == f"{weights} is empty (was the download interrupted?)"


def test_a_file_given_as_the_model_directory_is_named(tmp_path: Path) -> None:
    weights = write_hf_model(tmp_path / "m", LLAMA) / "model.safetensors"
    with pytest.raises(ModelError) as caught:
        ProjectModel(weights)
    assert str(caught.value) == (
        f"{weights} is a file, not a model directory: give the folder that holds it"
    )


def test_unsupported_dtype_is_named(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA)
    write_safetensors(model_dir / "model.safetensors", {LLAMA.table: random_table(VOCAB, DIM)})
    raw = (model_dir / "model.safetensors").read_bytes().replace(b'"F32"', b'"I8" ')
    (model_dir / "model.safetensors").write_bytes(raw)
    with pytest.raises(ModelError, match="has dtype I8; the tutor reads F32, F16 and BF16"):
        ProjectModel(model_dir)  # refused on opening, before any table is mapped


def test_a_table_whose_bytes_do_not_fit_its_shape_is_refused_on_opening(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA)
    weights = model_dir / "model.safetensors"
    header = json.dumps(
        {LLAMA.table: {"dtype": "F32", "shape": [VOCAB, DIM], "data_offsets": [0, 100]}}
    )
    weights.write_bytes(len(header).to_bytes(8, "little") + header.encode() + bytes(4096))
    with pytest.raises(ModelError) as caught:
        ProjectModel(model_dir)
    assert str(caught.value) == (
        f"{LLAMA.table!r} in {weights}: its 100 bytes do not hold shape [{VOCAB}, {DIM}] "
        f"in F32 ({VOCAB * DIM * 4:,} bytes)"
    )


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *argv], capture_output=True, text=True, timeout=None
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("truncate", "is truncated"),
        ("corrupt", "is not a safetensors file"),
        ("unknown", "no input embedding table"),
        ("missing", "model directory not found"),
        ("dtype", "has dtype I8; the tutor reads F32, F16 and BF16"),
    ],
)
def test_bad_directories_are_one_line_in_the_cli(tmp_path: Path, damage: str, message: str) -> None:
    if damage == "unknown":
        model_dir = many_tensors_dir(tmp_path)
    else:
        model_dir = write_hf_model(tmp_path / "m", LLAMA)
        weights = model_dir / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:-10])
        if damage == "corrupt":
            weights.write_bytes(np.random.default_rng(0).bytes(4096))
        if damage == "missing":
            model_dir = tmp_path / "nowhere"
        if damage == "dtype":  # a sound file whose table the tutor cannot read
            write_hf_model(model_dir, LLAMA)
            weights.write_bytes(weights.read_bytes().replace(b'"F32"', b'"I8" '))
    for argv in (["neighbours", "cat"], ["similarity", "cat", "dog"], [], ["explore"]):
        done = cli("--lang", "en", "--model", str(model_dir), *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tutor: error: "), done.stderr
        assert message in lines[0] and "Traceback" not in done.stderr


def test_open_model_is_cached_per_directory(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", LLAMA)
    assert open_model(model_dir) is open_model(model_dir / ".." / "m")


def test_scans_split_across_threads_give_the_same_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "BLOCK_BYTES", 5 * DIM * 4)  # 5 rows per block
    monkeypatch.setattr(table_module, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(table_module.os, "cpu_count", lambda: 2)
    values = random_table(VOCAB, DIM)
    table = ProjectModel(write_hf_model(tmp_path / "m", LLAMA, dtype="BF16")).table()
    assert table._spans() == [(0, 30), (30, VOCAB)]  # whole blocks: 13 blocks cut 6 + 7
    np.testing.assert_allclose(table.cosines(values[3]), reference_cosines(values, 3), atol=1e-5)
    np.testing.assert_allclose(table.row_norms, np.linalg.norm(values, axis=1), rtol=1e-6)


def test_top_k_from_bf16_pairs_equals_the_exact_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "RESCORE_ROWS", 7)  # rescoring in several rounds
    rng = np.random.default_rng(5)
    vocab, dim = 3000, 16
    values = as_bf16(rng.standard_normal((vocab, dim)).astype(np.float32))
    values[100:110] = values[7]  # a tie of ten rows with token 7's row
    values[200] = as_bf16(values[7] * 1.001 + 0.002)  # nearly a tie
    model = ProjectModel(
        write_hf_model(tmp_path / "m", LLAMA, vocab=vocab, dim=dim, dtype="BF16", table=values)
    )
    table = model.table()
    query = values[7]
    exact = reference_cosines(values, 7).astype(np.float32)
    valid = np.ones(vocab, dtype=bool)
    valid[[0, 1, 7]] = False
    assert "row_norms" not in table.__dict__
    first = table.top_cosines(query, 5, valid)  # norms unknown: the exact pass, everywhere
    np.testing.assert_allclose(first[valid], exact[valid], atol=1e-5)
    paired = table.top_cosines(query, 5, valid)  # norms known: pairs, then exact rescoring
    kept = np.isfinite(paired)
    assert kept.sum() < vocab // 10  # most rows were ruled out by the estimate
    np.testing.assert_allclose(paired[kept], exact[kept], atol=1e-5)
    kth = np.sort(exact[valid])[-5]
    assert kept[valid & (exact >= kth - 1e-4)].all()  # nothing that belongs was lost
    for word in ("banana", "cat", "dog"):
        by_pairs = nearest(model, word, "after", k=12)
        table.__dict__.pop("row_norms")  # the next search takes the exact pass
        by_exact = nearest(model, word, "after", k=12)
        assert [(n.id, n.rank) for n in by_pairs.neighbours] == [
            (n.id, n.rank) for n in by_exact.neighbours
        ]
        assert by_pairs.tie_count == by_exact.tie_count


def test_torch_only_weights_are_named(tmp_path: Path) -> None:
    model_dir = write_hf_model(tmp_path / "m", BERT)
    (model_dir / "model.safetensors").unlink()
    (model_dir / "pytorch_model.bin").write_bytes(b"pickle")
    with pytest.raises(ModelError) as caught:
        ProjectModel(model_dir)
    assert str(caught.value) == (
        f"{model_dir} has no model.safetensors (nor model.safetensors.index.json); its "
        "pytorch_model.bin needs torch to read: save the model as safetensors"
    )


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.name)
def test_every_convention_answers_every_command(
    tmp_path: Path, convention: Convention, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    def answer(*argv: str) -> dict:
        assert main([*model, *argv, "--json"]) == 0, argv
        out, err = capsys.readouterr()
        assert err == ""
        return json.loads(out)

    model = ["--model", str(write_hf_model(tmp_path / convention.name, convention))]
    table = random_table(VOCAB, DIM)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    ids = {w: 2 + i for i, w in enumerate(WORDS)}  # after [PAD] and [UNK]

    def top(query: np.ndarray, left_out: list[int], k: int = 5) -> list[int]:
        scores = unit @ (query / np.linalg.norm(query))
        scores[[0, 1, *left_out]] = -np.inf
        return list(np.argsort(-scores, kind="stable")[:k])

    tokens = answer("tokenize", "cat dog", "--scheme", "project")["tokens"]
    assert [(t["piece"], t["id"]) for t in tokens] == [("cat", ids["cat"]), ("dog", ids["dog"])]
    found = answer("neighbours", "cat")["neighbours"]
    assert [n["id"] for n in found] == top(table[ids["cat"]], [ids["cat"]])
    found = answer("neighbours", "cat", "--scheme", "id")["neighbours"]
    scores = [n["score"] for n in found]
    assert scores == [abs(n["id"] - ids["cat"]) for n in found] == sorted(scores)
    assert scores[0] == 1 and ids["cat"] not in [n["id"] for n in found]
    matrix = answer("similarity", "cat", "dog")["matrix"]
    assert matrix[0][1] == pytest.approx(float(unit[ids["cat"]] @ unit[ids["dog"]]), abs=1e-5)
    found = answer("analogy", "king", "man", "woman")["neighbours"]
    query = table[ids["king"]] - table[ids["man"]] + table[ids["woman"]]
    left_out = [ids["king"], ids["man"], ids["woman"]]
    assert [n["id"] for n in found] == top(query, left_out)


def test_row_norms_are_kept_in_the_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "NORMS_CACHE_MIN_BYTES", 0)
    monkeypatch.setenv("TUTOR_CACHE_DIR", str(tmp_path / "cache"))
    values = random_table(VOCAB, DIM)
    model_dir = write_hf_model(tmp_path / "m", LLAMA, dtype="BF16")
    table = ProjectModel(model_dir).table()
    assert table.norms_cache is not None
    assert table.norms_cache.parent == tmp_path / "cache" / "row-norms"
    assert not table.norms_cache.exists()
    table.cosines(values[3])  # the first query computes the norms in its pass, and keeps them
    kept = np.load(table.norms_cache)
    np.testing.assert_allclose(kept, np.linalg.norm(values, axis=1), rtol=1e-6)
    reopened = ProjectModel(model_dir).table()
    assert reopened.norms_cache == table.norms_cache
    np.save(reopened.norms_cache, np.full(VOCAB, 2.0, np.float32))  # planted: is it read?
    assert np.array_equal(reopened.row_norms, np.full(VOCAB, 2.0, np.float32))
    write_hf_model(model_dir, LLAMA, dtype="BF16", table=values * 2)  # a new file: new name
    assert ProjectModel(model_dir).table().norms_cache != table.norms_cache


def test_each_token_s_bytes_are_the_bytes_it_stands_for(tmp_path: Path) -> None:
    # Llama 2's byte pieces stand for one byte each, not for the six characters "<0xE9>";
    # "▁cat" stands for " cat"; an unknown word for the text it replaced.
    llama2 = write_hf_model(tmp_path / "llama2", LLAMA, vocab=272)
    (llama2 / "tokenizer.json").write_text(byte_fallback_tokenizer_json(), encoding="utf-8")
    scheme = ProjectModel(llama2).scheme
    text = "the cat 龙"
    tokens = scheme.encode(text)
    assert [t.piece for t in tokens] == ["▁the", "▁cat", "▁", "<0xE9>", "<0xBE>", "<0x99>"]
    assert [scheme.token_bytes(t, text) for t in tokens] == [
        b" the",  # "▁the": the normaliser's "▁" is a space of the token's own
        b" cat",
        b" ",
        b"\xe9",
        b"\xbe",
        b"\x99",
    ]
    bert = ProjectModel(write_hf_model(tmp_path / "bert", BERT)).scheme
    tokens = bert.encode("cat 龙")
    assert [t.piece for t in tokens] == ["cat", "[UNK]"]
    assert [bert.token_bytes(t, "cat 龙") for t in tokens] == [b"cat", "龙".encode()]


def break_index(model_dir: Path, damage: str) -> str:
    """Damage a sharded checkpoint (or empty the dir); the one line each damage must give."""
    index = model_dir / "model.safetensors.index.json"
    weight_map = json.loads(index.read_text())["weight_map"]
    table_shard = model_dir / weight_map[LLAMA.table]
    if damage == "not-json":
        index.write_text("{not json", encoding="utf-8")
        return f"{index}: not a valid weights index: Invalid JSON: key must be a string"
    if damage == "no-map":
        index.write_text('{"weight_map": [1, 2]}', encoding="utf-8")
        return f"{index}: not a valid weights index: weight_map: Input should be an object"
    if damage == "shard-missing":
        table_shard.unlink()
        return f"file not found: {table_shard}"
    if damage == "wrong-shard":
        other = next(s for s in set(weight_map.values()) if s != table_shard.name)
        weight_map[LLAMA.table] = other
        index.write_text(json.dumps({"weight_map": weight_map}), encoding="utf-8")
        return (
            f"{model_dir / other} has no tensor {LLAMA.table!r}, "
            "though model.safetensors.index.json says it has"
        )
    for part in model_dir.iterdir():
        part.unlink()
    return f"{model_dir} has no tokenizer.json"


@pytest.mark.parametrize("damage", ["not-json", "no-map", "shard-missing", "wrong-shard", "empty"])
def test_a_broken_index_or_an_empty_dir_is_one_line(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    model_dir = write_hf_model(tmp_path / "m", LLAMA, shards=3)
    expected = break_index(model_dir, damage)
    with pytest.raises(ModelError) as caught:
        ProjectModel(model_dir)
    assert str(caught.value).startswith(expected), str(caught.value)
    for argv in (["analogy", "king", "man", "woman", "--json"], []):  # [] would open the app
        assert main(["--lang", "en", "--model", str(model_dir), *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"tutor: error: {caught.value}\n"


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_a_half_precision_search_never_holds_the_table_as_float32(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dtype: str
) -> None:
    import tracemalloc

    vocab, dim = 4096, 128  # 2 MB as stored, 2 MB more once converted: the bound is 1/4 of that
    monkeypatch.setattr(table_module, "BLOCK_BYTES", 64 * dim * 4)
    values = random_table(vocab, dim)
    model = ProjectModel(
        write_hf_model(tmp_path / "m", LLAMA, vocab=vocab, dim=dim, dtype=dtype, table=values)
    )
    peaks = []
    for word in ("cat", "dog"):  # the first query also computes the norms; the second uses them
        tracemalloc.start()
        found = nearest(model, word, "after", k=5)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        row = model.scheme.single_id(word)
        scores = reference_cosines(values, row)
        scores[[row, 0, 1]] = -np.inf
        assert [n.id for n in found.neighbours] == list(np.argsort(-scores, kind="stable")[:5])
    assert max(peaks) < vocab * dim * 4 // 4, peaks
