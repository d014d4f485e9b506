"""What a Hugging Face model directory holds, by the conventions its architecture uses.

Checkpoints name their input table after the architecture (BERT's
`embeddings.word_embeddings.weight`, GPT-2's `wte.weight`, Llama's `embed_tokens.weight` ...),
so the table is looked for by the family `config.json` names first and by every known name
after; a directory nobody can read gets one line naming at most five candidates, never a
list of every tensor in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from tutor.core.refusal import C, Coded, Name

# tensor name -> shape; None where the shape is not read yet (a shard not opened)
Shapes = Mapping[str, tuple[int, ...] | None]
HeadKind = Literal["tied", "untied", "none", "static"]
BeforeKind = Literal["saved", "recreated", "none"]

CONFIG_FILE = "config.json"
BEFORE_FILE = "embeddings_before.safetensors"  # the shipped model's initial table

MAX_CANDIDATES = 5

# family -> the input table's name, as a suffix after any prefix ("bert.", "model." ...),
# most specific first.
TABLE_NAMES: dict[str, tuple[str, ...]] = {
    "bert": ("embeddings.word_embeddings.weight",),  # BERT, RoBERTa, MiniLM, MPNet, XLM-R
    "llama": ("embed_tokens.weight",),  # Llama, Qwen, Mistral, Gemma, Phi-3; the project model
    "gpt2": ("wte.weight",),
    "gpt_neox": ("embed_in.weight",),
    "t5": ("shared.weight", "encoder.embed_tokens.weight"),  # T5, mT5, BART
    "opt": ("decoder.embed_tokens.weight",),
    "bloom": ("word_embeddings.weight",),  # Falcon, BLOOM
    # model2vec and tokenlearn; sentence-transformers' StaticEmbedding
    "static": ("embeddings", "embedding.weight"),
}

# config.json's model_type -> family
MODEL_TYPES: dict[str, str] = {
    **dict.fromkeys(
        ("bert", "roberta", "xlm-roberta", "distilbert", "mpnet", "electra", "camembert"),
        "bert",
    ),
    **dict.fromkeys(("albert", "deberta", "deberta-v2", "nomic_bert", "modernbert"), "bert"),
    **dict.fromkeys(
        ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe"), "llama"
    ),
    **dict.fromkeys(("gemma", "gemma2", "gemma3_text", "phi3", "olmo", "olmo2"), "llama"),
    **dict.fromkeys(("gpt2", "gptj", "gpt_bigcode"), "gpt2"),
    "gpt_neox": "gpt_neox",
    **dict.fromkeys(("t5", "mt5", "umt5", "bart", "mbart"), "t5"),
    "opt": "opt",
    **dict.fromkeys(("falcon", "bloom"), "bloom"),
    "model2vec": "static",
}

# lower-cased start of an `architectures` class name -> family (longest match wins)
ARCHITECTURES: dict[str, str] = {
    "bert": "bert",
    "roberta": "bert",
    "xlmroberta": "bert",
    "distilbert": "bert",
    "mpnet": "bert",
    "llama": "llama",
    "qwen": "llama",
    "mistral": "llama",
    "gemma": "llama",
    "gpt2": "gpt2",
    "gptneox": "gpt_neox",
    "t5": "t5",
    "mt5": "t5",
    "bart": "t5",
    "opt": "opt",
    "falcon": "bloom",
    "bloom": "bloom",
    "staticmodel": "static",
}

# Output heads by name (a suffix after any prefix); encoders have none.
HEAD_NAMES = ("lm_head.weight", "embed_out.weight", "cls.predictions.decoder.weight")
HEAD_EXACT = ("output.weight",)
ENCODER_FAMILIES = frozenset({"bert"})

# Names that mark a 2-D "embedding" that is not the token table.
_NOT_TOKEN_TABLE = ("position", "token_type", "wpe", "pos_emb", "rotary")


class HFError(Coded, ValueError):
    """A model directory whose parts cannot be found; the message is one line for humans,
    the code and values let an interface say it in its language."""


def _matches(name: str, suffix: str) -> bool:
    return name == suffix or name.endswith("." + suffix)


def family_of(model_type: str | None, architectures: list[str] | None) -> str | None:
    """The naming family config.json points at, or None when it names nothing we know."""
    if model_type and model_type.lower() in MODEL_TYPES:
        return MODEL_TYPES[model_type.lower()]
    for arch in architectures or []:
        lowered = arch.lower()
        starts = [prefix for prefix in ARCHITECTURES if lowered.startswith(prefix)]
        if starts:
            return ARCHITECTURES[max(starts, key=len)]
    return None


def _listed(names: list[str], shapes: Shapes) -> Name:
    """The first MAX_CANDIDATES names, each with its shape where known."""
    return Name(
        ", ".join(
            n if shapes[n] is None else f"{n} {list(shapes[n] or ())}"
            for n in names[:MAX_CANDIDATES]
        )
    )


def _shown(names: list[str], shapes: Shapes) -> str:
    more = len(names) - MAX_CANDIDATES
    return _listed(names, shapes) + (f" and {more:,} more" if more > 0 else "")


def find_input_table(shapes: Shapes, family: str | None = None, where: str = "") -> str:
    """The input embedding table's name: the family's names, then every known name, then
    the one 2-D tensor called *embed* that is not a position table."""
    order = list(TABLE_NAMES[family]) if family else []
    order += [s for names in TABLE_NAMES.values() for s in names if s not in order]
    two_d = [n for n, shape in shapes.items() if shape is None or len(shape) == 2]
    for suffix in order:
        found = sorted(n for n in two_d if _matches(n, suffix))
        if len(found) == 1:
            return found[0]
        if found:
            raise HFError(
                f"{where}more than one tensor could be the input table "
                f"(each ends in {suffix!r}): {_shown(found, shapes)}",
                "table_ambiguous",
                folder=Name(where.removesuffix(": ")),
                suffix=Name(suffix),
                candidates=_listed(found, shapes),
                count=len(found),
            )
    embed = [
        n
        for n in two_d
        if "embed" in n.lower() and not any(mark in n.lower() for mark in _NOT_TOKEN_TABLE)
    ]
    if len(embed) == 1:
        return embed[0]
    candidates = embed or sorted(two_d, key=lambda n: (-(shapes[n] or (0,))[0], n))
    kind = f"{family} models use" if family else "we know"
    found = f"; candidates: {_shown(candidates, shapes)}" if candidates else "; no 2-D tensors"
    raise HFError(
        f"{where}no input embedding table: no tensor has a name {kind} "
        f"({', '.join(order[:MAX_CANDIDATES])} ...){found}",
        "no_table" if candidates else "no_2d_tensors",
        folder=Name(where.removesuffix(": ")),
        known=Name(", ".join(order[:MAX_CANDIDATES])),
        candidates=_listed(candidates, shapes),
        count=len(candidates),
    )


def head_kind(shapes: Shapes, table: str, family: str | None, tie: bool | None) -> HeadKind:
    """Whether the output layer reuses the input table ("tied"), has its own ("untied"),
    these files hold no output layer at all ("none": an encoder such as BERT, or a folder
    with no config.json to say the head is tied), or the table is the whole model
    ("static")."""
    heads = [
        n
        for n in shapes
        if n != table and (n in HEAD_EXACT or any(_matches(n, h) for h in HEAD_NAMES))
    ]
    if heads:
        return "tied" if tie else "untied"
    if family == "static":
        return "static"
    if tie is False or (tie is None and (family is None or family in ENCODER_FAMILIES)):
        return "none"  # nothing in these files, and no config that says the head is tied
    return "tied"  # Hugging Face's default: tie_word_embeddings is true unless config says not


@dataclass(frozen=True, slots=True)
class Initialisation:
    """How config.json says the table was initialised: normal(0, std)."""

    std: float
    source: str  # the config field it comes from, for the label

    def describe(self) -> str:
        return f"normal(0, {self.std:g}) from config.json's {self.source}"


def initialisation(
    initializer_range: float | None, initializer_factor: float | None
) -> Initialisation | None:
    """The initialisation a config describes (BERT, GPT-2, Llama: initializer_range; T5:
    initializer_factor x 1.0 for the shared table), or None when it describes none."""
    if initializer_range is not None and initializer_range > 0:
        return Initialisation(float(initializer_range), "initializer_range")
    if initializer_factor is not None and initializer_factor > 0:
        return Initialisation(float(initializer_factor), "initializer_factor")
    return None


class TextConfig(BaseModel):
    """The language model's part of a multimodal config (Gemma 3, Qwen-VL: `text_config`)."""

    model_type: str | None = None
    vocab_size: int | None = None
    hidden_size: int | None = None
    tie_word_embeddings: bool | None = None
    initializer_range: float | None = None


