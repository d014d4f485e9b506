"""Train the project model: the only module that imports torch.

A tiny next-token language model in the spirit of Bengio et al. (2003): the previous
`context` tokens are looked up in the input table E (V x d), mixed by a small MLP, and
scored against every token by an untied output head (V x d). Next-token training is what
pulls the rows of tokens used alike together, which the lesson's heatmap shows.
"""

from __future__ import annotations

# isort: off
import tutor.core.kernels  # noqa: F401  (first: pins torch's CPU kernels before it loads)
# isort: on

import json
import math
import os
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer
from torch import nn

from tutor.core.trajectory import META_FILE as TRAJECTORY_META
from tutor.core.trajectory import ROWS_FILE as TRAJECTORY_ROWS
from tutor.core.trajectory import Checkpoint, Trajectory

EMBED_KEY = "model.embed_tokens.weight"
HEAD_KEY = "lm_head.weight"
# One thread and deterministic kernels (pinned to AVX2 by tutor/core/kernels.py): the same
# inputs give the same bytes whatever the core count (more threads would change the order of
# floating-point sums).
THREADS = 1


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained numbers; written to config.json."""

    hidden_size: int = 64
    context: int = 6
    mlp_ratio: int = 4  # the mixer's hidden width is mlp_ratio x d, as in transformers
    steps: int = 1500
    batch: int = 2048
    lr: float = 3e-3
    weight_decay: float = 0.01
    seed: int = 0
    eval_every: int = 100


class ContextModel(nn.Module):
    """Input table + a context mixer; the part whose first layer the lesson is about."""

    def __init__(self, vocab_size: int, cfg: TrainConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, cfg.hidden_size)
        # Small random rows (GPT-2's 0.02): training, not the draw, decides where rows go.
        nn.init.normal_(self.embed_tokens.weight, std=0.02)
        hidden = cfg.mlp_ratio * cfg.hidden_size
        self.mix = nn.Linear(cfg.context * cfg.hidden_size, hidden)
        self.out = nn.Linear(hidden, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size)

    def forward(self, context_ids: torch.Tensor) -> torch.Tensor:
        rows = self.embed_tokens(context_ids)  # (B, C, d): the lookup
        return self.norm(self.out(torch.tanh(self.mix(rows.flatten(1)))))


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, cfg: TrainConfig) -> None:
        super().__init__()
        self.model = ContextModel(vocab_size, cfg)
        self.lm_head = nn.Linear(cfg.hidden_size, vocab_size, bias=False)  # untied

    def forward(self, context_ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.model(context_ids))


def encode_lines(tokenizer: Tokenizer, text: str) -> np.ndarray:
    """The whole text as one ID stream, lines separated by the end-of-text token."""
    eot = tokenizer.token_to_id("<|endoftext|>")
    lines = [line for line in text.splitlines() if line.strip()]
    ids: list[int] = []
    for enc in tokenizer.encode_batch(lines):
        ids.extend(enc.ids)
        if eot is not None:
            ids.append(eot)
    return np.asarray(ids, dtype=np.int64)


def _windows(stream: torch.Tensor, positions: torch.Tensor, context: int) -> torch.Tensor:
    offsets = torch.arange(-context, 0)
    return stream[positions[:, None] + offsets[None, :]]


@dataclass
class TrainLog:
    """What train_log.json records."""

    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    val_steps: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    wall_time_s: float = 0.0
    tokens_per_s: float = 0.0
    train_tokens: int = 0
    valid_tokens: int = 0
    batch_positions: int = 0
    batch_distinct_mean: float = 0.0
    parameters: int = 0
    embedding_parameters: int = 0
    head_parameters: int = 0
    threads: int = 0


def _eval_loss(model: TinyLM, stream: torch.Tensor, context: int, limit: int = 65536) -> float:
    """Mean loss on the stream's first `limit` positions: fixed data, no gradients, no
    random numbers, and the model left in the mode it was in."""
    positions = torch.arange(context, len(stream))[:limit]
    total, count = 0.0, 0
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for chunk in positions.split(4096):
            logits = model(_windows(stream, chunk, context))
            total += nn.functional.cross_entropy(logits, stream[chunk], reduction="sum").item()
            count += len(chunk)
    model.train(was_training)
    return total / max(count, 1)


def _checkpoint(
    model: TinyLM,
    step: int,
    ids: torch.Tensor,
    streams: tuple[torch.Tensor, torch.Tensor],
    context: int,
) -> Checkpoint:
    """The recorded tokens' input rows and both losses, read without touching the weights.

    The validation loss is the log's (the whole validation text); the training loss is
    taken on the training text's first TRAIN_LOSS_POSITIONS positions, which keeps 30
    checkpoints to about a fifth of the run's time.
    """
    rows = model.model.embed_tokens.weight.detach()[ids].numpy().astype(np.float32)
    train_stream, valid_stream = streams
    train_loss = _eval_loss(model, train_stream, context, limit=TRAIN_LOSS_POSITIONS)
    return Checkpoint(step, train_loss, _eval_loss(model, valid_stream, context), rows)


ProgressFn = Callable[[int, float, float, float], None]  # step, loss, tokens/s, eta seconds

WARMUP_SHARE = 0.1
TRAIN_LOSS_POSITIONS = 16384  # a checkpoint's training loss: a fixed slice, same every time


def make_scheduler(
    opt: torch.optim.Optimizer, cfg: TrainConfig
) -> torch.optim.lr_scheduler.LRScheduler:
    """One-cycle learning rate with a 10% warm-up; a run too short to warm up keeps the peak.

    OneCycleLR divides by the warm-up's length in steps minus one, so a warm-up of exactly
    one step (10% of 10 steps) divides by zero, and a shorter one spends a 1-step run at
    the floor rate. Under 20 steps (a warm-up under two) the rate stays at `cfg.lr`.
    """
    if cfg.steps * WARMUP_SHARE < 2:
        return torch.optim.lr_scheduler.LambdaLR(opt, lambda _step: 1.0)
    return torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=cfg.lr, total_steps=cfg.steps, pct_start=WARMUP_SHARE
    )


def train(
    tokenizer: Tokenizer,
    train_text: str,
    valid_text: str,
    cfg: TrainConfig,
    progress: ProgressFn | None = None,
    on_eval: Callable[[TinyLM, int], None] | None = None,
    record_ids: Sequence[int] = (),
    record_steps: Collection[int] = (),
    on_checkpoint: Callable[[Checkpoint], None] | None = None,
) -> tuple[TinyLM, dict[str, torch.Tensor], TrainLog]:
    """Train and return the model, its initial input table (as it was) and the log.

    With `on_checkpoint`, the input rows of `record_ids` and both losses are handed over at
    each of `record_steps` (0 = before the first step); recording reads, never draws.
    """
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(cfg.seed)
    generator = torch.Generator().manual_seed(cfg.seed)
    vocab_size = tokenizer.get_vocab_size()
    train_stream = torch.from_numpy(encode_lines(tokenizer, train_text))
    valid_stream = torch.from_numpy(encode_lines(tokenizer, valid_text))
    if len(train_stream) <= cfg.context + 1 or len(valid_stream) <= cfg.context + 1:
        raise ValueError("the corpus is too small to train on")
    model = TinyLM(vocab_size, cfg)
    before = {
        EMBED_KEY: model.model.embed_tokens.weight.detach().clone(),
        HEAD_KEY: model.lm_head.weight.detach().clone(),
    }
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = make_scheduler(opt, cfg)
    log = TrainLog(
        train_tokens=len(train_stream),
        valid_tokens=len(valid_stream),
        batch_positions=cfg.batch,
        threads=torch.get_num_threads(),
    )
    log.parameters = sum(p.numel() for p in model.parameters())
    log.embedding_parameters = model.model.embed_tokens.weight.numel()
    log.head_parameters = model.lm_head.weight.numel()
    distinct: list[int] = []
    ids = torch.tensor(list(record_ids), dtype=torch.long)
    streams = (train_stream, valid_stream)

    recording_s = 0.0  # kept out of the training clock, so tokens/s stays comparable

    def record(step: int) -> None:
        nonlocal recording_s
        if on_checkpoint and step in record_steps:
            began = time.perf_counter()
            on_checkpoint(_checkpoint(model, step, ids, streams, cfg.context))
            recording_s += time.perf_counter() - began

    start = time.perf_counter()
    record(0)
    for step in range(1, cfg.steps + 1):
        positions = torch.randint(cfg.context, len(train_stream), (cfg.batch,), generator=generator)
        targets = train_stream[positions]
        distinct.append(int(torch.unique(targets).numel()))
        loss = nn.functional.cross_entropy(
            model(_windows(train_stream, positions, cfg.context)), targets
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        elapsed = time.perf_counter() - start - recording_s
        tokens_per_s = step * cfg.batch / elapsed
        if step % 10 == 0 or step == cfg.steps:
            log.steps.append(step)
            log.loss.append(round(loss.item(), 4))
        if progress:
            progress(step, loss.item(), tokens_per_s, elapsed / step * (cfg.steps - step))
        if step % cfg.eval_every == 0 or step == cfg.steps:
            log.val_steps.append(step)
            log.val_loss.append(round(_eval_loss(model, valid_stream, cfg.context), 4))
            if on_eval:
                on_eval(model, step)
        record(step)
    log.wall_time_s = round(time.perf_counter() - start - recording_s, 2)
    log.tokens_per_s = round(cfg.steps * cfg.batch / log.wall_time_s, 1)
    log.batch_distinct_mean = round(sum(distinct) / len(distinct), 1)
    return model, before, log


def save_model_dir(
    out: Path,
    tokenizer: Tokenizer,
    model: TinyLM,
    before: dict[str, torch.Tensor],
    log: TrainLog,
    cfg: TrainConfig,
    tokenizer_name: str,
    trajectory: Trajectory | None = None,
) -> None:
    """Write the shipped format: tokenizer.json, both tables, config.json, train_log.json,
    and the recorded run when there is one."""
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(out / "tokenizer.json"))
    save_file(before, str(out / "embeddings_before.safetensors"))
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / "model.safetensors"))
    config = {
        "architecture": "context-mlp",
        "vocab_size": tokenizer.get_vocab_size(),
        "tokenizer": tokenizer_name,
        "tie_word_embeddings": False,
        **asdict(cfg),
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (out / "train_log.json").write_text(json.dumps(asdict(log), indent=2) + "\n", encoding="utf-8")
    if trajectory is not None:
        trajectory.save(out)
    else:  # an earlier run's recording would describe some other model
        for name in (TRAJECTORY_ROWS, TRAJECTORY_META):
            (out / name).unlink(missing_ok=True)
    settle_modes(out)


def settle_modes(out: Path) -> None:
    """Give every file in `out` the mode a new file gets here (0644 under umask 022):
    safetensors writes its files 0600, which would hide a shared model from its group."""
    umask = os.umask(0)
    os.umask(umask)
    for path in out.iterdir():
        if path.is_file():
            path.chmod(0o666 & ~umask)


def loss_warning(val_loss: float, vocab_size: int, steps: int = 0, d: int = 0) -> str | None:
    """A sentence for a run that predicts held-out text worse than a uniform guess."""
    uniform = math.log(vocab_size)
    if val_loss <= uniform:
        return None
    run = f" for {steps:,} steps at d={d}" if steps and d else ""
    return (
        f"warning: validation loss {val_loss:.3f} is worse than a uniform guess over the "
        f"vocabulary (ln V = {uniform:.3f}): the corpus is probably too small{run} (the model "
        "memorised the training text), or the run too short to learn anything; try fewer "
        "steps, a smaller --d or more text"
    )


def print_progress(
    total: int,
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    interval: float = 5.0,
) -> ProgressFn:
    """Progress on stderr: one redrawn bar on a terminal; in a log (not a terminal), a
    plain line every `interval` seconds and at the end, since carriage returns there pile
    every redraw into one unreadable line."""
    out = stream or sys.stderr
    on_terminal = out.isatty()
    last = clock()

    def line(step: int, loss: float, tokens_per_s: float, eta: float) -> str:
        return (
            f"step {step}/{total}  loss {loss:.3f}  "
            f"{tokens_per_s:,.0f} tok/s  ETA {math.ceil(eta)}s"
        )

    def show(step: int, loss: float, tokens_per_s: float, eta: float) -> None:
        nonlocal last
        if on_terminal:
            if step % 5 and step != total:
                return
            width = 24
            filled = width * step // total
            bar = "#" * filled + "-" * (width - filled)
            out.write(f"\r[{bar}] {line(step, loss, tokens_per_s, eta)} ")
            if step == total:
                out.write("\n")
        else:
            now = clock()
            if now - last < interval and step != total:
                return
            last = now
            out.write(line(step, loss, tokens_per_s, eta) + "\n")
        out.flush()

    return show
