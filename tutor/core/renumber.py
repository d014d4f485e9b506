"""Renumbering the trained model's IDs, as an experiment (page 10, `tutor experiment renumber`).

A random permutation gives every token a new ID. Applied consistently (the tokenizer's ID
map, the input table's rows and the output layer's rows, one permutation) the model's
predictions do not change: an ID is only a row number. Applied to the tokenizer alone, every
token fetches another token's row and is scored by another token's output row, and the
predictions turn to noise. The tokenizer is really renumbered (its tokenizer.json vocabulary
rewritten), not relabelled after the fact.

The validation loss is measured on the first SAMPLE_POSITIONS predicted positions of the
shipped validation text (the whole text takes ~10 s in numpy; a key press should not).

The app asks in a short-lived child process (`ask`, `python -m tutor.core.renumber`): the
forward pass maps the weights, copies the renumbered tables and builds a tokenizer, ~27 MB
the learner's process would otherwise keep.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from tutor.core.forward import Forward, Progress, sentence_ids
from tutor.core.paths import default_model_dir

SAMPLE_POSITIONS = 2048
TOP = 5


def draw(seed: int, size: int) -> np.ndarray:
    """The permutation drawn from `seed`: new_id[old_id]."""
    return np.random.default_rng(seed).permutation(size)


def renumbered_tokenizer(tokenizer: Tokenizer, new_id: np.ndarray) -> Tokenizer:
    """The same tokenizer with every ID i replaced by new_id[i] (its merges name pieces, not
    IDs, so they stay as they are)."""
    data = json.loads(tokenizer.to_str())
    vocab = data["model"]["vocab"]
    data["model"]["vocab"] = {piece: int(new_id[i]) for piece, i in vocab.items()}
    for added in data["added_tokens"]:
        added["id"] = int(new_id[added["id"]])
    return Tokenizer.from_str(json.dumps(data))


@dataclass(frozen=True, slots=True)
class Prediction:
    """One of the most probable next tokens: its piece, its ID (in the numbering it was
    predicted under) and its probability."""

    piece: str
    id: int
    probability: float


@dataclass(frozen=True, slots=True)
class SentenceShown:
    """What one permutation does to the sentence's next-token predictions."""

    seed: int
    consistent_top: list[Prediction]
    consistent_max_abs_diff: float  # over every position of the sentence and every token
    tokenizer_only_top: list[Prediction]


class Experiment:
    """The shipped model (or another context-mlp model), its readable pieces and the
    validation sample, ready to be renumbered by any seed."""

    def __init__(self, forward: Forward, pieces: Sequence[str], sample_text: str) -> None:
        self.forward = forward
        self.pieces = pieces  # readable piece of each original ID
        self.sample_text = sample_text
        self._drawn: tuple[int, np.ndarray, Tokenizer] | None = None

    @classmethod
    def open(cls, folder: Path | None = None) -> Experiment:
        from tutor.core.model import open_model

        folder = folder or default_model_dir()
        forward = Forward.open(folder)
        scheme = open_model(folder).scheme
        pieces = [scheme.id_to_piece(i) for i in range(forward.vocab_size)]
        return cls(forward, pieces, _sample_text(forward))

    @property
    def chance(self) -> float:
        """ln V: the loss of a uniform guess over the vocabulary."""
        return math.log(self.forward.vocab_size)

    def _renumbered(self, seed: int, consistent: bool) -> tuple[Forward, np.ndarray]:
        # the newest seed's tokenizer is kept: building one takes ~0.1 s, and a seed's
        # sentence and losses all read it
        if self._drawn is None or self._drawn[0] != seed:
            new_id = draw(seed, self.forward.vocab_size)
            self._drawn = (seed, new_id, renumbered_tokenizer(self.forward.tokenizer, new_id))
        _, new_id, tokenizer = self._drawn
        rows = np.argsort(new_id) if consistent else None  # new row j holds old row rows[j]
        return self.forward.renumbered(tokenizer, rows), new_id

    def _top(self, probs: np.ndarray, old_of: np.ndarray | None = None) -> list[Prediction]:
        best = np.argsort(-probs, kind="stable")[:TOP]
        return [
            Prediction(
                self.pieces[int(i if old_of is None else old_of[i])], int(i), float(probs[i])
            )
            for i in best
        ]

    def _windows(self, forward: Forward, sentence: str) -> np.ndarray:
        """A window before each token of the sentence and one after its last."""
        ids = sentence_ids(forward, sentence)
        return np.stack([forward.last_window(ids[:n]) for n in range(len(ids) + 1)])

    def baseline_top(self, sentence: str) -> list[Prediction]:
        """The model's top next tokens after the sentence, as shipped."""
        return self._top(self.forward.probabilities(self._windows(self.forward, sentence))[-1])

    def sentence(self, seed: int, sentence: str) -> SentenceShown:
        """The sentence's predictions under permutation `seed`, both ways (fast: ~0.1 s)."""
        original = self.forward.probabilities(self._windows(self.forward, sentence))
        consistent, new_id = self._renumbered(seed, consistent=True)
        moved = consistent.probabilities(self._windows(consistent, sentence))
        old_of = np.argsort(new_id)
        # token t's probability now sits at its new ID new_id[t]
        diff = float(np.abs(moved[:, new_id] - original).max())
        garbled, _ = self._renumbered(seed, consistent=False)
        noise = garbled.probabilities(self._windows(garbled, sentence))[-1]
        return SentenceShown(seed, self._top(moved[-1], old_of), diff, self._top(noise, old_of))

    def _loss(self, forward: Forward, progress: Progress | None) -> float:
        stream = forward.encode_lines(self.sample_text)
        return forward.mean_loss(stream, SAMPLE_POSITIONS, progress)

    def val_loss(self) -> float:
        """The model's own loss on the validation sample (computed once)."""
        return self._val_loss

    @cached_property
    def _val_loss(self) -> float:
        return self._loss(self.forward, None)

    def consistent_loss(self, seed: int, progress: Progress | None = None) -> float:
        return self._loss(self._renumbered(seed, consistent=True)[0], progress)

    def tokenizer_only_loss(self, seed: int, progress: Progress | None = None) -> float:
        return self._loss(self._renumbered(seed, consistent=False)[0], progress)


