"""The lesson's claims about a model's first layer, as runs `tutor assets build` records.

- inputs (pages 3-4): one tiny next-token model trained three ways from the same seed,
  batches and optimizer, differing only in how a token ID enters it: the ID as one number
  (scaled) times a learned vector, a real V-wide one-hot row times a V x d matrix, and a
  table lookup. One-hot and lookup compute the same numbers; the one-hot costs more.
- width (the lesson's "why a vector"): the same model with input rows d = 1 ... 64 wide,
  everything after the first layer the same width, so only the rows' width changes.

Imports torch (through tutor.core.train): the app reads the written file and never this
module. No clock is written, so two builds write the same bytes (see build.py).
"""

from __future__ import annotations

# isort: off
from tutor.core.train import TrainConfig, encode_lines, make_scheduler
# isort: on

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn

from tutor.core.experiment_record import FILE, SCHEMES, WIDTHS
from tutor.core.measure import CATEGORIES
from tutor.core.trajectory import category_contrast

# Short runs: the whole file costs about a tenth of the build. Same seed, batches and
# optimizer (AdamW, one-cycle) for every run; only the first layer differs.
RUN = TrainConfig(hidden_size=32, steps=300, batch=256, eval_every=30)
WIDTH_STEPS = 600  # longer: the categories separate only after the loss has fallen
HIDDEN, MIXER_OUT = 128, 64  # the mixer's widths, fixed whatever the input rows' width
EVAL_POSITIONS = 8192  # the validation text's first positions: same data at every eval
EVAL_CHUNK = 512  # a one-hot chunk is 512 x 6 x V floats (47 MB at V = 3805)
FLOAT_BYTES = 4


class OneHotRows(nn.Module):
    """A real one-hot row per token (V wide) times a V x d matrix: the lookup as a product."""

    def __init__(self, table: nn.Embedding) -> None:
        super().__init__()
        self.weight = nn.Parameter(table.weight.detach().clone())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        one_hot = self.weight.new_zeros(*ids.shape, self.weight.shape[0])
        return one_hot.scatter_(-1, ids[..., None], 1.0) @ self.weight


class IdNumber(nn.Module):
    """The naive scheme: the ID divided by V, one number, times one learned vector."""

    def __init__(self, table: nn.Embedding) -> None:
        super().__init__()
        self.vocab_size = table.weight.shape[0]
        # The drawn table's first row: a fresh N(0, 0.02) vector without another draw, so
        # the layers after this one start from the same numbers as in the other two runs.
        self.vector = nn.Parameter(table.weight.detach()[0].clone())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return (ids.to(self.vector.dtype) / self.vocab_size)[..., None] * self.vector


class ExperimentLM(nn.Module):
    """The project model's shape (rows -> MLP mixer -> LayerNorm -> untied head), with the
    first layer chosen by `scheme` and every width after it fixed."""

    def __init__(self, vocab_size: int, cfg: TrainConfig, scheme: str) -> None:
        super().__init__()
        table = nn.Embedding(vocab_size, cfg.hidden_size)
        nn.init.normal_(table.weight, std=0.02)
        layers = {
            "table": lambda: table,
            "onehot": lambda: OneHotRows(table),
            "id-number": lambda: IdNumber(table),
        }
        self.rows = layers[scheme]()
        self.mix = nn.Linear(cfg.context * cfg.hidden_size, HIDDEN)
        self.out = nn.Linear(HIDDEN, MIXER_OUT)
        self.norm = nn.LayerNorm(MIXER_OUT)
        self.head = nn.Linear(MIXER_OUT, vocab_size, bias=False)

    def forward(self, context_ids: torch.Tensor) -> torch.Tensor:
        rows = self.rows(context_ids)
        return self.head(self.norm(self.out(torch.tanh(self.mix(rows.flatten(1))))))

    def table(self) -> np.ndarray:
        """The V x d input rows (the one-hot's matrix is its table)."""
        return self.rows.weight.detach().numpy().astype(np.float64)


@dataclass
class Run:
    steps: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0  # printed by the build, never written


def _windows(stream: torch.Tensor, positions: torch.Tensor, context: int) -> torch.Tensor:
    return stream[positions[:, None] + torch.arange(-context, 0)[None, :]]


def _val_loss(model: ExperimentLM, stream: torch.Tensor, context: int) -> float:
    positions = torch.arange(context, len(stream))[:EVAL_POSITIONS]
    total = 0.0
    model.eval()
    with torch.no_grad():
        for chunk in positions.split(EVAL_CHUNK):
            logits = model(_windows(stream, chunk, context))
            total += nn.functional.cross_entropy(logits, stream[chunk], reduction="sum").item()
    model.train()
    return total / len(positions)


