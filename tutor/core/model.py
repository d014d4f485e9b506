"""A model directory: its tokenizer and its embedding table before and after training.

The shipped project model and any Hugging Face model directory (tokenizer.json +
model.safetensors, optionally sharded, + config.json) open the same way, so a learner can
point `--model` at a model they already have.
"""

from __future__ import annotations

from functools import cache, cached_property
from pathlib import Path

from pydantic import BaseModel, ValidationError

from tutor.core.names import STAGES, Stage
from tutor.core.paths import default_model_dir
from tutor.core.table import (
    EmbeddingTable,
    TableError,
    TensorEntry,
    find_embedding_key,
    read_header,
)
from tutor.core.tokenize import PROJECT, Scheme, TokenizeError, load_scheme

TOKENIZER_FILE = "tokenizer.json"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX_FILE = "model.safetensors.index.json"
BEFORE_FILE = "embeddings_before.safetensors"
CONFIG_FILE = "config.json"


class ModelError(ValueError):
    """A model directory that cannot be used; the message is for humans."""


class ModelConfig(BaseModel):
    """config.json: the project's fields; HF configs share the first ones, the rest is ignored."""

    vocab_size: int | None = None
    hidden_size: int | None = None
    tie_word_embeddings: bool | None = None
    context: int | None = None
    hidden: int | None = None
    seed: int | None = None
    steps: int | None = None
    tokenizer: str | None = None


class WeightsIndex(BaseModel):
    """model.safetensors.index.json of a sharded HF checkpoint: tensor name -> shard file."""

    weight_map: dict[str, str]


def _read_config(path: Path) -> ModelConfig:
    if not path.is_file():
        return ModelConfig()
    try:
        return ModelConfig.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise ModelError(f"{path}: not a valid config: {exc}") from exc


def _weight_files(model_dir: Path) -> list[Path]:
    single = model_dir / WEIGHTS_FILE
    if single.is_file():
        return [single]
    index = model_dir / WEIGHTS_INDEX_FILE
    if index.is_file():
        try:
            parsed = WeightsIndex.model_validate_json(index.read_bytes())
        except ValidationError as exc:
            raise ModelError(f"{index}: not a valid weights index: {exc}") from exc
        return [model_dir / name for name in sorted(set(parsed.weight_map.values()))]
    raise ModelError(f"{model_dir} has no {WEIGHTS_FILE} (nor {WEIGHTS_INDEX_FILE})")


class ProjectModel:
    """One opened model directory; tables are memory-mapped on first use and kept."""

    def __init__(self, path: Path) -> None:
        if not path.is_dir():
            raise ModelError(f"model directory not found: {path}")
        if not (path / TOKENIZER_FILE).is_file():
            raise ModelError(f"{path} has no {TOKENIZER_FILE}")
        self.path = path
        self.config = _read_config(path / CONFIG_FILE)
        try:
            self.scheme: Scheme = load_scheme(
                path / TOKENIZER_FILE, self.config.tokenizer or PROJECT
            )
            self._headers = {f: read_header(f)[0] for f in _weight_files(path)}
            self._embed_file, self._embed_key = self._locate_embedding()
        except (TokenizeError, TableError) as exc:
            raise ModelError(str(exc)) from exc
        rows = self.tensor_shapes[self._embed_key][0]
        if rows < self.scheme.vocab_size:
            raise ModelError(
                f"{path}: the table has {rows:,} rows but the tokenizer has "
                f"{self.scheme.vocab_size:,} ids"
            )
        self._tables: dict[Stage, EmbeddingTable] = {}

    def _locate_embedding(self) -> tuple[Path, str]:
        merged = {name: f for f, entries in self._headers.items() for name in entries}
        key = find_embedding_key(self._entries)
        return merged[key], key

    @cached_property
    def _entries(self) -> dict[str, TensorEntry]:
        return {name: e for entries in self._headers.values() for name, e in entries.items()}

    @property
    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: e.shape for name, e in self._entries.items()}

    @property
    def has_before(self) -> bool:
        """Whether the random initialisation was saved (the "before" stage exists)."""
        return (self.path / BEFORE_FILE).is_file()

    def table(self, stage: Stage = "after") -> EmbeddingTable:
        """The embedding table after training, or as it was initialised ("before")."""
        if stage not in STAGES:
            raise ModelError(f"unknown stage {stage!r}; choose before or after")
        if stage not in self._tables:
            self._tables[stage] = self._load(stage)
        return self._tables[stage]

    def _load(self, stage: Stage) -> EmbeddingTable:
        if stage == "before" and not self.has_before:
            raise ModelError(
                f"{self.path} has no {BEFORE_FILE}, so the table before training is unknown; "
                "only the 'after' stage is available for this model"
            )
        try:
            if stage == "after":
                return EmbeddingTable.from_safetensors(self._embed_file, self._embed_key)
            return EmbeddingTable.from_safetensors(self.path / BEFORE_FILE)
        except TableError as exc:
            raise ModelError(str(exc)) from exc

    @property
    def embedding_parameters(self) -> int:
        """V x d of the input table."""
        rows, dim = self.tensor_shapes[self._embed_key]
        return rows * dim

    @property
    def total_parameters(self) -> int:
        """Every number in the weights files (the embedding's share is the lesson's point)."""
        total = 0
        for shape in self.tensor_shapes.values():
            count = 1
            for size in shape:
                count *= size
            total += count
        return total


@cache
def _open_resolved(path: Path) -> ProjectModel:
    return ProjectModel(path)


def open_model(path: Path | None = None) -> ProjectModel:
    """The model in `path` (default: the shipped project model), opened once per path."""
    return _open_resolved((path or default_model_dir()).resolve())