def _sample_text(forward: Forward) -> str:
    """The first lines of the validation text that hold SAMPLE_POSITIONS predictions."""
    lines = forward.validation_text().splitlines(keepends=True)
    count, taken = 0, 0
    for line in lines:
        taken += 1
        if line.strip():
            count += len(forward.tokenizer.encode(line.rstrip("\n")).ids) + 1
        if count >= SAMPLE_POSITIONS + forward.context:
            break
    return "".join(lines[:taken])


def answer(question: str, seed: int, sentence: str, progress: Progress | None) -> Any:
    """One of page 10's figures on the shipped model, as JSON: "base" its top-5 as shipped,
    the validation loss and ln V; "sentence" a seed's `SentenceShown`; "loss" a seed's loss
    with the tokenizer alone renumbered."""
    experiment = Experiment.open()
    if question == "base":
        top = [asdict(p) for p in experiment.baseline_top(sentence)]
        return {"top": top, "val_loss": experiment.val_loss(), "chance": experiment.chance}
    if question == "sentence":
        return asdict(experiment.sentence(seed, sentence))
    return experiment.tokenizer_only_loss(seed, progress)


def shown_from(data: dict[str, Any]) -> SentenceShown:
    def top(key: str) -> list[Prediction]:
        return [Prediction(**p) for p in data[key]]

    return SentenceShown(
        data["seed"],
        top("consistent_top"),
        data["consistent_max_abs_diff"],
        top("tokenizer_only_top"),
    )


def ask(question: str, seed: int, sentence: str, progress: Progress | None = None) -> Any:
    """`answer`, computed in a child process (its progress passed on as it comes).
    RuntimeError with the child's last words if it answers nothing."""
    command = [sys.executable, "-m", "tutor.core.renumber"]
    asked = json.dumps({"question": question, "seed": seed, "sentence": sentence})
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    ) as child:
        child.stdin.write(asked)  # type: ignore[union-attr]
        child.stdin.close()  # type: ignore[union-attr]
        said: Any = None
        for line in child.stdout:  # type: ignore[union-attr]
            message = json.loads(line)
            if "progress" in message and progress is not None:
                progress(*message["progress"])
            said = message.get("answer", said)
        why = child.stderr.read().strip().splitlines()[-1:]  # type: ignore[union-attr]
        child.wait(timeout=60)
    if said is None:
        raise RuntimeError(f"page 10's {question} was not computed: {why or child.returncode}")
    return said


def main() -> int:
    """`python -m tutor.core.renumber` < {"question", "seed", "sentence"}: JSON lines on
    stdout, {"progress": [done, total]} as the loss goes, then {"answer": ...}."""
    asked = json.loads(sys.stdin.read())

    def tick(done: int, total: int) -> None:
        print(json.dumps({"progress": [done, total]}), flush=True)

    said = answer(asked["question"], asked["seed"], asked["sentence"], tick)
    print(json.dumps({"answer": said}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
