"""Every figure the lesson measures on our own artifacts, computed from the built files.

`measure(assets)` returns the facts that `tutor assets build` writes to facts.json; the
registry below names each key with its unit, its labels and the `tutor` command that
reproduces it, so authors and `tutor check` know the keys before any build has run.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from tutor.core import corpus as corpus_mod
from tutor.core import segment, trajectory
from tutor.core.experiment_record import SCHEMES, WIDTHS, load_experiments
from tutor.core.model import BEFORE_FILE, WEIGHTS_FILE, ProjectModel, Stage, open_model
from tutor.core.similarity import Neighbour, analogy, cosine_matrix, nearest
from tutor.core.table import EmbeddingTable
from tutor.core.tokenize import Scheme, load_scheme
from tutor.core.vocab import merge_order

HEAD_KEY = "lm_head.weight"

SENTENCE = "小明把苹果给了小王"
PHRASE = "我喜欢机器学习"
BPE_SCHEMES = ("char-bpe", "byte-bpe-en", "byte-bpe-zh")
VOCAB_SCHEMES = ("char", "word", "char-bpe", "byte-bpe-en", "byte-bpe-zh")
# The heatmap's four kinds, five words each (acceptance checks a and c).
CATEGORIES = {
    "people": ("小明", "小王", "小红", "小李", "小张"),
    "animals": ("猫", "狗", "兔子", "熊猫", "老虎"),
    "fruits": ("苹果", "香蕉", "西瓜", "葡萄", "橘子"),
    "vehicles": ("汽车", "火车", "飞机", "自行车", "地铁"),
}
CATEGORY_ZH = {"people": "人名", "animals": "动物", "fruits": "水果", "vehicles": "交通工具"}
# Single pairs, shown as examples beside the category averages.
PAIRS = {
    "cat_dog": ("猫", "狗"),
    "cat_car": ("猫", "汽车"),
    "apple_banana": ("苹果", "香蕉"),
    "apple_wang": ("苹果", "小王"),
    "ming_wang": ("小明", "小王"),
    "ming_car": ("小明", "汽车"),
}
# a - b + c: two relations the corpus keeps across contexts, and a same-kind control.
ANALOGIES = {
    "royal": ("国王", "男人", "女人", "王后"),
    "capital": ("东京", "日本", "法国", "巴黎"),
    "control": ("香蕉", "苹果", "汽车", None),
}
ID_NEIGHBOURS = 4  # nearest IDs looked at per heatmap word (acceptance check c)
SWEEP_WIDTHS = (64, 128, 256)
SWEEP_SEEDS = (0, 1)


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
        "corpus.word_types": Spec("种", "jieba 切出的词的种类", "word types (jieba)", ""),
        "corpus.word_singleton_share": Spec(
            "%", "只出现一次的词的占比", "share of word types seen once", ""
        ),
        "corpus.word_mean_chars": Spec("字", "词的平均长度", "mean characters per word type", ""),
        "corpus.valid_unseen_chars": Spec(
            "种", "验证集里训练集没见过的字", "validation characters unseen in training", ""
        ),
        "corpus.valid_unseen_examples": Spec(
            "", "这些生字（前几个）", "some of those characters", ""
        ),
        "corpus.valid_unk_words": Spec(
            "个", "验证集里 word 方案记成 [UNK] 的词", "validation words that are [UNK]", ""
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
        "phrase.text": Spec("", "一个短语", "a phrase", ""),
        "phrase.train_count": Spec(
            "次", "这个短语在中文训练集里出现的次数", "times the phrase occurs in training", ""
        ),
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
        "model.train_tokens": Spec("个", "训练集 token 数", "training tokens", ""),
        "model.random_cos_sd": Spec(
            "", "训练前随机行之间余弦的标准差", "SD of cosines between random rows", ""
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
        "batch.positions": Spec("个", "一个 batch 的位置数", "positions per batch", ""),
        "batch.input_rows_mean": Spec(
            "行", "一个 batch 平均读到（也只更新）的不同输入行", "distinct input rows per batch", ""
        ),
        "rows.never_seen_share": Spec(
            "%", "训练集里从没出现过的 token（输入行）占比", "input rows never seen in training", ""
        ),
        "rows.never_seen_cos": Spec(
            "", "这些行训练前后的余弦（最小值）", "their before/after cosine (minimum)", ""
        ),
        "rows.never_seen_norm_ratio": Spec(
            "", "这些行训练后与训练前的长度之比（权重衰减）", "their norm after / before", ""
        ),
        "rows.seen_cos_mean": Spec(
            "", "出现过的行训练前后的平均余弦", "seen rows' mean before/after cosine", ""
        ),
        "rows.head_never_seen_cos_mean": Spec(
            "", "没出现过的 token，输出层那一行训练前后的平均余弦", "their output rows' cosine", ""
        ),
        "cat.gap_chance_sd": Spec(
            "", "随机表里类内减类间平均余弦的标准差", "chance SD of a category gap", ""
        ),
        "idnb.category_hits": Spec(
            "个",
            "20 个词里，最近 4 个编号中有 2 个以上同类词的个数",
            "heatmap words with 2+ same-kind words among their 4 nearest IDs",
            "",
        ),
        "idnb.chance": Spec(
            "个", "编号随机排列时这个数的期望", "the same count expected by chance", ""
        ),
        "idnb.cat_parts": Spec(
            "", "「猫」由哪两个 token 合并而来", "the two tokens merged into 猫", ""
        ),
        "analogy.gender_rank1_share": Spec(
            "%",
            "所有「男 − 男 + 女」类比里女方排第 1 的占比",
            "gender analogies whose answer ranks first",
            "",
        ),
        "analogy.gender_pairs": Spec("对", "参与统计的性别词对", "gendered pairs", ""),
        "analogy.capital_top2_share": Spec(
            "%",
            "所有「首都 − 国家 + 国家」类比里答案进前 2 的占比",
            "capital analogies in top 2",
            "",
        ),
        "analogy.chance": Spec(
            "%", "随机挑一个 token 恰好是答案的概率", "chance of hitting the answer at random", ""
        ),
        "analogy.control_overlap": Spec(
            "个",
            "对照类比的前 5 名里，本来就是「汽车」前 5 近邻的个数",
            "control's top 5 that are 汽车's own top 5",
            "",
        ),
        "sweep.steps": Spec("步", "宽度对比每次训练的步数", "steps per width-sweep run", ""),
        "sweep.seeds": Spec("个", "宽度对比的随机种子数", "seeds per width", ""),
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
        zh = "前" if stage == "before" else "后"
        for name, (a, b) in PAIRS.items():
            reg[f"cos.{stage}.{name}"] = Spec(
                "",
                f"训练{zh} cos({a}, {b})",
                f"cos({a}, {b}) {stage} training",
                f"tutor similarity {a} {b} --stage {stage}",
            )
        for cat in CATEGORIES:
            reg[f"cat.{cat}.gap.{stage}"] = Spec(
                "",
                f"训练{zh}{CATEGORY_ZH[cat]}类内平均余弦减类间平均余弦",
                f"{cat}: mean within minus mean across, {stage} training",
                f"tutor similarity {' '.join(w for ws in CATEGORIES.values() for w in ws)} "
                f"--stage {stage}",
            )
    for name, (a, b, c, _) in ANALOGIES.items():
        reg[f"analogy.{name}.top"] = Spec(
            "",
            f"{a} − {b} + {c} 的前 3 名",
            f"top 3 of {a} - {b} + {c}",
            f"tutor analogy {a} {b} {c} --k 3",
        )
    for name in ("royal", "capital"):
        a, b, c, want = ANALOGIES[name]
        reg[f"analogy.{name}.rank"] = Spec(
            "名", f"{a} − {b} + {c} 里 {want} 的名次", f"rank of {want}", ""
        )
    for d in SWEEP_WIDTHS:
        reg[f"sweep.d{d}.parameters"] = Spec("个", f"d = {d} 的总参数", f"parameters at d={d}", "")
        reg[f"sweep.d{d}.embedding_share"] = Spec(
            "%", f"d = {d} 时两张表的参数占比", f"table share at d={d}", ""
        )
        reg[f"sweep.d{d}.val_loss"] = Spec(
            "", f"d = {d} 的验证 loss（种子平均）", f"val loss at d={d}, mean of seeds", ""
        )
        reg[f"sweep.d{d}.val_loss_spread"] = Spec(
            "", f"d = {d} 两个种子的 loss 之差", f"val loss spread across seeds at d={d}", ""
        )
    reg.update(_experiment_registry())
    return {
        key: Spec(s.unit, s.label_zh, s.label_en, s.source or build + key) for key, s in reg.items()
    }


SCHEME_ZH = {"id-number": "ID 当数", "onehot": "one-hot × W", "table": "查表"}


def _experiment_registry() -> dict[str, Spec]:
    """The recorded experiments' figures (tutor/core/experiments.py), each checkable with
    `tutor experiment inputs|width`."""
    inputs, width = "tutor experiment inputs", "tutor experiment width"
    reg = {
        "experiment.steps": Spec("步", "三种输入各训练的步数", "steps per inputs run", inputs),
        "experiment.width_steps": Spec("步", "每个宽度训练的步数", "steps per width run", width),
        "experiment.d": Spec("", "三种输入实验的宽度 d", "width d of the inputs runs", inputs),
        "experiment.chance": Spec(
            "", "均匀瞎猜的 loss（ln V）", "loss of a uniform guess (ln V)", inputs
        ),
        "experiment.unigram": Spec(
            "", "只按词频猜的验证 loss", "validation loss of the token frequencies", inputs
        ),
        "experiment.inputs.max_abs_diff": Spec(
            "",
            "one-hot × W 与查表的验证 loss 最大差",
            "largest validation-loss gap, one-hot vs lookup",
            inputs,
        ),
        "experiment.inputs.bytes_ratio": Spec(
            "倍",
            "one-hot 每步第一层的字节数是查表的多少倍",
            "one-hot's first-layer bytes per step over the lookup's",
            inputs,
        ),
        "experiment.inputs.onehot_madds": Spec(
            "次", "one-hot × W 每步第一层的乘加次数", "one-hot first-layer multiply-adds", inputs
        ),
    }
    for scheme in SCHEMES:
        key = _key(scheme)
        reg[f"experiment.inputs.{key}.val_loss"] = Spec(
            "", f"{SCHEME_ZH[scheme]}：最后的验证 loss", f"{scheme}: final validation loss", inputs
        )
        reg[f"experiment.inputs.{key}.bytes"] = Spec(
            "字节",
            f"{SCHEME_ZH[scheme]}：第一层每步的字节数",
            f"{scheme}: first-layer bytes per step",
            inputs,
        )
    for d in WIDTHS:
        reg[f"experiment.width.d{d}.val_loss"] = Spec(
            "", f"输入行宽 d = {d} 的验证 loss", f"validation loss, rows {d} wide", width
        )
        reg[f"experiment.width.d{d}.contrast"] = Spec(
            "", f"输入行宽 d = {d} 的类别对比", f"category contrast, rows {d} wide", width
        )
    return reg


MEASURED = _registry()
MEASURED_KEYS = frozenset(MEASURED)


def _share(part: float, whole: float) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _word_facts(zh_train: str, zh_valid: str, word_scheme: Scheme) -> dict[str, object]:
    counts = Counter(w for line in zh_train.splitlines() for w in segment.words(line))
    types = [w for w in counts if any("\u4e00" <= ch <= "\u9fff" for ch in w)]
    unk = sum(
        1 for line in zh_valid.splitlines() for t in word_scheme.encode(line) if t.piece == "[UNK]"
    )
    return {
        "corpus.word_types": len(types),
        "corpus.word_singleton_share": _share(sum(1 for w in types if counts[w] == 1), len(types)),
        "corpus.word_mean_chars": round(sum(map(len, types)) / max(len(types), 1), 2),
        "corpus.valid_unk_words": unk,
    }


def _measure(assets: Path) -> dict[str, object]:
    corpus = assets / "corpus"
    zh_train = (corpus / "zh" / "train.txt").read_text(encoding="utf-8")
    zh_valid = (corpus / "zh" / "valid.txt").read_text(encoding="utf-8")
    en_train = (corpus / "en" / "train.txt").read_text(encoding="utf-8")
    valid = zh_valid + (corpus / "en" / "valid.txt").read_text(encoding="utf-8")
    parallel = json.loads((corpus / "parallel.json").read_text(encoding="utf-8"))
    train_all = zh_train + en_train
    unseen = sorted({ch for ch in valid if not ch.isspace()} - set(train_all))

    values: dict[str, object] = {
        "corpus.zh_train_chars": sum(1 for ch in zh_train if not ch.isspace()),
        "corpus.en_train_chars": len(en_train),
        "corpus.valid_unseen_chars": len(unseen),
        "corpus.valid_unseen_examples": "".join(unseen[:5]),
        "parallel.zh_chars": len(parallel["zh"]),
        "parallel.en_chars": len(parallel["en"]),
        "phrase.text": PHRASE,
        "phrase.train_count": zh_train.count(PHRASE),
        "sentence.text": SENTENCE,
    }
    toks = {s: Tokenizer.from_file(str(assets / "tokenizers" / f"{s}.json")) for s in VOCAB_SCHEMES}
    word_scheme = load_scheme(assets / "tokenizers" / "word.json", "word")
    values.update(_word_facts(zh_train, zh_valid, word_scheme))
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

    model_dir = assets / "models" / "project"
    values.update(_measure_model(model_dir))
    values.update(_measure_rows(model_dir, zh_train))
    sweep = json.loads((assets / "models" / "sweep.json").read_text(encoding="utf-8"))
    values["sweep.steps"] = sweep["steps"]
    values["sweep.seeds"] = len(sweep["seeds"])
    for d in SWEEP_WIDTHS:
        runs = [row for row in sweep["runs"] if row["d"] == d]
        losses = [row["val_loss"] for row in runs]
        values[f"sweep.d{d}.parameters"] = runs[0]["parameters"]
        values[f"sweep.d{d}.embedding_share"] = runs[0]["embedding_share"]
        values[f"sweep.d{d}.val_loss"] = round(sum(losses) / len(losses), 4)
        values[f"sweep.d{d}.val_loss_spread"] = round(max(losses) - min(losses), 4)
    values.update(_experiment_facts(assets / "models"))
    return values


def _experiment_facts(models_dir: Path) -> dict[str, object]:
    record = load_experiments(models_dir)
    values: dict[str, object] = {
        "experiment.steps": record.steps,
        "experiment.width_steps": record.width_steps,
        "experiment.d": record.d,
        "experiment.chance": record.chance,
        "experiment.unigram": record.unigram,
        "experiment.inputs.max_abs_diff": record.inputs.max_abs_diff_onehot_table,
        "experiment.inputs.bytes_ratio": record.inputs.bytes_ratio,
        "experiment.inputs.onehot_madds": record.inputs.run("onehot").multiply_adds_per_step,
    }
    for run in record.inputs.runs:
        values[f"experiment.inputs.{_key(run.scheme)}.val_loss"] = run.val_loss[-1]
        values[f"experiment.inputs.{_key(run.scheme)}.bytes"] = run.bytes_per_step
    for run in record.width.runs:
        values[f"experiment.width.d{run.d}.val_loss"] = run.val_loss
        values[f"experiment.width.d{run.d}.contrast"] = run.contrast
    return values


def category_gaps(model: ProjectModel, stage: Stage) -> dict[str, float]:
    """Per kind: mean cosine within its five words minus mean cosine to the other fifteen."""
    words = [w for ws in CATEGORIES.values() for w in ws]
    cos = cosine_matrix(model.table(stage).lookup([model.scheme.single_id(w) for w in words]))
    return _gaps(cos)


def _gaps(cos: np.ndarray) -> dict[str, float]:
    labels = np.repeat(np.arange(len(CATEGORIES)), [len(ws) for ws in CATEGORIES.values()])
    gaps = {}
    for index, cat in enumerate(CATEGORIES):
        inside = labels == index
        n = int(inside.sum())
        within = cos[np.ix_(inside, inside)][~np.eye(n, dtype=bool)].mean()
        gaps[cat] = round(float(within - cos[np.ix_(inside, ~inside)].mean()), 3)
    return gaps


def _gap_chance_sd(d: int, draws: int = 2000) -> float:
    """SD of a category gap when the twenty rows are random (fixed seed: same every build)."""
    rng = np.random.default_rng(0)
    n = sum(len(ws) for ws in CATEGORIES.values())
    gaps = [_gaps(cosine_matrix(rng.standard_normal((n, d))))["people"] for _ in range(draws)]
    return round(float(np.std(gaps)), 3)


def is_word_piece(piece: str) -> bool:
    """A whole-character piece with some letter in it (not a byte fragment, digit or space)."""
    return "<" not in piece and any(ch.isalpha() for ch in piece)


def id_neighbours(model: ProjectModel, word: str, k: int = ID_NEIGHBOURS) -> list[str]:
    """The k word pieces nearest `word` by ID; byte fragments and pieces of the word skipped."""
    token_id = model.scheme.single_id(word)
    found: list[str] = []
    for distance in range(1, model.scheme.vocab_size):
        for other in (token_id - distance, token_id + distance):
            if 0 <= other < model.scheme.vocab_size and other not in model.scheme.special_ids:
                piece = model.scheme.id_to_piece(other)
                if is_word_piece(piece) and piece.strip() not in word:
                    found.append(piece.strip())
        if len(found) >= k:
            return found[:k]
    return found


def id_category_hits(model: ProjectModel) -> tuple[int, float]:
    """How many heatmap words have 2+ of their own kind among their nearest IDs, and the
    count expected if IDs were shuffled (hypergeometric: word pieces drawn at random)."""
    kinds = {cat: set(getattr(corpus_mod, cat.upper())) for cat in CATEGORIES}
    pool = sum(
        1 for i in range(model.scheme.vocab_size) if is_word_piece(model.scheme.id_to_piece(i))
    )
    hits, expected = 0, 0.0
    for cat, words in CATEGORIES.items():
        own = {w for w in kinds[cat] if model.scheme.piece_to_id(w) is not None}
        for word in words:
            near = id_neighbours(model, word)
            hits += sum(1 for p in near if p in own) >= 2
            good, k = len(own) - 1, ID_NEIGHBOURS
            p_less = sum(
                math.comb(good, j) * math.comb(pool - 1 - good, k - j) for j in range(2)
            ) / math.comb(pool - 1, k)
            expected += 1 - p_less
    return hits, round(expected, 3)


def _merge_parts(model: ProjectModel, word: str) -> str:
    """'<E7 8C> + <AB>': the two tokens whose merge made `word`."""
    data = json.loads((model.path / "tokenizer.json").read_text(encoding="utf-8"))
    target = model.scheme.single_id(word)
    for merge in data["model"]["merges"]:
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        if data["model"]["vocab"].get(left + right) == target:
            ids = (data["model"]["vocab"][left], data["model"]["vocab"][right])
            return " + ".join(f"{model.scheme.id_to_piece(i)}（{i}）" for i in ids)
    return word


def _rank(found: list[Neighbour], piece: str) -> int:
    return next((n.rank for n in found if n.piece == piece), 0)


def _analogy_facts(model: ProjectModel) -> dict[str, object]:
    values: dict[str, object] = {}
    for name, (a, b, c, want) in ANALOGIES.items():
        found = analogy(model, a, b, c, k=5)
        values[f"analogy.{name}.top"] = "、".join(n.piece for n in found[:3])
        if want:
            values[f"analogy.{name}.rank"] = _rank(analogy(model, a, b, c, k=50), want)
        else:
            own = {n.piece for n in nearest(model, c, "after", k=5).neighbours}
            values["analogy.control_overlap"] = sum(1 for n in found if n.piece in own)
    pairs = [(m, f) for m, f, _, _ in corpus_mod.GENDERED]
    first = [
        analogy(model, x[0], y[0], y[1], k=1)[0].piece == x[1]
        for x in pairs
        for y in pairs
        if x != y
    ]
    capitals = [(country, capital) for country, capital, _ in corpus_mod.COUNTRIES]
    top2 = [
        y[1] in {n.piece for n in analogy(model, x[1], x[0], y[0], k=2)}
        for x in capitals
        for y in capitals
        if x != y
    ]
    values["analogy.gender_pairs"] = len(pairs)
    values["analogy.gender_rank1_share"] = _share(sum(first), len(first))
    values["analogy.capital_top2_share"] = _share(sum(top2), len(top2))
    values["analogy.chance"] = round(100 / (model.scheme.vocab_size - 3), 3)
    return values


def _measure_model(model_dir: Path) -> dict[str, object]:
    model = open_model(model_dir)
    log = json.loads((model_dir / "train_log.json").read_text(encoding="utf-8"))
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    sentence_ids = [t.id for t in model.scheme.encode(SENTENCE)]
    before = model.table("before").weights
    sample = cosine_matrix(before[:: max(1, len(before) // 2000)])
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
        "model.train_tokens": log["train_tokens"],
        "model.random_cos_sd": round(float(sample[np.triu_indices(len(sample), 1)].std()), 3),
        "batch.positions": log["batch_positions"],
        "cat.gap_chance_sd": _gap_chance_sd(config["hidden_size"]),
        "idnb.cat_parts": _merge_parts(model, "猫"),
    }
    values["idnb.category_hits"], values["idnb.chance"] = id_category_hits(model)
    for stage in ("before", "after"):
        table = model.table(stage)
        for name, (a, b) in PAIRS.items():
            rows = table.lookup([model.scheme.single_id(a), model.scheme.single_id(b)])
            values[f"cos.{stage}.{name}"] = round(float(cosine_matrix(rows)[0, 1]), 3)
        for cat, gap in category_gaps(model, stage).items():
            values[f"cat.{cat}.gap.{stage}"] = gap
    values.update(_analogy_facts(model))
    run = trajectory.load(model_dir)
    values["trajectory.steps"] = run.steps
    values["trajectory.tokens"] = len(run.tokens)
    values["trajectory.contrast_start"] = round(float(run.contrast[0]), 3)
    values["trajectory.contrast_end"] = round(float(run.contrast[-1]), 3)
    return values


def _row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def _measure_rows(model_dir: Path, zh_train: str) -> dict[str, object]:
    """Which rows training touched: an input row moves only when its token is read; every
    output row moves, since each step pushes down the scores of all tokens but the target."""
    model = open_model(model_dir)
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    eot = tok.token_to_id("<|endoftext|>")
    ids: list[int] = []
    for enc in tok.encode_batch([line for line in zh_train.splitlines() if line.strip()]):
        ids.extend([*enc.ids, eot])
    stream = np.asarray(ids, dtype=np.int64)
    vocab = model.scheme.vocab_size
    never = np.flatnonzero(np.bincount(stream, minlength=vocab)[:vocab] == 0)
    seen = np.setdiff1d(np.arange(vocab), never)
    before, after = model.table("before").weights, model.table("after").weights
    head_before = EmbeddingTable.from_safetensors(model_dir / BEFORE_FILE, HEAD_KEY).weights
    head_after = EmbeddingTable.from_safetensors(model_dir / WEIGHTS_FILE, HEAD_KEY).weights
    norm = np.linalg.norm
    # Distinct rows a batch reads: the context windows of `batch` random positions.
    rng = np.random.default_rng(0)
    context, batch = config["context"], config["batch"]
    reads = [
        np.unique(
            stream[rng.integers(context, len(stream), batch)[:, None] - np.arange(1, 1 + context)]
        ).size
        for _ in range(50)
    ]
    return {
        "rows.never_seen_share": _share(len(never), vocab),
        "rows.never_seen_cos": round(float(_row_cosines(before[never], after[never]).min()), 4),
        "rows.never_seen_norm_ratio": round(
            float((norm(after[never], axis=1) / norm(before[never], axis=1)).mean()), 3
        ),
        "rows.seen_cos_mean": round(float(_row_cosines(before[seen], after[seen]).mean()), 3),
        "rows.head_never_seen_cos_mean": round(
            float(_row_cosines(head_before[never], head_after[never]).mean()), 3
        ),
        "batch.input_rows_mean": round(float(np.mean(reads)), 1),
    }


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
