"""Facts the numbers lesson measures at run time on the shipped artifacts, not in the
assets build: the loss at step 0 against ln V, and how far each input row turned in
training against how often its token was read, by frequency band, with the spread a band
of the same size drawn at random would show beside it. And page 10's renumbering
experiment (tutor.core.renumber) over a fixed set of seeds: the loss with the IDs renumbered
consistently and with the tokenizer's alone, ln V beside them.

Computed once per set of artifacts (tokenizing the training corpus takes a few seconds)
and kept in the cache dir; the app then reads a small JSON file.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.core.hf import BEFORE_FILE

if TYPE_CHECKING:
    import numpy as np

KEPT = "run-facts.json"
MODEL = Path("models") / "project"
CORPUS = Path("corpus") / "zh" / "train.txt"
VALID = Path("corpus") / "zh" / "valid.txt"  # the renumbering's loss sample
INPUTS = ("trajectory.json", "model.safetensors", BEFORE_FILE, "tokenizer.json", "config.json")
# count of a token as an input in the training stream: (name, lowest, highest)
BANDS = (
    ("never", 0, 0),
    ("rare", 1, 9),
    ("few", 10, 99),
    ("common", 100, 999),
    ("frequent", 1000, None),
)
PERMUTATIONS = 200
# page 10's renumbering: every seed the facts average over (fixed, none picked), and the
# page's sentence (also `tutor experiment renumber`'s default)
RENUMBER_SEEDS = range(1, 6)
RENUMBER_SENTENCE = "小明把苹果给了"
SOURCE = "tutor facts --key {key}"
VERSION = 3  # bump when a figure's definition changes


class MeasureError(ValueError):
    """The child process that measures the run-time facts kept nothing (the message says why)."""


def _fact(key: str, value: float | int, unit: str, zh: str, en: str) -> dict[str, object]:
    return {
        "key": key,
        "value": value,
        "unit": unit,
        "evidence": "measured",
        "source": SOURCE.format(key=key),
        "label_zh": zh,
        "label_en": en,
    }


def _inputs(assets: Path) -> list[Path] | None:
    paths = [assets / MODEL / name for name in INPUTS] + [assets / CORPUS, assets / VALID]
    return paths if all(path.is_file() for path in paths) else None


def _key(assets: Path, paths: list[Path]) -> str:
    """The artifacts' identity: their MANIFEST hashes when there is one, else size and time."""
    try:
        files = json.loads((assets / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
        parts = [files[path.relative_to(assets).as_posix()] for path in paths]
    except (OSError, ValueError, KeyError):
        parts = [f"{path.stat().st_size}:{path.stat().st_mtime_ns}" for path in paths]
    return hashlib.sha256(f"{VERSION}|{assets}|{'|'.join(parts)}".encode()).hexdigest()


def input_counts(assets: Path) -> np.ndarray:
    """How often each token ID is read as an input: the training corpus through the model's
    tokenizer, each line ended by <|endoftext|>, as the training stream is built."""
    import numpy as np
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(assets / MODEL / "tokenizer.json"))
    vocab = tok.get_vocab_size()
    eot = tok.token_to_id("<|endoftext|>")
    counts = np.zeros(vocab, dtype=np.int64)
    lines = [line for line in (assets / CORPUS).read_text("utf-8").splitlines() if line.strip()]
    for start in range(0, len(lines), 4096):  # bounded batches: a few MB at a time
        for enc in tok.encode_batch(lines[start : start + 4096]):
            counts += np.bincount(enc.ids, minlength=vocab)[:vocab]
        counts[eot] += len(lines[start : start + 4096])
    return counts


def row_cosines(assets: Path) -> np.ndarray:
    """Each input row's cosine between the random start and the trained table."""
    import numpy as np

    from tutor.core.table import EmbeddingTable

    model = assets / MODEL
    before = EmbeddingTable.from_safetensors(model / BEFORE_FILE).weights.astype(np.float64)
    after = EmbeddingTable.from_safetensors(model / "model.safetensors").weights.astype(np.float64)
    norms = np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1)
    return (before * after).sum(1) / norms


