"""Tiny random Hugging Face model directories, written the way each architecture names its
tensors, with numpy alone (no torch): safetensors files by hand where numpy has no dtype
(bf16), sharded checkpoints with their index, and a WordLevel tokenizer.json.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

WORDS = ("cat", "dog", "car", "bus", "apple", "banana", "king", "queen", "man", "woman")
UNK = "[UNK]"
PAD = "[PAD]"


def vocabulary(size: int) -> dict[str, int]:
    """[PAD], [UNK], the lesson's words, then filler words w0, w1 ... up to `size` ids."""
    words = [PAD, UNK, *WORDS]
    words += [f"w{i}" for i in range(size - len(words))]
    return {word: i for i, word in enumerate(words)}


def tokenizer_json(size: int, pad_to: int | None = None) -> str:
    """A whitespace WordLevel tokenizer; `pad_to` ships it padding and truncating to a
    fixed length, as some sentence-embedding models do."""
    tok = Tokenizer(models.WordLevel(vocabulary(size), unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens([PAD, UNK])
    if pad_to is not None:
        tok.enable_padding(length=pad_to, pad_token=PAD, pad_id=0)
        tok.enable_truncation(max_length=pad_to)
    return tok.to_str()


def bf16_bytes(values: np.ndarray) -> bytes:
    """float32 -> bfloat16 by keeping the top 16 bits (the values are chosen exact in bf16)."""
    return (np.ascontiguousarray(values, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()


def as_bf16(values: np.ndarray) -> np.ndarray:
    """The float32 values a bf16 file holds for `values`."""
    top = np.ascontiguousarray(values, np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return top.view(np.float32)


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], dtype: str = "F32") -> None:
    """A safetensors file with every tensor in `dtype` (F32, F16 or BF16)."""
    header: dict[str, object] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, array in tensors.items():
        if dtype == "BF16":
            data = bf16_bytes(array)
        else:
            data = np.ascontiguousarray(array, {"F32": "<f4", "F16": "<f2"}[dtype]).tobytes()
        header[name] = {
            "dtype": dtype,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header)
    text += " " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text.encode() + b"".join(chunks))


@dataclass
class Convention:
    """How one architecture family names its tensors."""

    name: str
    table: str  # the input table's tensor name
    others: dict[str, tuple[int, ...]]  # other tensors; "V" and "D" stand for V and d
    config: dict[str, object] = field(default_factory=dict)
    head: str = "tied"


CONVENTIONS = [
    Convention(
        "bert",
        "embeddings.word_embeddings.weight",
        {
            "embeddings.position_embeddings.weight": (512, "D"),
            "embeddings.token_type_embeddings.weight": (2, "D"),
            "encoder.layer.0.attention.self.query.weight": ("D", "D"),
        },
        {"model_type": "bert", "architectures": ["BertModel"], "initializer_range": 0.02},
        head="none",
    ),
    Convention(
        "bert-prefixed-no-config",
        "bert.embeddings.word_embeddings.weight",
        {"bert.embeddings.position_embeddings.weight": (512, "D")},
        head="none",  # no head in the files, and no config to say it is tied
    ),
    Convention(
        "roberta-minilm",
        "roberta.embeddings.word_embeddings.weight",
        {"roberta.embeddings.position_embeddings.weight": (514, "D")},
        {"model_type": "xlm-roberta", "architectures": ["XLMRobertaModel"]},
        head="none",
    ),
    Convention(
        "gpt2",
        "wte.weight",
        {"wpe.weight": (1024, "D"), "h.0.attn.c_attn.weight": ("D", 48)},
        {"model_type": "gpt2", "initializer_range": 0.02},
    ),
    Convention(
        "gpt2-transformer",
        "transformer.wte.weight",
        {"transformer.wpe.weight": (1024, "D"), "lm_head.weight": ("V", "D")},
        {"architectures": ["GPT2LMHeadModel"], "tie_word_embeddings": True},
    ),
    Convention(
        "llama",
        "model.embed_tokens.weight",
        {"lm_head.weight": ("V", "D"), "model.layers.0.mlp.up_proj.weight": (32, "D")},
        {"model_type": "llama", "tie_word_embeddings": False, "initializer_range": 0.02},
        head="untied",
    ),
    Convention(
        "qwen3-tied",
        "model.embed_tokens.weight",
        {"model.norm.weight": ("D",)},
        {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]},
    ),
    Convention(
        "gpt-neox",
        "gpt_neox.embed_in.weight",
        {"embed_out.weight": ("V", "D")},
        {"model_type": "gpt_neox", "tie_word_embeddings": False},
        head="untied",
    ),
    Convention(
        "t5",
        "shared.weight",
        {"encoder.embed_tokens.weight": ("V", "D"), "decoder.embed_tokens.weight": ("V", "D")},
        {"model_type": "t5", "initializer_factor": 1.0},
    ),
    Convention(
        "opt",
        "model.decoder.embed_tokens.weight",
        {"model.decoder.embed_positions.weight": (2050, "D")},
        {"model_type": "opt"},
    ),
    Convention(
        "falcon",
        "transformer.word_embeddings.weight",
        {"lm_head.weight": ("V", "D")},
        {"model_type": "falcon", "tie_word_embeddings": False},
        head="untied",
    ),
    Convention(
        "bloom",
        "transformer.word_embeddings.weight",
        {"transformer.word_embeddings_layernorm.weight": ("D",)},
        {"architectures": ["BloomForCausalLM"]},
    ),
]


def random_table(vocab: int, dim: int, seed: int = 0) -> np.ndarray:
    """Random rows, exact in bf16 and f16 (few significant bits), so every dtype holds them."""
    rng = np.random.default_rng(seed)
    return (np.round(rng.standard_normal((vocab, dim)) * 64) / 64).astype(np.float32)


def write_hf_model(
    path: Path,
    convention: Convention,
    *,
    vocab: int = 64,
    dim: int = 8,
    dtype: str = "F32",
    shards: int = 1,
    pad_to: int | None = None,
    table: np.ndarray | None = None,
) -> Path:
    """A model directory in `convention`'s naming; `shards` > 1 writes an index and puts
    the table in the last shard."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "tokenizer.json").write_text(tokenizer_json(vocab, pad_to), encoding="utf-8")
    sizes = {"V": vocab, "D": dim}
    rng = np.random.default_rng(1)
    tensors = {
        name: rng.standard_normal([sizes.get(s, s) for s in shape]).astype(np.float32)  # type: ignore[misc]
        for name, shape in convention.others.items()
    }
    tensors[convention.table] = random_table(vocab, dim) if table is None else table
    if convention.config:
        (path / "config.json").write_text(json.dumps(convention.config), encoding="utf-8")
    if shards == 1:
        write_safetensors(path / "model.safetensors", tensors, dtype)
        return path
    others = [n for n in tensors if n != convention.table]
    weight_map = {}
    for i in range(shards):
        shard = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        part = others[i :: shards - 1] if i < shards - 1 else [convention.table]
        write_safetensors(path / shard, {n: tensors[n] for n in part}, dtype)
        weight_map.update(dict.fromkeys(part, shard))
    (path / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map}), encoding="utf-8"
    )
    return path


def byte_fallback_tokenizer_json() -> str:
    """A SentencePiece-style BPE as Llama 2, Mistral and Gemma ship it: "▁" for spaces,
    and a character outside the vocabulary spelled as its UTF-8 bytes, <0xE9> <0xBE> ..."""
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    vocab.update({f"<0x{b:02X}>": 3 + b for b in range(256)})
    for piece in ("▁", "t", "h", "e", "c", "a", "▁t", "he", "▁the", "▁c", "at", "▁cat"):
        vocab.setdefault(piece, len(vocab))
    merges = [("▁", "t"), ("h", "e"), ("▁t", "he"), ("▁", "c"), ("a", "t"), ("▁c", "at")]
    tok = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
    )
    return tok.to_str()


PLACEHOLDERS = ("[unused0]", "[unused1]", "[unused2]")  # reserved rows, never trained


def word_start_tokenizer_json(kind: str) -> str:
    """A BPE whose words have a word-start piece and a mid-word piece ("▁cat" and "cat",
    or GPT-2's "Ġcat" and "cat"): `kind` "metaspace" (SentencePiece, Llama 2) or "byte"
    (GPT-2, Llama 3). Its specials are added tokens; [unusedN] are plain entries."""
    mark = "▁" if kind == "metaspace" else "Ġ"
    specials = ["<unk>", "<pad>", "[MASK]"] if kind == "metaspace" else ["<|endoftext|>", "<pad>"]
    vocab = {piece: i for i, piece in enumerate([*specials, *PLACEHOLDERS])}
    alphabet = [mark, *sorted(set("".join(WORDS)))]
    if kind == "byte":
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        alphabet.sort()
    for piece in alphabet:
        vocab.setdefault(piece, len(vocab))
    merges: list[tuple[str, str]] = []
    for word in sorted(WORDS, key=len, reverse=True):  # "woman" merges before "man"
        for end in range(2, len(word) + 1):
            pair = (word[: end - 1], word[end - 1])
            if pair not in merges:
                merges.append(pair)
    merges += [(mark, word) for word in WORDS]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    if kind == "metaspace":
        tok = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    else:
        tok = Tokenizer(models.BPE(vocab, merges))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(specials)
    return tok.to_str()


def write_word_start_model(path: Path, kind: str, config: dict | None = None) -> Path:
    """A Llama-named model directory around `word_start_tokenizer_json(kind)`."""
    path.mkdir(parents=True, exist_ok=True)
    text = word_start_tokenizer_json(kind)
    (path / "tokenizer.json").write_text(text, encoding="utf-8")
    vocab = Tokenizer.from_str(text).get_vocab_size(with_added_tokens=True)
    table = random_table(vocab, 8, seed=3)
    write_safetensors(path / "model.safetensors", {"model.embed_tokens.weight": table})
    (path / "config.json").write_text(
        json.dumps(config or {"model_type": "llama", "hidden_size": 8, "vocab_size": vocab}),
        encoding="utf-8",
    )
    return path


@dataclass
class StaticParts:
    """What a static model directory holds, and the vectors it stands for, by token ID."""

    path: Path
    vectors: np.ndarray  # (V, d) float32: row mapping[id] x scale x weights[id]


def write_static_model(
    path: Path,
    *,
    rows: int = 12,
    dim: int = 8,
    scale: str = "row",  # "row", "table" or "none"
    mapping: bool = True,
    weights: bool = True,
    dtype: str = "I8",
) -> StaticParts:
    """A model2vec-style directory: an int8 (or float) `embeddings` table with fewer rows
    than the vocabulary has IDs, a `mapping` token ID -> row, per-token `weights`, and a
    `scales` tensor, beside the word-start SentencePiece tokenizer."""
    from safetensors.numpy import save_file

    path.mkdir(parents=True, exist_ok=True)
    text = word_start_tokenizer_json("metaspace")
    (path / "tokenizer.json").write_text(text, encoding="utf-8")
    vocab = Tokenizer.from_str(text).get_vocab_size(with_added_tokens=True)
    rng = np.random.default_rng(5)
    rows = rows if mapping else vocab
    stored = rng.integers(-127, 128, (rows, dim)).astype(np.int8)
    tensors: dict[str, np.ndarray] = {"embeddings": stored}
    dense = stored.astype(np.float32)
    if dtype != "I8":
        tensors["embeddings"] = dense.astype({"F32": np.float32, "F16": np.float16}[dtype])
    if scale == "row":
        tensors["scales"] = rng.uniform(0.001, 0.01, rows).astype(np.float32)
        dense = dense * tensors["scales"][:, None]
    elif scale == "table":
        tensors["scales"] = np.array([0.004], np.float32)
        dense = dense * np.float32(0.004)
    row_of = np.arange(vocab) % rows
    if mapping:
        row_of = rng.integers(0, rows, vocab).astype(np.int64)
        tensors["mapping"] = row_of
    dense = dense[row_of]
    if weights:
        tensors["weights"] = rng.uniform(0.5, 2.0, vocab).astype(np.float32)
        dense = dense * tensors["weights"][:, None]
    save_file(tensors, str(path / "model.safetensors"))
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "hidden_dim": dim}
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return StaticParts(path, dense.astype(np.float32))
