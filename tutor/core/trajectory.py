"""The recorded training run: a few hundred tokens' input rows at about 30 steps.

`tutor assets build` records it while it trains the shipped model, so the lesson can show
training happen (the heatmap's blocks forming, 猫's neighbours turning from noise into
animals, the loss falling) from the very run that made the model, without torch. Step 0 is
the shipped "before" table and the last step the shipped "after" table, row for row.
A live run (`tutor.core.live`) streams the same checkpoints while it trains.
"""

from __future__ import annotations

import json
import mmap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from tutor.core import corpus as corpus_mod
from tutor.core.refusal import Coded, Name
from tutor.core.similarity import Neighbour, _top_k, cosine_matrix

if TYPE_CHECKING:
    from tokenizers import Tokenizer

ROWS_FILE = "trajectory.safetensors"
META_FILE = "trajectory.json"
CHECKPOINTS = 30
MAX_TOKENS = 60  # 60 rows x 256 floats x 30 steps x 4 bytes: 1.8 MB, under the 2 MB budget


class TrajectoryError(Coded, ValueError):
    """A trajectory that is missing or cannot answer; the message is for humans, the code
    (where it has one) and values for an interface to say it in its language."""


def lesson_categories() -> dict[str, list[str]]:
    """The four kinds of words the lesson's heatmap groups, as the corpus defines them."""
    return {
        "people": list(corpus_mod.PEOPLE),
        "animals": list(corpus_mod.ANIMALS),
        "fruits": list(corpus_mod.FRUITS),
        "vehicles": list(corpus_mod.VEHICLES),
    }


def checkpoint_steps(total: int, count: int = CHECKPOINTS) -> list[int]:
    """About `count` steps from 0 to `total`, spaced evenly on a log scale.

    Rows move fastest early, so even spacing would show the whole change between two
    frames; log spacing gives the first hundred steps as many frames as the last thousand.
    """
    if total + 1 <= count:
        return list(range(total + 1))
    points = count - 1
    while True:
        steps = {0} | {round(x) for x in np.geomspace(1, total, points)}
        if len(steps) >= count:
            return sorted(steps)
        points += 1


def category_contrast(rows: np.ndarray, groups: Sequence[Sequence[int]]) -> float:
    """Mean cosine within a category minus mean cosine across categories.

    Averages over every pair, not one chosen pair, so one lucky pair cannot make it; for
    random rows it sits near 0 (the chance level), and training pushes it up.
    """
    members = [i for group in groups for i in group]
    label = np.concatenate([np.full(len(g), n) for n, g in enumerate(groups)])
    cos = cosine_matrix(rows[members])
    same = label[:, None] == label[None, :]
    off_diagonal = ~np.eye(len(members), dtype=bool)
    return float(cos[same & off_diagonal].mean() - cos[~same].mean())


class TrajectoryMeta(BaseModel):
    """trajectory.json: what the rows file holds, step by step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: list[int]
    train_loss: list[float]
    val_loss: list[float]
    tokens: list[str]
    ids: list[int]
    categories: dict[str, list[str]]


@dataclass(frozen=True)
class Checkpoint:
    """One recorded step: the losses and the recorded tokens' input rows (n, d)."""

    step: int
    train_loss: float
    val_loss: float
    rows: np.ndarray


@dataclass
class TrajectoryRecording:
    """Checkpoints as they arrive, during a build or a live run."""

    tokens: list[str]
    ids: list[int]
    categories: dict[str, list[str]]
    checkpoints: list[Checkpoint] = field(default_factory=list)

    def add(self, checkpoint: Checkpoint) -> None:
        self.checkpoints.append(checkpoint)

    def train_kwargs(self, total_steps: int) -> dict[str, object]:
        """What `tutor.core.train.train` needs to record into this."""
        return {
            "record_ids": self.ids,
            "record_steps": frozenset(checkpoint_steps(total_steps)),
            "on_checkpoint": self.add,
        }

    def trajectory(self) -> Trajectory:
        meta = TrajectoryMeta(
            steps=[c.step for c in self.checkpoints],
            train_loss=[round(c.train_loss, 4) for c in self.checkpoints],
            val_loss=[round(c.val_loss, 4) for c in self.checkpoints],
            tokens=self.tokens,
            ids=self.ids,
            categories=self.categories,
        )
        rows = np.stack([c.rows for c in self.checkpoints]).astype(np.float32)
        return Trajectory(meta, rows)


