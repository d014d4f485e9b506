"""Real model directories as people have them: SentencePiece and GPT-2 vocabularies whose
words have a word-start piece ("▁cat", "Ġcat") beside a mid-word one ("cat"), placeholder
rows ([unusedN]) and specials, checked against numpy on the same table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from tests.unit.hf_fixture import (
    PLACEHOLDERS,
    random_table,
    word_start_tokenizer_json,
    write_safetensors,
    write_static_model,
    write_word_start_model,
)
from tutor.core.model import ProjectModel
from tutor.core.similarity import analogy, nearest, similarity
from tutor.core.tokenize import TokenizeError

KINDS = ("metaspace", "byte")
MARK = {"metaspace": "▁", "byte": "Ġ"}


def vocab_of(kind: str) -> dict[str, int]:
    return Tokenizer.from_str(word_start_tokenizer_json(kind)).get_vocab(with_added_tokens=True)


def reference(table: np.ndarray, query: np.ndarray, left_out: list[int], k: int) -> list[int]:
    """The k rows nearest `query` by cosine, computed by numpy alone."""
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    scores = unit @ (query / np.linalg.norm(query))
    scores[left_out] = -np.inf
    return list(np.argsort(-scores, kind="stable")[:k])


def reserved(vocab: dict[str, int]) -> list[int]:
    """Specials and placeholders: every entry of the fixture that is not made of letters."""
    return [i for piece, i in vocab.items() if piece.startswith(("<", "[")) and len(piece) > 1]


@pytest.mark.parametrize("kind", KINDS)
def test_a_typed_word_means_its_word_start_piece(tmp_path: Path, kind: str) -> None:
    model = ProjectModel(write_word_start_model(tmp_path / kind, kind))
    vocab = vocab_of(kind)
    word_start, mid_word = vocab[MARK[kind] + "cat"], vocab["cat"]
    assert word_start != mid_word
    assert nearest(model, "cat", "after").id == word_start
    assert nearest(model, "cat", "after", exact=True).id == mid_word
    tokens = model.scheme.encode("cat" if kind == "metaspace" else " cat")
    assert [t.id for t in tokens] == [word_start]  # what tokenize and explore show
    names, _ = similarity(model, ["cat", "dog"])
    assert names == ["cat", "dog"]
    table = random_table(len(vocab), 8, seed=3)
    ids = [vocab[MARK[kind] + w] for w in ("king", "man", "woman")]
    query = table[ids[0]] - table[ids[1]] + table[ids[2]]
    found = analogy(model, "king", "man", "woman", k=4)
    assert [n.id for n in found] == reference(table, query, ids + reserved(vocab), 4)
    mid = [vocab[w] for w in ("king", "man", "woman")]
    exact = analogy(model, "king", "man", "woman", k=4, exact=True)
    assert [n.id for n in exact] != [n.id for n in found]
    query = table[mid[0]] - table[mid[1]] + table[mid[2]]
    assert [n.id for n in exact] == reference(table, query, mid + reserved(vocab), 4)


@pytest.mark.parametrize("kind", KINDS)
def test_explore_answers_word_start_models_like_numpy(tmp_path: Path, kind: str) -> None:
    from tutor.tui.screens.explore import K, analogy_view, neighbour_view, token_view

    model = ProjectModel(write_word_start_model(tmp_path / kind, kind))
    vocab = vocab_of(kind)
    table = random_table(len(vocab), 8, seed=3)
    view = token_view(model, "cat dog")
    cat, dog = vocab[MARK[kind] + "cat"], vocab[MARK[kind] + "dog"]
    assert [t.id for t in view.tokens] == (
        [cat, dog] if kind == "metaspace" else [vocab["cat"], dog]
    )
    picked = neighbour_view(model, view.tokens[-1].piece)  # the picker's exact piece
    assert picked.by_cosine.id == dog
    expected = reference(table, table[dog], [dog, *reserved(vocab)], K)
    assert [n.id for n in picked.by_cosine.neighbours] == expected
    assert [n.id for n in picked.by_id.neighbours][:2] == [dog - 1, dog + 1]
    ids = [vocab[MARK[kind] + w] for w in ("king", "man", "woman")]
    query = table[ids[0]] - table[ids[1]] + table[ids[2]]
    found = analogy_view(model, "king man woman")
    assert found is not None
    assert [n.id for n in found] == reference(table, query, ids + reserved(vocab), K)


@pytest.mark.parametrize("kind", KINDS)
def test_a_word_with_no_word_start_piece_says_it_splits(tmp_path: Path, kind: str) -> None:
    model = ProjectModel(write_word_start_model(tmp_path / kind, kind))
    with pytest.raises(TokenizeError) as caught:
        nearest(model, "tomcat", "after")
    assert caught.value.code == "splits"
    with pytest.raises(TokenizeError) as caught:
        nearest(model, "tomcat", "after", exact=True)
    assert caught.value.code == "no_such_piece"
    assert str(caught.value) == f"'tomcat' is not an entry of the vocabulary of {kind}"


@pytest.mark.parametrize("kind", KINDS)
def test_the_command_line_s_piece_option_asks_for_the_exact_entry(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    model = ["--model", str(write_word_start_model(tmp_path / kind, kind))]
    vocab = vocab_of(kind)

    def answer(*argv: str) -> dict:
        assert main([*model, *argv, "--json"]) == 0, argv
        return json.loads(capsys.readouterr().out)

    assert answer("neighbours", "cat")["id"] == vocab[MARK[kind] + "cat"]
    assert answer("neighbours", "cat", "--piece")["id"] == vocab["cat"]
    typed = MARK[kind] + "cat" if kind == "metaspace" else " cat"
    assert answer("neighbours", typed, "--piece")["id"] == vocab[MARK[kind] + "cat"]
    words = answer("analogy", "king", "man", "woman")["neighbours"]
    pieces = answer("analogy", "king", "man", "woman", "--piece")["neighbours"]
    assert words != pieces


@pytest.mark.parametrize("kind", KINDS)
def test_specials_and_placeholders_stay_out_of_cosine_lists(tmp_path: Path, kind: str) -> None:
    # The placeholders' rows are made the nearest to <pad>'s and to cat's: they must not show.
    vocab = vocab_of(kind)
    model_dir = write_word_start_model(tmp_path / kind, kind)
    table = random_table(len(vocab), 8, seed=3)
    for name in PLACEHOLDERS:
        table[vocab[name]] = table[vocab["<pad>"]] + 0.01 * table[vocab[MARK[kind] + "cat"]]
    table[vocab[MARK[kind] + "cat"]] = table[vocab["<pad>"]]
    write_safetensors(model_dir / "model.safetensors", {"model.embed_tokens.weight": table})
    model = ProjectModel(model_dir)
    assert {vocab[p] for p in PLACEHOLDERS} | {vocab["<pad>"]} <= model.scheme.reserved_ids
    cat = vocab[MARK[kind] + "cat"]
    found = nearest(model, "cat", "after", k=6)
    assert [n.id for n in found.neighbours] == reference(
        table, table[cat], [cat, *reserved(vocab)], 6
    )
    pad = nearest(model, "<pad>", "after", k=3)  # a special's own neighbours: real words
    assert pad.id == vocab["<pad>"]
    assert not {n.id for n in pad.neighbours} & set(reserved(vocab))


def assert_nearest_like_numpy(
    found: list, vectors: np.ndarray, query: np.ndarray, left_out: list[int]
) -> None:
    """The neighbours' scores are numpy's top scores, each the cosine numpy gives its id
    (ids sharing a row tie; numpy and the tutor may round their order differently)."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores = unit @ (query / np.linalg.norm(query))
    scores[left_out] = -np.inf
    top = np.sort(scores)[::-1][: len(found)]
    np.testing.assert_allclose([n.score for n in found], top, atol=1e-5)
    np.testing.assert_allclose([n.score for n in found], scores[[n.id for n in found]], atol=1e-5)


