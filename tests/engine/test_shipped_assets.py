"""Acceptance checks on the shipped assets: the lesson's phenomena are really there."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer

from tutor.core import build
from tutor.core import corpus as corpus_mod
from tutor.core.facts import load_facts
from tutor.core.measure import GAPS, PAIRS, PHRASE, measure
from tutor.core.model import open_model
from tutor.core.paths import assets_dir
from tutor.core.similarity import cosine_matrix
from tutor.core.vocab import build_all

ASSETS = assets_dir()


@pytest.fixture(scope="module")
def model():
    return open_model()


@pytest.fixture(scope="module")
def corpus():
    return corpus_mod.generate()


def _tok(name: str) -> Tokenizer:
    return Tokenizer.from_file(str(ASSETS / "tokenizers" / f"{name}.json"))


def _cos(model, stage: str, a: str, b: str) -> float:
    rows = model.table(stage).lookup([model.scheme.single_id(a), model.scheme.single_id(b)])
    return float(cosine_matrix(rows)[0, 1])


@pytest.mark.parametrize("kind", sorted(GAPS))
def test_training_pulls_words_of_a_kind_together(model, kind):
    near, far = (PAIRS[name] for name in GAPS[kind])
    assert _cos(model, "after", *near) - _cos(model, "after", *far) >= 0.2


def test_lesson_words_are_single_tokens_of_the_project_tokenizer(model):
    for pair in PAIRS.values():
        for word in pair:
            assert model.scheme.encode(word)[0].piece == word
            assert len(model.scheme.encode(word)) == 1


def test_before_table_is_the_saved_random_initialisation(model):
    before, after = model.table("before"), model.table("after")
    assert before.weights.shape == after.weights.shape
    assert abs(float(before.weights.std()) - 0.02) < 0.002
    gaps = [
        _cos(model, "before", *PAIRS[n]) - _cos(model, "before", *PAIRS[f])
        for n, f in GAPS.values()
    ]
    assert max(gaps) < 0.5


def test_long_tail_and_unseen_validation_characters():
    facts = load_facts()
    assert facts["corpus.chunk_singleton_share"].value >= 30
    assert facts["corpus.valid_unseen_chars"].value > 0
    train = "".join((ASSETS / "corpus" / s / "train.txt").read_text("utf-8") for s in ("zh", "en"))
    valid = (ASSETS / "corpus" / "zh" / "valid.txt").read_text("utf-8")
    unseen = sorted({ch for ch in valid if not ch.isspace()} - set(train))
    assert unseen
    assert _tok("char").encode(unseen[0]).tokens == ["[UNK]"]
    assert "[UNK]" in _tok("word").encode(valid.splitlines()[0]).tokens or any(
        "[UNK]" in _tok("word").encode(line).tokens for line in valid.splitlines()
    )


def test_unfamiliar_language_costs_tokens():
    parallel = json.loads((ASSETS / "corpus" / "parallel.json").read_text("utf-8"))
    assert 180 <= len(parallel["zh"]) <= 230
    en, zh = _tok("byte-bpe-en"), _tok("byte-bpe-zh")
    assert len(en.encode(parallel["zh"]).ids) >= 3 * len(zh.encode(parallel["zh"]).ids)
    n_en, n_zh = len(en.encode(parallel["en"]).ids), len(zh.encode(parallel["en"]).ids)
    assert max(n_en, n_zh) <= 1.3 * min(n_en, n_zh)


def test_common_phrase_is_compact_only_in_the_chinese_tokenizer():
    n_zh = len(_tok("byte-bpe-zh").encode(PHRASE).ids)
    n_en = len(_tok("byte-bpe-en").encode(PHRASE).ids)
    assert n_zh <= 3
    assert n_en >= 3 * n_zh


def test_running_sentence_splits_into_words():
    pieces = [t.piece for t in open_model().scheme.encode("小明把苹果给了小王")]
    assert pieces == ["小明", "把", "苹果", "给了", "小王"]


def test_facts_json_is_what_the_assets_measure():
    recorded = json.loads((ASSETS / "facts.json").read_text("utf-8"))
    assert measure(ASSETS) == recorded


def test_assets_match_their_manifest_and_inputs():
    assert build.verify(ASSETS) == []


def test_corpus_and_tokenizers_rebuild_byte_for_byte(corpus, tmp_path):
    corpus_mod.write(tmp_path, corpus)
    for path in tmp_path.rglob("*.*"):
        assert path.read_bytes() == (ASSETS / "corpus" / path.relative_to(tmp_path)).read_bytes()
    for name, tokenizer in build_all(corpus).items():
        shipped = json.loads((ASSETS / "tokenizers" / f"{name}.json").read_text("utf-8"))
        assert json.loads(tokenizer.to_str()) == shipped, name
