"""A model directory: its tokenizer and its embedding table before and after training.

The shipped project model and any Hugging Face model directory (tokenizer.json +
model.safetensors, optionally sharded, + config.json) open the same way, so a learner can
point `--model` at a model they already have. `tutor.core.hf` knows where each
architecture keeps its table; only the file that holds the table is mapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from pydantic import BaseModel, ValidationError

from tutor.core.hf import (
    BEFORE_FILE,
    CONFIG_FILE,
    BeforeKind,
    HeadKind,
    HFError,
    ModelConfig,
    before_kind_of,
    find_input_table,
    head_kind,
    invalid_json,
    read_config,
)
from tutor.core.names import STAGES, Stage
from tutor.core.paths import default_model_dir
from tutor.core.refusal import Coded, Name, recoded
from tutor.core.static import StaticLayout, is_static, read_static, static_layout
from tutor.core.table import (
    EmbeddingTable,
    RecreatedTable,
    TableError,
    TensorEntry,
    check_table,
    read_header,
)
from tutor.core.tokenize import PROJECT, Scheme, TokenizeError, load_scheme

TOKENIZER_FILE = "tokenizer.json"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX_FILE = "model.safetensors.index.json"
RECREATED_SEED = 0
TORCH_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")  # pickled torch weights, not read here


class ModelError(Coded, ValueError):
    """A model directory that cannot be used; the message is one line for humans, the
    code and values (file paths and tensor names verbatim) for an interface to say it in
    its language."""


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A size config.json gives that the table in the weights does not have."""

    field: str
    config: int
    weights: int


class WeightsIndex(BaseModel):
    """model.safetensors.index.json of a sharded HF checkpoint: tensor name -> shard file."""

    weight_map: dict[str, str]


def _read_config(path: Path) -> ModelConfig:
    try:
        return read_config(path)
    except HFError as exc:
        raise recoded(ModelError, exc) from exc


def _weight_map(model_dir: Path) -> dict[str, Path] | None:
    """Tensor name -> shard for a sharded checkpoint; None for a single file."""
    if (model_dir / WEIGHTS_FILE).is_file():
        return None
    index = model_dir / WEIGHTS_INDEX_FILE
    if not index.is_file():
        other = sorted(p.name for p in model_dir.glob("*") if p.suffix in TORCH_SUFFIXES)
        hint = (
            f"; its {', '.join(other[:3])} needs torch to read: save the model as safetensors"
            if other
            else ""
        )
        raise ModelError(
            f"{model_dir} has no {WEIGHTS_FILE} (nor {WEIGHTS_INDEX_FILE}){hint}",
            "torch_weights" if other else "no_weights",
            folder=model_dir,
            file=Name(WEIGHTS_FILE),
            index=Name(WEIGHTS_INDEX_FILE),
            found=Name(", ".join(other[:3])),
        )
    try:
        parsed = WeightsIndex.model_validate_json(index.read_bytes())
    except ValidationError as exc:
        raise invalid_json(
            ModelError, index, "weights index", exc, "bad_weights_index", "weights_index_not_json"
        ) from exc
    return {name: model_dir / shard for name, shard in parsed.weight_map.items()}