@pytest.mark.parametrize(
    ("scale", "mapping", "weights", "dtype"),
    [
        ("row", True, True, "I8"),
        ("table", True, False, "I8"),
        ("none", True, False, "I8"),
        ("none", False, False, "F16"),
        ("row", False, True, "I8"),
    ],
)
def test_a_static_model_opens_and_answers_like_numpy(
    tmp_path: Path, scale: str, mapping: bool, weights: bool, dtype: str
) -> None:
    from tutor.core.model import table_shape
    from tutor.tui.screens.explore import K, analogy_view, neighbour_view, token_view

    parts = write_static_model(
        tmp_path / "m", scale=scale, mapping=mapping, weights=weights, dtype=dtype
    )
    model = ProjectModel(parts.path)
    vocab = vocab_of("metaspace")
    vectors = parts.vectors
    assert model.table_shape == vectors.shape
    assert model.head == "static"
    np.testing.assert_allclose(model.table().lookup(range(len(vocab))), vectors, rtol=1e-6)
    cat = vocab["▁cat"]
    found = nearest(model, "cat", "after", k=K)
    assert found.id == cat
    assert_nearest_like_numpy(found.neighbours, vectors, vectors[cat], [cat, *reserved(vocab)])
    ids = [vocab["▁" + w] for w in ("king", "man", "woman")]
    query = vectors[ids[0]] - vectors[ids[1]] + vectors[ids[2]]
    found_analogy = analogy(model, "king", "man", "woman", k=K)
    assert_nearest_like_numpy(found_analogy, vectors, query, ids + reserved(vocab))
    # explore asks the same core: its tokens, neighbours and analogy
    view = token_view(model, "cat dog")
    assert [t.id for t in view.tokens] == [cat, vocab["▁dog"]]
    picked = neighbour_view(model, view.tokens[0].piece)
    assert picked.by_cosine.neighbours == found.neighbours
    assert analogy_view(model, "king man woman") == found_analogy
    shape = table_shape(model)
    stored_rows = 12 if mapping else len(vocab)
    assert (shape.vocab, shape.dim, shape.dtype) == (len(vocab), 8, dtype)
    assert shape.table_parameters == stored_rows * 8


