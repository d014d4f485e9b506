"""Search over a real-scale table: top-k cosine neighbours against one streaming read.

The script writes a V = 248,320 x d = 256 float32 table of random values as a model
directory (model.safetensors, written in chunks so it never sits in this process's memory,
plus a WordLevel tokenizer.json with one token per row), opens it with
`tutor.core.model.open_model`, and asks `tutor.core.similarity.nearest(..., "after")`
for a random token's neighbours: the code path the tutor's neighbour panel takes, over
the memory-mapped table. The yardstick, in the same run and alternating with the queries,
is one plain sum over the same mapped table (one streaming read of every byte).

Memory: the peak RSS (VmHWM, reset just before the first read) minus the RSS before it.
Touching every page of a mapped table puts the whole table in RSS once (file pages, shared
with the page cache); a per-query copy would add the table again (anonymous pages).
"""

from __future__ import annotations

import json
import random
import statistics
import struct
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from _common import emit, machine, mb, parse_args, proc_status, reset_peak_rss
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import WhitespaceSplit

from tutor.core.model import open_model
from tutor.core.similarity import nearest

KEY = "model.embed_tokens.weight"
K = 10
CHUNK_ROWS = 8192


def write_model(directory: Path, vocab: int, dim: int, seed: int = 0) -> int:
    """A model dir with a random table; returns the table's size in bytes."""
    size = vocab * dim * 4
    header = json.dumps({KEY: {"dtype": "F32", "shape": [vocab, dim], "data_offsets": [0, size]}})
    header += " " * (-len(header) % 8)  # safetensors aligns the data to 8 bytes
    rng = np.random.default_rng(seed)
    with (directory / "model.safetensors").open("wb") as f:
        f.write(struct.pack("<Q", len(header)) + header.encode())
        for start in range(0, vocab, CHUNK_ROWS):
            rows = min(CHUNK_ROWS, vocab - start)
            f.write(rng.standard_normal((rows, dim), dtype=np.float32).tobytes())
    words = {"[UNK]": 0, **{f"t{i}": i for i in range(1, vocab)}}
    tokenizer = Tokenizer(WordLevel(words, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = WhitespaceSplit()
    tokenizer.save(str(directory / "tokenizer.json"))
    (directory / "config.json").write_text(json.dumps({"vocab_size": vocab, "hidden_size": dim}))
    return size


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(__doc__, argv)
    info = machine()
    vocab, dim, rounds = (4096, 64, 3) if args.quick else (248_320, 256, 20)
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as tmp:
        directory = Path(tmp)
        table_bytes = write_model(directory, vocab, dim)
        model = open_model(directory)
        weights = model.table("after").weights
        pieces = random.Random(0).sample(range(1, vocab), rounds + 1)

        reset_peak_rss()
        before = proc_status()
        start = time.perf_counter()
        first = nearest(model, f"t{pieces[0]}", "after", K)
        first_query_s = time.perf_counter() - start  # includes the once-per-table row norms
        sums, queries = [], []
        for piece in pieces[1:]:
            start = time.perf_counter()
            total = float(weights.sum())
            sums.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = nearest(model, f"t{piece}", "after", K)
            queries.append(time.perf_counter() - start)
        after = proc_status()

    assert len(first.neighbours) == K and len(result.neighbours) == K
    assert np.isfinite(total)
    growth = after["VmHWM"] - before["VmRSS"]
    sum_median = statistics.median(sums)
    query_median = statistics.median(queries)
    ratio = query_median / sum_median
    emit(
        {
            "benchmark": "search",
            "machine": info,
            "quick": args.quick,
            "method": "tutor.core.similarity.nearest(model, token, 'after', k) over a "
            "memory-mapped random table, alternating with table.sum() over the same map",
            "vocab": vocab,
            "dim": dim,
            "k": K,
            "rounds": rounds,
            "table_mb": mb(table_bytes),
            "first_query_ms": round(first_query_s * 1000, 1),
            "query_median_ms": round(query_median * 1000, 1),
            "sum_median_ms": round(sum_median * 1000, 1),
            "ratio_query_to_sum": round(ratio, 3),
            "rss_before_mb": mb(before["VmRSS"]),
            "peak_rss_growth_mb": mb(growth),
            "peak_growth_to_table": round(growth / table_bytes, 3),
            "rss_file_growth_mb": mb(after["RssFile"] - before["RssFile"]),
            "rss_anon_growth_mb": mb(after["RssAnon"] - before["RssAnon"]),
            "targets": {"ratio_query_to_sum": 2, "peak_growth_to_table": 1.2},
            "target_met": {
                "ratio_query_to_sum": ratio <= 2,
                "peak_growth_to_table": growth / table_bytes <= 1.2,
            },
        }
    )


if __name__ == "__main__":
    main()