class ProjectModel:
    """One opened model directory; tables are memory-mapped on first use and kept."""

    def __init__(self, path: Path) -> None:
        if path.is_file():
            raise ModelError(
                f"{path} is a file, not a model directory: give the folder that holds it",
                "model_is_file",
                path=path,
            )
        if not path.is_dir():
            raise ModelError(f"model directory not found: {path}", "model_not_found", path=path)
        if not (path / TOKENIZER_FILE).is_file():
            raise ModelError(
                f"{path} has no {TOKENIZER_FILE}",
                "no_tokenizer",
                folder=path,
                file=Name(TOKENIZER_FILE),
            )
        self.path = path
        self.config = _read_config(path / CONFIG_FILE)
        self._shards = _weight_map(path)
        self.static: StaticLayout | None = None
        try:
            # The table is found and checked from the header before the tokenizer is read
            # (a 10 MB tokenizer.json takes seconds): a table the tutor cannot read is
            # refused at once.
            self._embed_file, self._embed_key = self._locate_embedding()
            entries, data_start = read_header(self._embed_file)
            entry = entries.get(self._embed_key)
            if entry is None:
                raise ModelError(
                    f"{self._embed_file} has no tensor {self._embed_key!r}, "
                    f"though {WEIGHTS_INDEX_FILE} says it has",
                    "table_not_in_shard",
                    path=self._embed_file,
                    tensor=Name(self._embed_key),
                    index=Name(WEIGHTS_INDEX_FILE),
                )
            if is_static(self.config.family, self._embed_key):
                self.static = static_layout(self._embed_file, entries, data_start, self._embed_key)
            else:
                check_table(self._embed_file, self._embed_key, entry)
            self.scheme: Scheme = load_scheme(
                path / TOKENIZER_FILE, self.config.tokenizer or self.name
            )
        except (TokenizeError, TableError, HFError) as exc:
            raise recoded(ModelError, exc) from exc
        ids = self.static.ids if self.static else entry.shape[0]
        self.table_shape: tuple[int, int] = (ids, entry.shape[1])
        self.table_dtype = entry.dtype
        rows = self.table_shape[0]
        if rows < self.scheme.vocab_size:
            raise ModelError(
                f"{path}: the table has {rows:,} rows but the tokenizer has "
                f"{self.scheme.vocab_size:,} ids",
                "table_too_small",
                path=path,
                rows=rows,
                ids=self.scheme.vocab_size,
            )
        self._tables: dict[Stage, EmbeddingTable] = {}

    @property
    def name(self) -> str:
        """What the model is called in sentences: its config's name, else its folder's
        (the shipped model is the lesson's project model)."""
        if self.path.resolve() == default_model_dir().resolve():
            return PROJECT
        return self.config.name or self.path.name

    @property
    def disagreements(self) -> list[Disagreement]:
        """Where config.json says one size and the table in the weights has another (the
        weights are what the tutor reads)."""
        said = (("hidden_size", self.config.width, self.table_shape[1]),)
        said += (("vocab_size", self.config.ids, self.table_shape[0]),)
        return [Disagreement(f, c, w) for f, c, w in said if c is not None and c != w]

    def _locate_embedding(self) -> tuple[Path, str]:
        """The table's file and name; a sharded checkpoint's index names the shard, so
        no other shard is read."""
        where = f"{self.path}: "
        if self._shards is None:
            single = self.path / WEIGHTS_FILE
            shapes = {n: e.shape for n, e in read_header(single)[0].items()}
            return single, find_input_table(shapes, self.config.family, where)
        key = find_input_table(dict.fromkeys(self._shards), self.config.family, where)
        return self._shards[key], key

    @cached_property
    def _entries(self) -> dict[str, TensorEntry]:
        """Every tensor of every weights file (reads each shard's header, not its data)."""
        files = [self._embed_file] if self._shards is None else sorted(set(self._shards.values()))
        try:
            return {name: e for f in files for name, e in read_header(f)[0].items()}
        except TableError as exc:
            raise recoded(ModelError, exc) from exc

    @property
    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: e.shape for name, e in self._entries.items()}

    @property
    def embedding_key(self) -> str:
        return self._embed_key

    @property
    def head(self) -> HeadKind:
        """Whether the output layer is the input table ("tied"), its own ("untied"),
        absent from these files ("none"), or the table is the whole model ("static")."""
        names = self._shards if self._shards is not None else self._entries
        family = "static" if self.static else self.config.family
        return head_kind(dict.fromkeys(names), self._embed_key, family, self.config.tie)

    @property
    def weights_bytes(self) -> int:
        """Size on disk of the weights files (every shard)."""
        files = {self._embed_file} if self._shards is None else set(self._shards.values())
        return sum(f.stat().st_size for f in files if f.is_file())

    @property
    def before_kind(self) -> BeforeKind:
        """ "saved": the real initial table ships beside the model; "recreated": drawn the
        way config.json says the model was initialised; "none": nothing honest to show."""
        return before_kind_of(self.path, self.config)

    @property
    def has_before(self) -> bool:
        """Whether a "before" stage can be shown (saved, or honestly re-created)."""
        return self.before_kind != "none"

    @property
    def before_description(self) -> str:
        """How the "before" table was obtained, for a label beside it."""
        init = self.config.initialisation
        if self.before_kind == "recreated" and init is not None:
            return (
                f"re-created: {init.describe()}, seed {RECREATED_SEED} "
                "(not this model's real initial table)"
            )
        return "saved at initialisation" if self.before_kind == "saved" else "not available"

    def table(self, stage: Stage = "after") -> EmbeddingTable:
        """The embedding table after training, or as it was initialised ("before")."""
        if stage not in STAGES:
            raise ModelError(f"unknown stage {stage!r}; choose before or after")
        if stage not in self._tables:
            self._tables[stage] = self._load(stage)
        return self._tables[stage]

    def _load(self, stage: Stage) -> EmbeddingTable:
        kind = self.before_kind
        if stage == "before" and kind == "none":
            raise ModelError(
                f"{self.path} has no {BEFORE_FILE} and its config.json names no "
                "initialisation (initializer_range), so the table before training is "
                "unknown; only the 'after' stage is available for this model",
                "no_before",
                folder=self.path,
                file=Name(BEFORE_FILE),
                config=Name(CONFIG_FILE),
                field=Name("initializer_range"),
            )
        init = self.config.initialisation
        if stage == "before" and kind == "recreated" and init is not None:
            return RecreatedTable(*self.table_shape, std=init.std, seed=RECREATED_SEED)
        try:
            if stage == "after" and self.static and not self.static.plain:
                return read_static(self.static)
            if stage == "after":
                return EmbeddingTable.from_safetensors(self._embed_file, self._embed_key)
            return EmbeddingTable.from_safetensors(self.path / BEFORE_FILE)
        except TableError as exc:
            raise recoded(ModelError, exc) from exc

    @property
    def embedding_parameters(self) -> int:
        """V x d of the input table (a static model's stored rows x d: IDs may share a row)."""
        rows, dim = self.table_shape
        return (self.static.rows if self.static else rows) * dim

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


@dataclass(frozen=True, slots=True)
class TableShape:
    """What the explore screen's shapes panel says about a model's input table."""

    vocab: int
    dim: int
    dtype: str
    table_parameters: int
    total_parameters: int
    head: HeadKind
    weights_bytes: int
    before: BeforeKind
    rows: int  # rows stored: fewer than `vocab` where a static model's IDs share rows
    disagreements: tuple[Disagreement, ...] = ()

    @property
    def share(self) -> float:
        """The table's share of every parameter in the files (tied: counted once)."""
        return self.table_parameters / self.total_parameters if self.total_parameters else 0.0


def table_shape(model: ProjectModel) -> TableShape:
    """The table's shape and cost; reads every shard's header, never its data."""
    vocab, dim = model.table_shape
    return TableShape(
        vocab=vocab,
        dim=dim,
        dtype=model.table_dtype,
        table_parameters=model.embedding_parameters,
        total_parameters=model.total_parameters,
        head=model.head,
        weights_bytes=model.weights_bytes,
        before=model.before_kind,
        rows=model.static.rows if model.static else vocab,
        disagreements=tuple(model.disagreements),
    )
