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
def test_a_word_with_no_word_start_piece_says_it_splits(tmp_path: Path, kind: str) -> None:
    model = ProjectModel(write_word_start_model(tmp_path / kind, kind))
    with pytest.raises(TokenizeError) as caught:
        nearest(model, "tomcat", "after")
    assert caught.value.code == "splits"
    with pytest.raises(TokenizeError) as caught:
        nearest(model, "tomcat", "after", exact=True)
    assert caught.value.code == "no_such_piece"
    assert str(caught.value) == "'tomcat' is not an entry of the vocabulary of project"


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
    from tests.unit.hf_fixture import write_safetensors

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