def _band_facts(counts: np.ndarray, cosines: np.ndarray) -> list[dict[str, object]]:
    import numpy as np

    facts = []
    seen = cosines[counts > 0]
    rng = np.random.default_rng(0)
    for name, low, high in BANDS:
        members = (counts >= low) & (counts <= (high if high is not None else counts.max()))
        size = int(members.sum())
        words = f"{low}–{high}" if high is not None else f"≥ {low}"
        words = "0" if high == 0 else words
        facts.append(
            _fact(
                f"moved.{name}.tokens",
                size,
                "个",
                f"训练集里出现 {words} 次的 token",
                f"tokens read {words} times in training",
            )
        )
        facts.append(
            _fact(
                f"moved.{name}.cos",
                round(float(cosines[members].mean()), 3) if size else float("nan"),
                "",
                f"出现 {words} 次的 token：输入行训练前后的平均余弦",
                f"tokens read {words} times: mean before/after cosine of the input row",
            )
        )
        if name == "never" or size == 0:
            continue
        # the spread of a band's mean if frequency did not matter: as many seen rows at random
        drawn = [rng.choice(seen, size, replace=False).mean() for _ in range(PERMUTATIONS)]
        facts.append(
            _fact(
                f"moved.{name}.chance_sd",
                round(float(np.std(drawn)), 3),
                "",
                f"随机抽同样多个出现过的 token，平均余弦的标准差（{PERMUTATIONS} 次）",
                f"sd of the mean cosine of as many seen tokens at random ({PERMUTATIONS} draws)",
            )
        )
    facts.append(
        _fact(
            "moved.seen_cos_mean",
            round(float(seen.mean()), 3),
            "",
            "出现过的 token：输入行训练前后的平均余弦",
            "seen tokens: mean before/after cosine of the input row",
        )
    )
    return facts


def _loss_facts(assets: Path) -> list[dict[str, object]]:
    run = json.loads((assets / MODEL / "trajectory.json").read_text(encoding="utf-8"))
    vocab = json.loads((assets / MODEL / "config.json").read_text(encoding="utf-8"))["vocab_size"]
    start = float(run["val_loss"][0])
    assert run["steps"][0] == 0, "the recorded run starts at step 0"
    return [
        _fact(
            "loss.step0",
            round(start, 2),
            "",
            "第 0 步（随机起点）的验证集 loss",
            "validation loss at step 0 (the random start)",
        ),
        _fact(
            "loss.step0_over_ln_v",
            round(start - math.log(vocab), 2),
            "",
            "第 0 步的 loss 比 ln V 高出多少",
            "how far the loss at step 0 lies above ln V",
        ),
    ]


def _renumber_facts(assets: Path) -> list[dict[str, object]]:
    """Page 10's experiment on RENUMBER_SEEDS: the loss on the page's validation sample as
    shipped and, averaged over the seeds, with the tokenizer's IDs alone renumbered (its
    lowest and highest beside); the largest change of any next-token probability of the
    page's sentence under a consistent renumbering; ln V."""
    from tutor.core.renumber import SAMPLE_POSITIONS, Experiment

    experiment = Experiment.open(assets / MODEL)
    garbled = [experiment.tokenizer_only_loss(seed) for seed in RENUMBER_SEEDS]
    diff = max(
        experiment.sentence(seed, RENUMBER_SENTENCE).consistent_max_abs_diff
        for seed in RENUMBER_SEEDS
    )
    seeds = f"{RENUMBER_SEEDS.start}–{RENUMBER_SEEDS.stop - 1}"
    sample = f"{SAMPLE_POSITIONS:,}"

    def loss(key: str, value: float, zh: str, en: str) -> dict[str, object]:
        return _fact(f"renumber.{key}", round(value, 3), "", zh, en)

    return [
        loss(
            "val_loss",
            experiment.val_loss(),
            f"项目模型在验证集前 {sample} 个位置上的 loss",
            f"the project model's loss on the first {sample} validation positions",
        ),
        loss(
            "chance",
            experiment.chance,
            "均匀瞎猜的 loss（ln V）",
            "loss of a uniform guess (ln V)",
        ),
        loss(
            "tokenizer_only_val_loss",
            sum(garbled) / len(garbled),
            f"只换分词器编号后的验证集 loss（置换种子 {seeds} 的平均）",
            f"validation loss with only the tokenizer's IDs renumbered (mean of seeds {seeds})",
        ),
        loss(
            "tokenizer_only_val_loss_min",
            min(garbled),
            f"只换分词器编号后的验证集 loss，种子 {seeds} 中最低",
            f"the same, lowest of seeds {seeds}",
        ),
        loss(
            "tokenizer_only_val_loss_max",
            max(garbled),
            f"只换分词器编号后的验证集 loss，种子 {seeds} 中最高",
            f"the same, highest of seeds {seeds}",
        ),
        _fact(
            "renumber.consistent_max_abs_diff",
            float(f"{diff:.1g}"),
            "",
            f"一致地换编号后，句子每个位置、每个 token 的概率最大变了多少（种子 {seeds}）",
            f"largest change of any next-token probability under a consistent renumbering "
            f"(seeds {seeds})",
        ),
    ]


