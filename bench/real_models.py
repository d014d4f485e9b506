"""Real-model shapes on the command line: how long `tutor --model DIR neighbours cat` and
`analogy king man woman` take, from a fresh process, for the tables people open.

Three model directories, written by this script in a temporary folder with random rows
and a BERT-style WordPiece vocabulary ([PAD], [unused0..98], [UNK], [CLS], [SEP], [MASK],
then words), then deleted:
- 30,522 x 384 float32, config `bert` (MiniLM's shape);
- 30,527 x 768 float32, config `mpnet` (MPNet's shape);
- a static model (model2vec): 29,528 token IDs mapped onto 10,000 int8 rows x 256, with
  per-row scales.

Each command runs in its own `python -m tutor` process (import, open, tokenizer, one
query, exit) as a learner's command does; the figure is the median wall time of the runs.
--quick writes tables of 2,000 rows and runs each command once.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import emit, machine, parse_args, tutor_root
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, pre_tokenizers

WORDS = ["cat", "dog", "king", "man", "woman", "queen", "paris", "france", "germany"]
RUNS = 3


def vocabulary(size: int) -> dict[str, int]:
    head = ["[PAD]", *(f"[unused{i}]" for i in range(99)), "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = head + WORDS
    words += [f"w{i}" for i in range(size - len(words))]
    return {word: i for i, word in enumerate(words)}


def write_tokenizer(directory: Path, size: int) -> None:
    tok = Tokenizer(models.WordPiece(vocabulary(size), unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.save(str(directory / "tokenizer.json"))


def write_encoder(directory: Path, vocab: int, dim: int, model_type: str) -> None:
    directory.mkdir(parents=True)
    write_tokenizer(directory, vocab)
    rng = np.random.default_rng(0)
    table = rng.standard_normal((vocab, dim), dtype=np.float32)
    save_file({"embeddings.word_embeddings.weight": table}, str(directory / "model.safetensors"))
    config = {"model_type": model_type, "vocab_size": vocab, "hidden_size": dim}
    (directory / "config.json").write_text(json.dumps(config))


def write_static(directory: Path, ids: int, rows: int, dim: int) -> None:
    directory.mkdir(parents=True)
    write_tokenizer(directory, ids)
    rng = np.random.default_rng(0)
    tensors = {
        "embeddings": rng.integers(-127, 128, (rows, dim)).astype(np.int8),
        "scales": rng.uniform(0.001, 0.01, rows).astype(np.float32),
        "mapping": rng.integers(0, rows, ids).astype(np.int64),
    }
    save_file(tensors, str(directory / "model.safetensors"))
    (directory / "config.json").write_text(json.dumps({"model_type": "model2vec"}))


def timed(model: Path, *argv: str, runs: int) -> float:
    """Median wall seconds of `tutor --model DIR ARGV --json` in a fresh process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tutor", "--model", str(model), *argv, "--json"],
            cwd=tutor_root(),
            capture_output=True,
            check=True,
            timeout=300,
        )
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 3)


def main() -> None:
    args = parse_args(__doc__)
    runs = 1 if args.quick else RUNS
    shapes = {
        "minilm": (2_000 if args.quick else 30_522, 384, "bert"),
        "mpnet": (2_000 if args.quick else 30_527, 768, "mpnet"),
    }
    result: dict[str, object] = {
        "benchmark": "real_models",
        "quick": args.quick,
        "machine": machine(),
        "runs_each": runs,
        "models": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for name, (vocab, dim, model_type) in shapes.items():
            folders[name] = Path(tmp) / name
            write_encoder(folders[name], vocab, dim, model_type)
        folders["static"] = Path(tmp) / "static"
        static_ids = 2_000 if args.quick else 29_528
        write_static(folders["static"], static_ids, 1_000 if args.quick else 10_000, 256)
        for name, folder in folders.items():
            result["models"][name] = {  # type: ignore[index]
                "shape": [*shapes.get(name, (static_ids, 256))[:2]],
                "neighbours_s": timed(folder, "neighbours", "cat", runs=runs),
                "analogy_s": timed(folder, "analogy", "king", "man", "woman", runs=runs),
            }
    emit(result)


if __name__ == "__main__":
    main()