class ModelConfig(BaseModel):
    """config.json: the project's fields and the Hugging Face fields the tutor reads; the
    rest of an HF config is ignored."""

    vocab_size: int | None = None
    hidden_size: int | None = None
    tie_word_embeddings: bool | None = None
    context: int | None = None
    hidden: int | None = None
    seed: int | None = None
    steps: int | None = None
    tokenizer: str | None = None
    model_type: str | None = None
    architectures: list[str] | None = None
    initializer_range: float | None = None
    initializer_factor: float | None = None
    text_config: TextConfig | None = None
    name_or_path: str | None = Field(None, alias="_name_or_path")  # "bert-base-uncased"

    @property
    def name(self) -> str | None:
        """The model's name as its config gives it; a local path there names nothing."""
        given = (self.name_or_path or "").strip()
        return given if given and not given.startswith(("/", ".", "~")) else None

    @property
    def width(self) -> int | None:
        """hidden_size, or the language model's within a multimodal config."""
        text = self.text_config.hidden_size if self.text_config else None
        return self.hidden_size or text

    @property
    def ids(self) -> int | None:
        """vocab_size, or the language model's within a multimodal config."""
        text = self.text_config.vocab_size if self.text_config else None
        return self.vocab_size or text

    @property
    def family(self) -> str | None:
        text_type = self.text_config.model_type if self.text_config else None
        return family_of(self.model_type, self.architectures) or family_of(text_type, None)

    @property
    def tie(self) -> bool | None:
        if self.tie_word_embeddings is None and self.text_config:
            return self.text_config.tie_word_embeddings
        return self.tie_word_embeddings

    @property
    def initialisation(self) -> Initialisation | None:
        text_range = self.text_config.initializer_range if self.text_config else None
        return initialisation(self.initializer_range or text_range, self.initializer_factor)