def start_recording(
    tokenizer: Tokenizer, train_text: str, named: Iterable[str], limit: int = MAX_TOKENS
) -> TrajectoryRecording:
    """What to record: the named tokens (the lesson's widgets' and the category words)
    that are single tokens, then the most frequent whole-word tokens of the training text
    up to `limit`, so that neighbours searched among them have real competition."""
    from tutor.core.tokenize import TokenizeError, TokenizerScheme

    scheme = TokenizerScheme("recorded", tokenizer)
    categories = lesson_categories()
    chosen: dict[int, str] = {}
    for piece in [*named, *(p for members in categories.values() for p in members)]:
        try:
            token_id = scheme.single_id(piece)
        except TokenizeError:
            continue  # a word the tokenizer splits has no row of its own to record
        chosen.setdefault(token_id, piece)
    lines = [line for line in train_text.splitlines() if line.strip()]
    counts = Counter(i for enc in tokenizer.encode_batch(lines) for i in enc.ids)
    for token_id, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if len(chosen) >= limit:
            break
        piece = scheme.id_to_piece(token_id)
        whole = token_id not in scheme.special_ids and "\ufffd" not in scheme.decode([token_id])
        if whole and any(ch.isalnum() for ch in piece):
            chosen.setdefault(token_id, piece)
    ids = list(chosen)[:limit]
    tokens = [chosen[i] for i in ids]
    recorded = set(tokens)
    kept = {name: [p for p in members if p in recorded] for name, members in categories.items()}
    return TrajectoryRecording(tokens, ids, {k: v for k, v in kept.items() if v})