RENUMBER_KEYS = (
    "renumber.val_loss",
    "renumber.chance",
    "renumber.tokenizer_only_val_loss",
    "renumber.tokenizer_only_val_loss_min",
    "renumber.tokenizer_only_val_loss_max",
    "renumber.consistent_max_abs_diff",
)


def keys_for(assets: Path) -> list[str]:
    """The run-time fact keys `assets` has (none without the project model or corpus)."""
    if _inputs(assets) is None:
        return []
    keys = ["loss.step0", "loss.step0_over_ln_v", "moved.seen_cos_mean", *RENUMBER_KEYS]
    for name, _low, _high in BANDS:
        keys += [f"moved.{name}.tokens", f"moved.{name}.cos"]
        keys += [] if name == "never" else [f"moved.{name}.chance_sd"]
    return keys


def _kept(assets: Path) -> tuple[Path, str]:
    from tutor.core.paths import default_cache_dir

    paths = _inputs(assets)
    assert paths is not None
    return default_cache_dir() / KEPT, _key(assets, paths)


def runtime_facts(assets: Path) -> list[dict[str, object]]:
    """The run-time facts of `assets` (see `_measured`)."""
    if _inputs(assets) is None:
        return []
    return _measured(assets)["facts"]


def runtime_input_counts(assets: Path) -> list[int]:
    """How often each token ID is read as an input in training (`input_counts`), kept
    with the facts: the pages that sort tokens by it need not tokenize the corpus again."""
    if _inputs(assets) is None:
        raise MeasureError(f"{assets} has no project model and corpus to count tokens in")
    return _measured(assets)["input_counts"]


def _measured(assets: Path) -> dict[str, Any]:
    """What the child process keeps, from the cache dir when these artifacts were measured
    before, else measured now in a child process (tokenizing the corpus peaks near 300 MB,
    which the learner's process should not carry). MeasureError if it cannot measure."""
    import subprocess
    import sys

    from tutor.cachefile import read_cached

    kept, key = _kept(assets)
    data = read_cached(kept, key)
    if data is None:
        command = [sys.executable, "-m", "tutor.core.runfacts", str(assets)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        data = read_cached(kept, key)
        if data is None:
            why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
            raise MeasureError(f"the run-time facts of {assets} could not be measured: {why[0]}")
    return data


def main(argv: list[str]) -> int:
    """`python -m tutor.core.runfacts ASSETS`: measure and keep the run-time facts."""
    from tutor.cachefile import write_cached
    from tutor.core.live import past_the_session_ceiling

    past_the_session_ceiling()  # tokenizing the corpus peaks near 300 MB, once per cache
    assets = Path(argv[0])
    kept, key = _kept(assets)
    counts = input_counts(assets)
    facts = _loss_facts(assets) + _band_facts(counts, row_cosines(assets))
    facts += _renumber_facts(assets)
    write_cached(kept, key, {"facts": facts, "input_counts": counts.tolist()})
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
