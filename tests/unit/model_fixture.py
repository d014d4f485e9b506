"""Small real model directories for the core's tests, independent of the shipped assets.

A byte-level BPE is trained with `tokenizers` on generated sentences (so 猫, 狗, 汽车 ...
become single tokens, as in the shipped byte-bpe-zh), and random tables are written with
the spec's tensor names. Tests check API behaviour here; the shipped assets have their own
acceptance tests.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

SPECIAL = "<|endoftext|>"
UNK = "[UNK]"
WORDS_ZH = ("猫", "狗", "汽车", "苹果", "香蕉", "小明", "小王", "喜欢", "机器", "学习", "吃", "开")
WORDS_EN = ("cat", "dog", "car", "apple", "banana", "likes", "eats", "drives", "the")
BPE_VOCAB = 400


def corpus_lines(n: int = 400, seed: int = 0) -> list[str]:
    """Deterministic sentences mixing the lesson's Chinese words with a little English."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        words = WORDS_EN if i % 4 == 0 else WORDS_ZH
        sep = " " if words is WORDS_EN else ""
        lines.append(sep.join(rng.choice(words) for _ in range(rng.randint(3, 9))) + "。")
    return lines


@cache
def byte_bpe_json(vocab_size: int = BPE_VOCAB) -> str:
    """tokenizer.json text of a byte-level BPE like the shipped ones (no prefix space)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus_lines(), trainer)
    return tok.to_str()


def char_json() -> str:
    """tokenizer.json text of a character-level WordLevel scheme with [UNK]."""
    chars = sorted({ch for line in corpus_lines() for ch in line})
    vocab = {UNK: 0, **{ch: i + 1 for i, ch in enumerate(chars)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.add_special_tokens([UNK])
    return tok.to_str()


def write_tokenizer(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def build_model_dir(
    path: Path,
    *,
    dim: int = 8,
    seed: int = 0,
    with_before: bool = True,
    after: np.ndarray | None = None,
    embed_key: str = "model.embed_tokens.weight",
) -> Path:
    """A model directory in the shipped format: tokenizer.json, model.safetensors (embedding,
    lm_head, one context tensor), embeddings_before.safetensors, config.json."""
    path.mkdir(parents=True, exist_ok=True)
    tokenizer_text = byte_bpe_json()
    write_tokenizer(path / "tokenizer.json", tokenizer_text)
    vocab = Tokenizer.from_str(tokenizer_text).get_vocab_size(with_added_tokens=True)
    rng = np.random.default_rng(seed)
    before = rng.standard_normal((vocab, dim), dtype=np.float32)
    table = after if after is not None else rng.standard_normal((vocab, dim), dtype=np.float32)
    tensors = {
        embed_key: np.ascontiguousarray(table, dtype=np.float32),
        "lm_head.weight": rng.standard_normal((vocab, dim), dtype=np.float32),
        "context.weight": rng.standard_normal((dim, 2 * dim), dtype=np.float32),
    }
    save_file(tensors, str(path / "model.safetensors"))
    if with_before:
        save_file(
            {"model.embed_tokens.weight": before}, str(path / "embeddings_before.safetensors")
        )
    config = {
        "vocab_size": vocab,
        "hidden_size": dim,
        "context": 4,
        "hidden": 2 * dim,
        "seed": seed,
        "steps": 0,
        "tokenizer": "byte-bpe-zh",
        "tie_word_embeddings": False,
    }
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path
