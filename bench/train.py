"""Training: tokens/s and wall time for the shipped model's configuration on this machine.

`tutor.core.train.train` with `TrainConfig()` (the configuration the shipped model was
built with), the shipped zh corpus and the byte-bpe-zh tokenizer, on CPU. At every
evaluation (every `eval_every` steps, as the shipped run does) the `on_eval` callback
reads the input table and records the acceptance gap cos(猫, 狗) - cos(猫, 汽车); the
first step where it exceeds 0.2 is reported with the wall time at that moment (counted
from the call to train(), so it includes encoding the corpus), next to the gap of the
random initial table (which may clear the bar by chance) and the step from which the gap
stays above 0.2 at every later evaluation.
`--quick` trains 20 small steps on a slice of the corpus.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, replace

import numpy as np
from _common import emit, machine, parse_args

from tutor.core.paths import corpus_dir, tokenizers_dir
from tutor.core.similarity import cosine_matrix
from tutor.core.tokenize import load_scheme

GAP_PAIR = ("猫", "狗", "汽车")
GAP_THRESHOLD = 0.2
TOKENIZER = "byte-bpe-zh"


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(__doc__, argv)
    info = machine()
    start = time.perf_counter()
    import torch
    from tokenizers import Tokenizer

    from tutor.core.train import EMBED_KEY, TinyLM, TrainConfig, train

    import_s = time.perf_counter() - start
    path = tokenizers_dir() / f"{TOKENIZER}.json"
    tokenizer = Tokenizer.from_file(str(path))
    ids = [load_scheme(path, TOKENIZER).single_id(p) for p in GAP_PAIR]
    train_text = (corpus_dir() / "zh" / "train.txt").read_text(encoding="utf-8")
    valid_text = (corpus_dir() / "zh" / "valid.txt").read_text(encoding="utf-8")
    cfg = TrainConfig()
    if args.quick:
        cfg = replace(cfg, steps=20, batch=256, eval_every=10)
        train_text, valid_text = train_text[:50_000], valid_text[:10_000]

    gaps: list[tuple[int, float, float]] = []  # step, gap, seconds since train() was called

    def gap(table: torch.Tensor) -> float:
        cos = cosine_matrix(table.detach()[ids].numpy().astype(np.float64))
        return float(cos[0, 1] - cos[0, 2])

    def on_eval(model: TinyLM, step: int) -> None:
        gaps.append((step, gap(model.model.embed_tokens.weight), time.perf_counter() - began))

    began = time.perf_counter()
    _, before, log = train(tokenizer, train_text, valid_text, cfg, on_eval=on_eval)
    wall_s = time.perf_counter() - began
    reached = next(((s, g, t) for s, g, t in gaps if g > GAP_THRESHOLD), None)
    # the seed's random table may clear the bar by chance: also say from when on it stays
    last_below = max((i for i, (_, g, _) in enumerate(gaps) if g <= GAP_THRESHOLD), default=-1)
    holds = gaps[last_below + 1] if last_below + 1 < len(gaps) else None
    emit(
        {
            "benchmark": "train",
            "machine": info,
            "quick": args.quick,
            "config": asdict(cfg),
            "tokenizer": TOKENIZER,
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "import_torch_s": round(import_s, 2),
            "train_tokens": log.train_tokens,
            "tokens_per_s": log.tokens_per_s,
            "train_loop_s": log.wall_time_s,
            "wall_s": round(wall_s, 2),
            "final_val_loss": log.val_loss[-1],
            "gap": f"cos({GAP_PAIR[0]},{GAP_PAIR[1]}) - cos({GAP_PAIR[0]},{GAP_PAIR[2]})",
            "gap_threshold": GAP_THRESHOLD,
            "gap_at_init": round(gap(before[EMBED_KEY]), 3),
            "gap_by_eval": [
                {"step": s, "gap": round(g, 3), "s_since_call": round(t, 2)} for s, g, t in gaps
            ],
            "gap_first_step": reached[0] if reached else None,
            "gap_first_s_since_call": round(reached[2], 2) if reached else None,
            "gap_holds_from_step": holds[0] if holds else None,
            "gap_holds_from_s_since_call": round(holds[2], 2) if holds else None,
            "gap_step_resolution": cfg.eval_every,
        }
    )


if __name__ == "__main__":
    main()