def damage_static(parts_path: Path, damage: str) -> str:
    """Rewrite a static model's file with one part wrong; the start of the line it must give."""
    from safetensors.numpy import load_file, save_file

    weights = parts_path / "model.safetensors"
    tensors = load_file(str(weights))
    if damage == "mapping-range":
        tensors["mapping"][7] = 12
        expected = f"'mapping' in {weights} sends token ID 7 to row 12; the table has rows 0..11"
    elif damage == "scale-shape":
        tensors["scales"] = np.ones(5, np.float32)
        expected = f"'scales' in {weights} is F32 [5]; it must hold one float for the table or"
    elif damage == "weights-count":
        tensors["weights"] = np.ones(3, np.float32)
        expected = f"'weights' in {weights} has 3 factors for"
    elif damage == "mapping-dtype":
        tensors["mapping"] = tensors["mapping"].astype(np.float32)
        expected = f"'mapping' in {weights} is F32 ["
    else:  # a 4-bit table is not read
        tensors["embeddings"] = tensors["embeddings"].astype(np.uint8)
        expected = f"'embeddings' in {weights} has dtype U8; the tutor reads"
    save_file(tensors, str(weights))
    return expected


@pytest.mark.parametrize(
    "damage", ["mapping-range", "scale-shape", "weights-count", "mapping-dtype", "dtype"]
)
def test_a_static_model_it_cannot_read_is_one_line_before_its_tokenizer(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main
    from tutor.core.model import ModelError

    parts = write_static_model(tmp_path / "m", scale="row")
    expected = damage_static(parts.path, damage)
    # a tokenizer that would take seconds to load: here, one that cannot be loaded at all
    (parts.path / "tokenizer.json").write_text("{not a tokenizer", encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ProjectModel(parts.path)
    assert str(caught.value).startswith(expected), str(caught.value)
    assert main(["--lang", "en", "--model", str(parts.path), "neighbours", "cat"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"tutor: error: {caught.value}\n"
    assert main(["--model", str(parts.path), "neighbours", "cat"]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "model.safetensors" in said and " in " not in said


def test_a_static_table_too_big_to_hold_says_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tutor.core import static
    from tutor.core.model import ModelError

    parts = write_static_model(tmp_path / "m")
    monkeypatch.setattr(static, "MAX_ROWS_BYTES", 12 * 8 * 4 - 1)  # one byte short of 12 x 8
    with pytest.raises(ModelError) as caught:
        ProjectModel(parts.path)
    assert caught.value.code == "static_too_big"
    assert "has 12 x 8 numbers: 0 MB as float32, more than the 0 MB" in str(caught.value)
    monkeypatch.setattr(static, "MAX_ROWS_BYTES", 12 * 8 * 4)  # exactly at the limit: opens
    assert ProjectModel(parts.path).table_shape[1] == 8
    plain = write_static_model(
        tmp_path / "plain", scale="none", mapping=False, weights=False, dtype="F32"
    )
    monkeypatch.setattr(static, "MAX_ROWS_BYTES", 0)  # a float table alone is mapped, not held
    assert ProjectModel(plain.path).table().storage.base is not None


def test_explore_s_bytes_are_each_token_s_own(tmp_path: Path) -> None:
    # Llama 2 writes 猫和狗 as "▁" then byte pieces: the "▁" the normaliser put before 猫
    # is a space, not 猫's bytes a second time.
    from tests.unit.hf_fixture import CONVENTIONS, byte_fallback_tokenizer_json, write_hf_model
    from tutor.tui.screens.explore import token_view

    llama = next(c for c in CONVENTIONS if c.name == "llama")
    model_dir = write_hf_model(tmp_path / "llama2", llama, vocab=272)
    (model_dir / "tokenizer.json").write_text(byte_fallback_tokenizer_json(), encoding="utf-8")
    view = token_view(ProjectModel(model_dir), "猫和狗")
    assert [t.piece for t in view.tokens][:4] == ["▁", "<0xE7>", "<0x8C>", "<0xAB>"]
    assert view.bytes_of[:4] == ["20", "E7", "8C", "AB"]
    assert "".join(view.bytes_of[1:]).replace(" ", "") == "猫和狗".encode().hex().upper()


def test_a_model_is_named_by_its_config_or_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    folder = write_word_start_model(tmp_path / "my-llama", "metaspace")
    assert main(["--lang", "en", "--model", str(folder), "tokenize", "cat"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "my-llama: 1 token"
    assert main(["--lang", "en", "--model", str(folder), "tokenize", "cat dog"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "my-llama: 2 tokens"
    assert main(["--lang", "en", "--model", str(folder), "neighbours", "tomcat"]) == 2
    assert "is not one token in my-llama: it splits" in capsys.readouterr().err
    named = write_word_start_model(
        tmp_path / "snapshot",
        "metaspace",
        config={"_name_or_path": "acme/tiny-llama", "model_type": "llama"},
    )
    assert main(["--lang", "en", "--model", str(named), "tokenize", "cat"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "acme/tiny-llama: 1 token"


def test_a_config_that_disagrees_with_the_weights_is_a_warning_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main
    from tutor.core.model import table_shape

    vocab = len(vocab_of("byte"))
    config = {"model_type": "llama", "hidden_size": 16, "vocab_size": 50_000}
    folder = write_word_start_model(tmp_path / "m", "byte", config=config)
    assert main(["--lang", "en", "--model", str(folder), "neighbours", "cat", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["id"] == vocab_of("byte")["Ġcat"]  # the weights are used
    assert err.splitlines() == [
        "tutor: warning: config.json says hidden_size = 16 but the table in the weights "
        "has 8; the tutor uses the weights",
        "tutor: warning: config.json says vocab_size = 50,000 but the table in the weights "
        f"has {vocab:,}; the tutor uses the weights",
    ]
    assert len(table_shape(ProjectModel(folder)).disagreements) == 2
    agreeing = write_word_start_model(tmp_path / "ok", "byte")
    assert main(["--model", str(agreeing), "neighbours", "cat"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", ["truncated", "no-tokenizer"])
def test_every_command_refuses_a_broken_directory_the_same_way(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    folder = write_word_start_model(tmp_path / "m", "metaspace")
    if damage == "truncated":
        weights = folder / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:-100])
    else:
        (folder / "tokenizer.json").unlink()
    said = set()
    for argv in (
        ["tokenize", "cat"],
        ["neighbours", "cat"],
        ["similarity", "cat", "dog"],
        ["analogy", "king", "man", "woman"],
    ):
        for lang in ("en", "zh"):
            assert main(["--lang", lang, "--model", str(folder), *argv]) == 2, argv
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1
            said.add(err)
    assert len(said) == 2  # one line per language, whichever command


def test_specials_and_placeholders_are_marked_in_id_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    folder = write_word_start_model(tmp_path / "m", "metaspace")
    vocab = vocab_of("metaspace")
    by_id = nearest(ProjectModel(folder), "[unused1]", "id", k=6).neighbours
    assert [n.id for n in by_id][:2] == [vocab["[unused1]"] - 1, vocab["[unused1]"] + 1]
    assert [n.reserved for n in by_id] == [n.id in reserved(vocab) for n in by_id]
    assert any(n.reserved for n in by_id) and not all(n.reserved for n in by_id)
    argv = ["--lang", "en", "--model", str(folder), "neighbours", "[unused1]", "--scheme", "id"]
    assert main(argv) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    marked = [row.endswith("(special)") for row in rows]
    assert marked == [n.reserved for n in by_id[: len(rows)]]
