"""The project model's forward pass in numpy: next-token probabilities without torch.

The same computation as `TinyLM` in tutor/core/train.py (which imports torch and so never
loads in the app): the previous `context` IDs are looked up in the input table, mixed by
Linear -> tanh -> Linear -> LayerNorm, and scored against every token by the untied output
head. With it the app can run experiments on the trained model, such as renumbering its
IDs (tutor/core/renumber.py, in a child process), without torch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from tutor.core.paths import corpus_dir
from tutor.core.table import map_float32
from tutor.core.tokenize import shared_tokenizer

EMBED = "model.embed_tokens.weight"
HEAD = "lm_head.weight"
END_OF_TEXT = "<|endoftext|>"
LAYER_NORM_EPS = 1e-5  # torch.nn.LayerNorm's default, which the model was trained with
CHUNK = 128  # positions per matrix product: ~2 MB of scores at a time, a progress tick each

Progress = Callable[[int, int], None]  # positions done, positions in all


@dataclass(frozen=True)
class Forward:
    """One context-mlp model's weights and tokenizer, ready to score next tokens."""

    embed: np.ndarray  # V x d: the input table
    head: np.ndarray  # V x d: the output layer, row i scores ID i
    mix_w: np.ndarray
    mix_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    norm_w: np.ndarray
    norm_b: np.ndarray
    context: int
    tokenizer: Tokenizer
    end_of_text: int

    @classmethod
    def open(cls, folder: Path) -> Forward:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if config.get("architecture") != "context-mlp":
            raise ValueError(f"{folder} is not a context-mlp model (the project model's kind)")
        weights = folder / "model.safetensors"

        def w(key: str) -> np.ndarray:  # mapped, not copied: the app maps the same table
            return map_float32(weights, key).view(np.ndarray)

        # the app's tokenizer of this model, not a copy of it (4.2 MB)
        tokenizer = shared_tokenizer(folder / "tokenizer.json")
        eot = tokenizer.token_to_id(END_OF_TEXT)
        if eot is None:
            raise ValueError(f"{folder}'s tokenizer has no {END_OF_TEXT} token")
        return cls(
            embed=w(EMBED),
            head=w(HEAD),
            mix_w=w("model.mix.weight"),
            mix_b=w("model.mix.bias"),
            out_w=w("model.out.weight"),
            out_b=w("model.out.bias"),
            norm_w=w("model.norm.weight"),
            norm_b=w("model.norm.bias"),
            context=int(config["context"]),
            tokenizer=tokenizer,
            end_of_text=eot,
        )

    @property
    def vocab_size(self) -> int:
        return int(self.embed.shape[0])

    def renumbered(self, tokenizer: Tokenizer, rows: np.ndarray | None = None) -> Forward:
        """The same model read through another tokenizer; with `rows`, the input table and
        the output layer are reordered too (row i of each becomes the old row rows[i])."""
        read = replace(self, tokenizer=tokenizer, end_of_text=tokenizer.token_to_id(END_OF_TEXT))
        if rows is None:
            return read
        return replace(read, embed=self.embed[rows], head=self.head[rows])

    def logits(self, windows: np.ndarray) -> np.ndarray:
        """Scores of every next token after each window of `context` IDs (N x V)."""
        rows = self.embed[windows].reshape(len(windows), -1)  # the lookup
        hidden = np.tanh(rows @ self.mix_w.T + self.mix_b)
        out = hidden @ self.out_w.T + self.out_b
        mean = out.mean(axis=1, keepdims=True)
        var = out.var(axis=1, keepdims=True)
        normed = (out - mean) / np.sqrt(var + LAYER_NORM_EPS) * self.norm_w + self.norm_b
        return normed @ self.head.T

    def probabilities(self, windows: np.ndarray) -> np.ndarray:
        """Next-token probabilities after each window (N x V, rows sum to 1)."""
        logits = self.logits(windows).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=1, keepdims=True)

    def last_window(self, ids: np.ndarray) -> np.ndarray:
        """The `context` IDs before the next token: a line starts after the end-of-text
        token, as every line did in training."""
        padded = np.concatenate([np.full(self.context, self.end_of_text), ids])
        return padded[-self.context :].astype(np.int64)

    def encode_lines(self, text: str) -> np.ndarray:
        """The text as one ID stream, each line followed by the end-of-text token (as the
        model was trained and validated)."""
        lines = [line for line in text.splitlines() if line.strip()]
        encoded = self.tokenizer.encode_batch(lines)
        return np.concatenate([[*e.ids, self.end_of_text] for e in encoded]).astype(np.int64)

    @staticmethod
    def validation_text() -> str:
        return (corpus_dir() / "zh" / "valid.txt").read_text(encoding="utf-8")

    def mean_loss(
        self, stream: np.ndarray, limit: int | None = None, progress: Progress | None = None
    ) -> float:
        """Mean next-token cross-entropy (nats) over the stream's first `limit` positions
        after the first full window, as training's validation loss is measured."""
        positions = np.arange(self.context, len(stream))[:limit]
        offsets = np.arange(-self.context, 0)
        total = 0.0
        for start in range(0, len(positions), CHUNK):
            chunk = positions[start : start + CHUNK]
            logits = self.logits(stream[chunk[:, None] + offsets])
            top = logits.max(axis=1)
            log_norm = top + np.log(np.exp(logits - top[:, None]).sum(axis=1, dtype=np.float64))
            target = logits[np.arange(len(chunk)), stream[chunk]]
            total += float((log_norm - target).sum(dtype=np.float64))
            if progress:
                progress(start + len(chunk), len(positions))
        return total / max(len(positions), 1)


def sentence_ids(forward: Forward, text: str) -> np.ndarray:
    """The IDs of `text` under the model's tokenizer."""
    return np.asarray(forward.tokenizer.encode(text).ids, dtype=np.int64)