def train_run(
    model: ExperimentLM,
    streams: tuple[torch.Tensor, torch.Tensor],
    cfg: TrainConfig,
) -> Run:
    """Train as tutor.core.train does (one thread, deterministic kernels, its own batch
    generator), evaluating at step 0 and every `eval_every` steps."""
    train_stream, valid_stream = streams
    generator = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = make_scheduler(opt, cfg)
    run = Run(steps=[0], val_loss=[round(_val_loss(model, valid_stream, cfg.context), 4)])
    for step in range(1, cfg.steps + 1):
        positions = torch.randint(cfg.context, len(train_stream), (cfg.batch,), generator=generator)
        began = time.perf_counter()
        loss = nn.functional.cross_entropy(
            model(_windows(train_stream, positions, cfg.context)), train_stream[positions]
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        run.seconds += time.perf_counter() - began
        if step % cfg.eval_every == 0 or step == cfg.steps:
            run.steps.append(step)
            run.val_loss.append(round(_val_loss(model, valid_stream, cfg.context), 4))
    return run


def _model(vocab_size: int, cfg: TrainConfig, scheme: str) -> ExperimentLM:
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(cfg.seed)
    return ExperimentLM(vocab_size, cfg, scheme)


def first_layer_cost(scheme: str, vocab_size: int, cfg: TrainConfig) -> dict[str, int]:
    """What the first layer builds and multiplies for one batch (counted, not timed, so the
    file stays the same from build to build): the tensors' bytes and the multiply-adds."""
    positions = cfg.batch * cfg.context
    rows = positions * cfg.hidden_size
    if scheme == "onehot":
        return {
            "bytes_per_step": FLOAT_BYTES * (positions * vocab_size + rows),
            "multiply_adds_per_step": rows * vocab_size,
        }
    if scheme == "id-number":
        return {"bytes_per_step": FLOAT_BYTES * (positions + rows), "multiply_adds_per_step": rows}
    return {"bytes_per_step": FLOAT_BYTES * rows, "multiply_adds_per_step": 0}


def unigram_loss(train_ids: np.ndarray, valid_ids: np.ndarray, vocab_size: int) -> float:
    """Validation loss of always predicting the training text's token frequencies (add-one,
    so a token unseen in training costs a finite amount)."""
    counts = np.bincount(train_ids, minlength=vocab_size)[:vocab_size] + 1.0
    log_p = np.log(counts / counts.sum())
    return round(float(-log_p[valid_ids].mean()), 4)


def _inputs(vocab_size: int, streams: tuple[torch.Tensor, torch.Tensor], say) -> dict:
    runs, curves = [], {}
    for scheme in SCHEMES:
        say(f"experiment inputs {scheme} ...")
        run = train_run(_model(vocab_size, RUN, scheme), streams, RUN)
        say(f"  {run.seconds / RUN.steps * 1000:.1f} ms per step, final {run.val_loss[-1]}")
        curves[scheme] = run.val_loss
        runs.append(
            {
                "scheme": scheme,
                "steps": run.steps,
                "val_loss": run.val_loss,
                **first_layer_cost(scheme, vocab_size, RUN),
            }
        )
    diff = max(abs(a - b) for a, b in zip(curves["onehot"], curves["table"], strict=True))
    return {"runs": runs, "max_abs_diff_onehot_table": round(diff, 4)}


def _width(
    vocab_size: int,
    streams: tuple[torch.Tensor, torch.Tensor],
    ids: Sequence[Sequence[int]],
    say: Callable[[str], None],
) -> dict:
    members = [i for group in ids for i in group]
    groups = [list(range(n * len(g), (n + 1) * len(g))) for n, g in enumerate(ids)]
    runs, coords = [], {}
    for d in WIDTHS:
        say(f"experiment width d={d} ...")
        cfg = replace(RUN, hidden_size=d, steps=WIDTH_STEPS, eval_every=WIDTH_STEPS)
        model = _model(vocab_size, cfg, "table")
        before = model.table()[members]
        run = train_run(model, streams, cfg)
        rows = model.table()[members]
        runs.append(
            {
                "d": d,
                "val_loss": run.val_loss[-1],
                "contrast": round(category_contrast(rows, groups), 4),
                "contrast_before": round(category_contrast(before, groups), 4),
            }
        )
        say(f"  validation loss {run.val_loss[-1]}, contrast {runs[-1]['contrast']}")
        if d <= 2:
            coords[f"d{d}"] = np.round(rows, 4).tolist()
    return {"runs": runs, "coords": coords}


def _single_id(tokenizer: Tokenizer, word: str) -> int:
    ids = tokenizer.encode(word).ids
    if len(ids) != 1:
        raise ValueError(f"{word!r} is {len(ids)} tokens of the project tokenizer, not one")
    return ids[0]


def record(tokenizer: Tokenizer, train_text: str, valid_text: str, say=print) -> dict:
    """Both experiments' numbers, as experiments.json holds them."""
    vocab_size = tokenizer.get_vocab_size()
    train_ids = encode_lines(tokenizer, train_text)
    valid_ids = encode_lines(tokenizer, valid_text)
    streams = (torch.from_numpy(train_ids), torch.from_numpy(valid_ids))
    categories = {kind: list(words) for kind, words in CATEGORIES.items()}
    ids = [[_single_id(tokenizer, w) for w in words] for words in categories.values()]
    eval_targets = valid_ids[RUN.context :][:EVAL_POSITIONS]
    return {
        "vocab_size": vocab_size,
        "steps": RUN.steps,
        "width_steps": WIDTH_STEPS,
        "batch": RUN.batch,
        "context": RUN.context,
        "d": RUN.hidden_size,
        "eval_positions": len(eval_targets),
        "chance": round(math.log(vocab_size), 4),
        "unigram": unigram_loss(train_ids, eval_targets, vocab_size),
        "inputs": _inputs(vocab_size, streams, say),
        "categories": categories,
        "width": _width(vocab_size, streams, ids, say),
    }


def write(out: Path, recorded: dict) -> None:
    text = json.dumps(recorded, ensure_ascii=False, indent=1) + "\n"
    (out / FILE).write_text(text, encoding="utf-8")