def first_error(exc: ValidationError) -> str:
    """A pydantic error's first problem, on one line."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]


def field_of(exc: ValidationError) -> Name:
    """The field a pydantic error's first problem is in ("" when the text is not JSON)."""
    return Name(".".join(str(part) for part in exc.errors()[0]["loc"]))


def invalid_json(
    kind: type[C], path: Path, what: str, exc: ValidationError, code: str, not_json: str
) -> C:
    """A JSON file pydantic refused, as a `kind` error: `code` names the field at fault,
    `not_json` when the text is not JSON at all."""
    field = field_of(exc)
    message = f"{path}: not a valid {what}: {first_error(exc)}"
    return kind(message, code if field else not_json, path=path, field=field)


def read_config(path: Path) -> ModelConfig:
    """config.json, or an empty config where there is none."""
    if not path.is_file():
        return ModelConfig()
    try:
        return ModelConfig.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise invalid_json(HFError, path, "config", exc, "bad_config", "config_not_json") from exc


def before_kind_of(model_dir: Path, config: ModelConfig | None = None) -> BeforeKind:
    """ "saved": the real initial table ships beside the model; "recreated": it can be
    drawn the way config.json says the model was initialised; "none": nothing honest to
    show. Reads no weights, so a page can say it before the model is opened."""
    if (model_dir / BEFORE_FILE).is_file():
        return "saved"
    config = config or read_config(model_dir / CONFIG_FILE)
    return "recreated" if config.initialisation is not None else "none"
