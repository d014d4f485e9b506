"""Every figure the lesson measures on our own artifacts, computed from the built files.

`measure(assets)` returns the facts that `tutor assets build` writes to facts.json; the
registry below names each key with its unit, its labels and the `tutor` command that
reproduces it, so authors and `tutor check` know the keys before any build has run.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer

from tutor.core import trajectory
from tutor.core.model import open_model
from tutor.core.similarity import cosine_matrix
from tutor.core.vocab import merge_order

SENTENCE = "小明把苹果给了小王"
PHRASE = "我喜欢机器学习"
CHUNK_SPLIT = re.compile(r"[\s\W_]+")
BPE_SCHEMES = ("char-bpe", "byte-bpe-en", "byte-bpe-zh")
VOCAB_SCHEMES = ("char", "word", "char-bpe", "byte-bpe-en", "byte-bpe-zh")
# The lesson's pairs: two of a kind against a cross-kind pair (acceptance check 2a).
PAIRS = {
    "cat_dog": ("猫", "狗"),
    "cat_car": ("猫", "汽车"),
    "apple_banana": ("苹果", "香蕉"),
    "apple_wang": ("苹果", "小王"),
    "ming_wang": ("小明", "小王"),
    "ming_car": ("小明", "汽车"),
}
GAPS = {
    "animal": ("cat_dog", "cat_car"),
    "fruit": ("apple_banana", "apple_wang"),
    "name": ("ming_wang", "ming_car"),
}


@dataclass(frozen=True)
class Spec:
    unit: str
    label_zh: str
    label_en: str
    source: str


def _key(scheme: str) -> str:
    return scheme.replace("-", "_")


def _registry() -> dict[str, Spec]:
    build = "tutor assets build && tutor facts --key "
    reg: dict[str, Spec] = {
        "corpus.zh_train_chars": Spec("字", "中文训练集字数", "Chinese training characters", ""),
        "corpus.en_train_chars": Spec(
            "chars", "英文训练集字符数", "English training characters", ""
        ),
        "corpus.chunk_types": Spec(
            "种", "按空白和标点切出的块的种类", "chunk types split on whitespace/punct", ""
        ),
        "corpus.chunk_singleton_share": Spec(
            "%", "只出现一次的块的占比", "share of chunk types seen once", ""
        ),
        "corpus.valid_unseen_chars": Spec(
            "种", "验证集里训练集没见过的字", "validation characters unseen in training", ""
        ),
        "parallel.zh_chars": Spec("字", "中文段落字数", "Chinese paragraph characters", ""),
        "parallel.en_chars": Spec("chars", "英文段落字符数", "English paragraph characters", ""),
        "parallel.zh_codepoint_attention": Spec(
            "次", "按字切时的注意力打分次数", "attention scores, one token per character", ""
        ),
        "parallel.zh_bpe_attention": Spec(
            "次", "按项目分词器切时的注意力打分次数", "attention scores, byte-bpe-zh", ""
        ),
        "parallel.zh_attention_ratio": Spec(
            "倍", "按字切比子词切多出的倍数", "char / subword attention ratio", ""
        ),
        "parallel.zh_en_over_zh": Spec(
            "倍", "中文段落:英文词表比中文词表多用的倍数", "Chinese paragraph: en / zh tokens", ""
        ),
        "parallel.en_en_over_zh": Spec(
            "倍", "英文段落:英文词表与中文词表之比", "English paragraph: en / zh tokens", ""
        ),
        "phrase.text": Spec("", "常用中文短语", "a common Chinese phrase", ""),
        "sentence.text": Spec("", "贯穿例句", "the running sentence", ""),
        "sentence.ids": Spec("id", "项目分词器给例句的 ID", "project tokenizer's IDs", ""),
        "sentence.tokens": Spec("个", "例句的 token 数", "tokens in the running sentence", ""),
        "model.vocab_size": Spec("行", "项目模型词表大小 V", "project model vocabulary V", ""),
        "model.d": Spec("", "项目模型宽度 d", "project model width d", ""),
        "model.context": Spec("个", "上下文窗口", "context window", ""),
        "model.parameters": Spec("个", "项目模型总参数", "project model parameters", ""),
        "model.embedding_parameters": Spec(
            "个", "输入 embedding 表参数 V×d", "input table parameters V×d", ""
        ),
        "model.embedding_share": Spec(
            "%", "两张 V×d 表占总参数的比例", "share of both V×d tables", ""
        ),
        "model.val_loss": Spec("", "验证集 loss", "validation loss", ""),
        "model.steps": Spec("步", "训练步数", "training steps", ""),
        "model.tokens_per_s": Spec("token/s", "训练速度", "training speed", ""),
        "model.wall_time_s": Spec("秒", "训练用时", "training wall time", ""),
        "model.train_tokens": Spec("个", "训练集 token 数", "training tokens", ""),
        "batch.positions": Spec("个", "一个 batch 的位置数", "positions per batch", ""),
        "batch.distinct_mean": Spec(
            "个", "一个 batch 平均出现的不同 token", "mean distinct tokens per batch", ""
        ),
        "trajectory.steps": Spec("步", "记录下训练过程的步", "recorded training steps", ""),
        "trajectory.tokens": Spec(
            "个", "记录下训练过程的 token", "tokens recorded in training", ""
        ),
        "trajectory.contrast_start": Spec(
            "", "训练前同类与异类平均余弦之差", "category contrast before training", ""
        ),
        "trajectory.contrast_end": Spec(
            "", "训练后同类与异类平均余弦之差", "category contrast after training", ""
        ),
    }
    for scheme in VOCAB_SCHEMES:
        reg[f"vocab.{_key(scheme)}"] = Spec(
            "个", f"{scheme} 词表大小", f"{scheme} vocabulary size", ""
        )
    for scheme in BPE_SCHEMES:
        k = _key(scheme)
        reg[f"merge.{k}.merges"] = Spec("次", f"{scheme} 合并次数", f"{scheme} merges", "")
        reg[f"merge.{k}.base"] = Spec("", f"{scheme} 第一次合并的 ID", f"{scheme} merge base", "")
        reg[f"merge.{k}.share"] = Spec(
            "%", f"{scheme} 严格满足 ID = 起点 + i 的合并占比", f"{scheme} ID = base + i", ""
        )
        reg[f"merge.{k}.max_deviation"] = Spec(
            "", f"{scheme} ID 与合并顺序的最大偏差", f"{scheme} largest deviation", ""
        )
    for scheme in ("char", "byte-bpe-en", "byte-bpe-zh"):
        k = _key(scheme)
        reg[f"parallel.zh.{k}"] = Spec(
            "个", f"中文段落在 {scheme} 下的 token 数", f"Chinese paragraph, {scheme}", ""
        )
        reg[f"parallel.en.{k}"] = Spec(
            "个", f"英文段落在 {scheme} 下的 token 数", f"English paragraph, {scheme}", ""
        )
        reg[f"phrase.{k}"] = Spec(
            "个", f"「{PHRASE}」在 {scheme} 下的 token 数", f"phrase tokens, {scheme}", ""
        )
    for stage in ("before", "after"):
        for name, (a, b) in PAIRS.items():
            reg[f"cos.{stage}.{name}"] = Spec(
                "",
                f"训练{'前' if stage == 'before' else '后'} cos({a}, {b})",
                f"cos({a}, {b}) {stage} training",
                f"tutor similarity {a} {b} --stage {stage}",
            )
    for name, (near, far) in GAPS.items():
        reg[f"gap.{name}"] = Spec(
            "",
            f"训练后 {PAIRS[near]} 与 {PAIRS[far]} 的余弦差",
            f"cosine gap {near} - {far} after training",
            "",
        )
    for d in SWEEP_WIDTHS:
        reg[f"sweep.d{d}.parameters"] = Spec("个", f"d = {d} 的总参数", f"parameters at d={d}", "")
        reg[f"sweep.d{d}.embedding_share"] = Spec(
            "%", f"d = {d} 时两张表的参数占比", f"table share at d={d}", ""
        )
        reg[f"sweep.d{d}.val_loss"] = Spec("", f"d = {d} 的验证 loss", f"val loss at d={d}", "")
    return {
        key: Spec(s.unit, s.label_zh, s.label_en, s.source or build + key) for key, s in reg.items()
    }


SWEEP_WIDTHS = (32, 64, 128)
MEASURED = _registry()
MEASURED_KEYS = frozenset(MEASURED)


def chunk_counts(text: str) -> Counter[str]:
    """Chunks between whitespace and punctuation, with how often each was seen."""
    return Counter(c for c in CHUNK_SPLIT.split(text) if c)


def _share(part: float, whole: float) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _measure(assets: Path) -> dict[str, object]:
    corpus = assets / "corpus"
    zh_train = (corpus / "zh" / "train.txt").read_text(encoding="utf-8")
    en_train = (corpus / "en" / "train.txt").read_text(encoding="utf-8")
    valid = "".join((corpus / s / "valid.txt").read_text(encoding="utf-8") for s in ("zh", "en"))
    parallel = json.loads((corpus / "parallel.json").read_text(encoding="utf-8"))
    train_all = zh_train + en_train
    chunks = chunk_counts(train_all)
    unseen = {ch for ch in valid if not ch.isspace()} - set(train_all)

    values: dict[str, object] = {
        "corpus.zh_train_chars": sum(1 for ch in zh_train if not ch.isspace()),
        "corpus.en_train_chars": len(en_train),
        "corpus.chunk_types": len(chunks),
        "corpus.chunk_singleton_share": _share(
            sum(1 for n in chunks.values() if n == 1), len(chunks)
        ),
        "corpus.valid_unseen_chars": len(unseen),
        "parallel.zh_chars": len(parallel["zh"]),
        "parallel.en_chars": len(parallel["en"]),
        "phrase.text": PHRASE,
        "sentence.text": SENTENCE,
    }
    toks = {s: Tokenizer.from_file(str(assets / "tokenizers" / f"{s}.json")) for s in VOCAB_SCHEMES}
    for scheme in VOCAB_SCHEMES:
        values[f"vocab.{_key(scheme)}"] = toks[scheme].get_vocab_size()
    for scheme in BPE_SCHEMES:
        order = merge_order(assets / "tokenizers" / f"{scheme}.json")
        k = _key(scheme)
        values[f"merge.{k}.merges"] = order.merges
        values[f"merge.{k}.base"] = order.base
        values[f"merge.{k}.share"] = round(100 * order.share_exact, 1)
        values[f"merge.{k}.max_deviation"] = order.max_deviation
    for scheme in ("char", "byte-bpe-en", "byte-bpe-zh"):
        k = _key(scheme)
        values[f"parallel.zh.{k}"] = len(toks[scheme].encode(parallel["zh"]).ids)
        values[f"parallel.en.{k}"] = len(toks[scheme].encode(parallel["en"]).ids)
        values[f"phrase.{k}"] = len(toks[scheme].encode(PHRASE).ids)
    n_char, n_bpe = values["parallel.zh.char"], values["parallel.zh.byte_bpe_zh"]
    values["parallel.zh_codepoint_attention"] = n_char**2
    values["parallel.zh_bpe_attention"] = n_bpe**2
    values["parallel.zh_attention_ratio"] = round(n_char**2 / n_bpe**2, 1)
    values["parallel.zh_en_over_zh"] = round(
        values["parallel.zh.byte_bpe_en"] / values["parallel.zh.byte_bpe_zh"], 1
    )
    values["parallel.en_en_over_zh"] = round(
        values["parallel.en.byte_bpe_en"] / values["parallel.en.byte_bpe_zh"], 2
    )

    values.update(_measure_model(assets / "models" / "project"))
    sweep = json.loads((assets / "models" / "sweep.json").read_text(encoding="utf-8"))
    for row in sweep:
        d = row["d"]
        values[f"sweep.d{d}.parameters"] = row["parameters"]
        values[f"sweep.d{d}.embedding_share"] = row["embedding_share"]
        values[f"sweep.d{d}.val_loss"] = row["val_loss"]
    return values


def _measure_model(model_dir: Path) -> dict[str, object]:
    model = open_model(model_dir)
    log = json.loads((model_dir / "train_log.json").read_text(encoding="utf-8"))
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    sentence_ids = [t.id for t in model.scheme.encode(SENTENCE)]
    values: dict[str, object] = {
        "sentence.ids": sentence_ids,
        "sentence.tokens": len(sentence_ids),
        "model.vocab_size": model.scheme.vocab_size,
        "model.d": config["hidden_size"],
        "model.context": config["context"],
        "model.parameters": log["parameters"],
        "model.embedding_parameters": log["embedding_parameters"],
        "model.embedding_share": _share(
            log["embedding_parameters"] + log["head_parameters"], log["parameters"]
        ),
        "model.val_loss": log["val_loss"][-1],
        "model.steps": config["steps"],
        "model.tokens_per_s": round(log["tokens_per_s"]),
        "model.wall_time_s": log["wall_time_s"],
        "model.train_tokens": log["train_tokens"],
        "batch.positions": log["batch_positions"],
        "batch.distinct_mean": log["batch_distinct_mean"],
    }
    for stage in ("before", "after"):
        table = model.table(stage)
        for name, (a, b) in PAIRS.items():
            rows = table.lookup([model.scheme.single_id(a), model.scheme.single_id(b)])
            values[f"cos.{stage}.{name}"] = round(float(cosine_matrix(rows)[0, 1]), 3)
    for name, (near, far) in GAPS.items():
        values[f"gap.{name}"] = round(values[f"cos.after.{near}"] - values[f"cos.after.{far}"], 3)
    run = trajectory.load(model_dir)
    values["trajectory.steps"] = run.steps
    values["trajectory.tokens"] = len(run.tokens)
    values["trajectory.contrast_start"] = round(float(run.contrast[0]), 3)
    values["trajectory.contrast_end"] = round(float(run.contrast[-1]), 3)
    return values


def measure(assets: Path) -> list[dict[str, object]]:
    """The facts.json list: one entry per registered key, each measured on `assets`."""
    values = _measure(assets)
    missing = MEASURED_KEYS - values.keys()
    extra = values.keys() - MEASURED_KEYS
    if missing or extra:
        raise RuntimeError(f"measured keys out of step: missing {missing}, unregistered {extra}")
    facts = []
    for key in sorted(MEASURED):
        spec = MEASURED[key]
        value = values[key]
        if isinstance(value, float) and math.isnan(value):
            raise RuntimeError(f"{key} measured as NaN")
        facts.append(
            {
                "key": key,
                "value": value,
                "unit": spec.unit,
                "evidence": "measured",
                "source": spec.source,
                "label_zh": spec.label_zh,
                "label_en": spec.label_en,
            }
        )
    return facts