class Trajectory:
    """The recorded rows (steps x tokens x d) with their steps and losses."""

    def __init__(self, meta: TrajectoryMeta, rows: np.ndarray) -> None:
        if rows.shape[:2] != (len(meta.steps), len(meta.tokens)):
            raise TrajectoryError(
                f"the rows have shape {rows.shape}, but {len(meta.steps)} steps of "
                f"{len(meta.tokens)} tokens are listed",
                "trajectory_shape",
                shape=Name(rows.shape),
                steps=len(meta.steps),
                tokens=len(meta.tokens),
            )
        self.meta = meta
        self.rows = rows
        self._index = {piece: n for n, piece in enumerate(meta.tokens)}
        self._read: tuple[int, np.ndarray] | None = None  # see `at`

    @property
    def steps(self) -> list[int]:
        return self.meta.steps

    @property
    def tokens(self) -> list[str]:
        return self.meta.tokens

    def step_index(self, step: int) -> int:
        """Where `step` is among the recorded steps; an unrecorded step names the nearest."""
        if step in self.steps:
            return self.steps.index(step)
        below = max((s for s in self.steps if s < step), default=None)
        above = min((s for s in self.steps if s > step), default=None)
        if below is None or above is None:
            nearest = above if below is None else below
            raise TrajectoryError(
                f"step {step} was not recorded; the nearest recorded step is {nearest} "
                "(`tutor facts --key trajectory.steps` lists them all)",
                "step_outside",
                step=step,
                nearest=nearest,
            )
        raise TrajectoryError(
            f"step {step} was not recorded; the nearest recorded steps are {below} or {above} "
            "(`tutor facts --key trajectory.steps` lists them all)",
            "step_not_recorded",
            step=step,
            below=below,
            above=above,
        )

    def token_index(self, piece: str) -> int:
        if piece not in self._index:
            examples = " ".join(self.tokens[:8]) + (" …" if len(self.tokens) > 8 else "")
            raise TrajectoryError(
                f"{piece!r} is not among the {len(self.tokens)} tokens recorded during "
                f"training; the recorded ones include {examples}",
                "not_recorded",
                piece=piece,
                count=len(self.tokens),
                examples=Name(examples),
            )
        return self._index[piece]

    def at(self, index: int) -> np.ndarray:
        """(tokens, d), read-only: the rows of the `index`-th checkpoint, read out of the
        run's file map and its pages handed back (`hand_back`). The last one read is
        kept: a checkpoint's heatmap, neighbours and cosine each ask for it in turn."""
        if self._read is None or self._read[0] != index:
            rows = np.array(self.rows[index])
            rows.flags.writeable = False
            self.hand_back()
            self._read = (index, rows)
        return self._read[1]

    def hand_back(self) -> None:
        """Give the pages of a run mapped from its file (recorded_run) back to the page
        cache. The training page reads every checkpoint, each several times, while the
        learner's memory is at its walk's highest: a pass kept the whole run (1.8 MB of
        the shipped one) where one checkpoint at a time is enough."""
        if isinstance(self.rows.base, mmap.mmap):
            self.rows.base.madvise(mmap.MADV_DONTNEED)

    @cached_property
    def groups(self) -> list[list[int]]:
        """Row indices of each category's recorded members."""
        return [
            [self._index[p] for p in members if p in self._index]
            for members in self.meta.categories.values()
        ]

    @cached_property
    def category_means(self) -> np.ndarray:
        """(steps, categories, d): the mean row of each category at each step."""
        return np.stack([self.rows[:, group].mean(axis=1) for group in self.groups], axis=1)

    @cached_property
    def contrast(self) -> np.ndarray:
        """(steps,): category contrast at each step (see `category_contrast`)."""
        return np.array(
            [category_contrast(self.at(n), self.groups) for n in range(len(self.steps))]
        )

    def similarity(self, pieces: Sequence[str], index: int) -> tuple[list[str], np.ndarray]:
        """Cosine matrix of recorded tokens' rows at the `index`-th recorded step."""
        at = [self.token_index(p) for p in pieces]
        return list(pieces), cosine_matrix(self.at(index)[at])

    def nearest(self, piece: str, index: int, k: int = 5) -> list[Neighbour]:
        """The k recorded tokens nearest (cosine) to `piece` at the `index`-th step."""
        if k < 1:
            raise TrajectoryError(f"k must be at least 1, got {k}", "k_too_small", k=k)
        own = self.token_index(piece)
        cos = cosine_matrix(self.at(index))[own]
        valid = np.ones(len(self.tokens), dtype=bool)
        valid[own] = False
        chosen, ranks, _ = _top_k(-cos, valid, k)
        return [
            Neighbour(self.tokens[i], self.meta.ids[i], float(cos[i]), int(r))
            for i, r in zip(chosen, ranks, strict=True)
        ]

    def save(self, model_dir: Path) -> None:
        """Write trajectory.safetensors (the rows and category means) and trajectory.json."""
        from safetensors.numpy import save_file

        tensors = {"rows": self.rows, "category_means": self.category_means.astype(np.float32)}
        save_file(tensors, str(model_dir / ROWS_FILE))
        (model_dir / META_FILE).write_text(
            json.dumps(self.meta.model_dump(), ensure_ascii=False, indent=1) + "\n",
            encoding="utf-8",
        )


def has_trajectory(model_dir: Path) -> bool:
    return (model_dir / META_FILE).is_file() and (model_dir / ROWS_FILE).is_file()


def load(model_dir: Path) -> Trajectory:
    """The trajectory recorded with the model in `model_dir`."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    if not has_trajectory(model_dir):
        raise TrajectoryError(
            f"{model_dir} has no recorded training run ({META_FILE} + {ROWS_FILE}); "
            "only the before and after tables are known for this model",
            "no_trajectory",
            folder=model_dir,
            meta=Name(META_FILE),
            rows=Name(ROWS_FILE),
        )
    try:
        meta = TrajectoryMeta.model_validate_json((model_dir / META_FILE).read_bytes())
        rows = load_file(str(model_dir / ROWS_FILE))["rows"]
    except (ValidationError, SafetensorError, KeyError, OSError) as exc:
        raise TrajectoryError(
            f"{model_dir}: the recorded run cannot be read: {exc}",
            "trajectory_unreadable",
            folder=model_dir,
        ) from exc
    return Trajectory(meta, rows)
