"""Widget blocks: the YAML inside ```tutor <widget> fences, one pydantic model per widget.

The TUI imports these models to build its widgets, so a config that passed `tutor check`
is exactly what the widget receives.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from tutor.core.experiment_record import Scheme
from tutor.core.names import NeighbourScheme, Stage, TokenScheme

PipelineStep = Literal["text", "tokens", "ids", "embedding", "attention", "ffn", "output"]

# A position inside the widget's YAML, as pydantic spells it: ("tokens", 2).
Loc = tuple[str | int, ...]


class WidgetConfig(BaseModel):
    """Base of every widget config: unknown fields are errors, configs never change."""

    # a field's docstring is its description in `tutor check --schema` and content/README.md
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        """Strings the widget looks up as one token of the project model.

        The checker warns when the project tokenizer splits one of them, because the
        widget could then only show the first piece.
        """
        return iter(())


class TokensWidget(WidgetConfig):
    """Live tokenization of `text` under several schemes, side by side."""

    text: str
    """The text tokenized when the page opens."""
    schemes: list[TokenScheme] = Field(default=["byte-bpe-zh", "char", "byte-bpe-en"], min_length=1)
    """The tokenizers shown side by side."""
    editable: bool = True
    """Whether the learner may type their own text."""


class NeighboursWidget(WidgetConfig):
    """Nearest tokens to a chosen one under each representation scheme."""

    tokens: list[str] = Field(min_length=1)
    """Tokens the learner can pick from; each one token of the project model."""
    schemes: list[NeighbourScheme] = Field(
        default=["id", "onehot", "before", "after"], min_length=1
    )
    """How nearness is measured: id, one-hot, the table before or after training."""
    k: int = Field(default=5, ge=1, le=50)
    """How many neighbours to list (1 to 50)."""
    beside: bool = False
    """Also show a real model's trained neighbours (`tutor --model DIR`), or how to open one."""

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token


class LookupWidget(WidgetConfig):
    """one-hot x E = row, on a small table with its numbers and as real-scale shapes."""

    sentence: str
    """The sentence whose tokens are looked up."""
    small_vocab: int = Field(default=8, ge=2, le=64)
    """Rows of the small table shown with its numbers (2 to 64)."""
    small_dim: int = Field(default=4, ge=1, le=16)
    """Columns of the small table (1 to 16)."""


class HeatmapWidget(WidgetConfig):
    """Cosine similarity of a few tokens' rows, before or after training."""

    tokens: list[str] = Field(min_length=2, max_length=40)
    """Tokens compared pairwise (2 to 40); each one token of the project model."""
    stage: Stage = "before"
    """The table before training or after."""

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token


class PipelineWidget(WidgetConfig):
    """The text -> output pipeline with one step highlighted."""

    current: PipelineStep
    """The step highlighted."""


class PathStage(BaseModel):
    """One step on the path of representations: what it solved and where it got stuck."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str
    """The representation at this stage."""
    solved: str
    """What it solved."""
    stuck: str
    """Where it got stuck."""


class PathWidget(WidgetConfig):
    """The path of representations, one stage at a time."""

    stages: list[PathStage] = Field(min_length=1)
    """The stages in order; at least one."""


class RowsWidget(WidgetConfig):
    """Each token's row id across sentences: same token, same row, whatever the context."""

    sentences: list[str] = Field(min_length=1)
    """Sentences in which the token's row id is shown."""
    token: str | None = None
    """The token to follow (optional); one token of the project model."""

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        if self.token is not None:
            yield ("token",), self.token


class AnalogyWidget(WidgetConfig):
    """a - b + c and the tokens nearest to the result."""

    a: str
    """The token a in a - b + c."""
    b: str
    """The token b in a - b + c."""
    c: str
    """The token c in a - b + c."""
    k: int = Field(default=5, ge=1, le=50)
    """How many nearest tokens to list (1 to 50)."""
    beside: bool = False
    """Also show a real model's answer (`tutor --model DIR`), or how to open one."""

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        yield ("a",), self.a
        yield ("b",), self.b
        yield ("c",), self.c


class TrainingWidget(WidgetConfig):
    """The recorded training run, checkpoint by checkpoint: the tokens' cosine heatmap,
    the neighbours of a few of them, the loss and the category contrast."""

    tokens: list[str] = Field(min_length=2, max_length=40)
    """The heatmap's tokens (2 to 40), each one token recorded during training."""
    neighbours: list[str] = Field(default_factory=list, max_length=5)
    """Up to 5 tokens whose nearest recorded tokens are listed at each step."""
    k: int = Field(default=5, ge=1, le=20)
    """How many nearest tokens to list for each (1 to 20)."""
    pairs: list[Annotated[list[str], Field(min_length=2, max_length=2)]] = Field(
        default_factory=list, max_length=5
    )
    """Up to 5 [male, female] pairs, e.g. [男人, 女人]: arrows on the map, along its first axis."""

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token
        for index, token in enumerate(self.neighbours):
            yield ("neighbours", index), token
        for index, pair in enumerate(self.pairs):
            for side, token in enumerate(pair):
                yield ("pairs", index, side), token


ByteScheme = Literal["byte-bpe-zh", "byte-bpe-en"]


class MergesWidget(WidgetConfig):
    """A byte-level BPE's merges applied to `text` one at a time: pairs join, new IDs appear."""

    text: str = Field(min_length=1, max_length=200)
    """The text whose bytes are merged when the page opens (1 to 200 characters)."""
    scheme: ByteScheme = "byte-bpe-zh"
    """The byte-level tokenizer whose merges list is replayed."""
    editable: bool = True
    """Whether the learner may type their own text."""


class UnseenWidget(WidgetConfig):
    """The tokens the project model's training text never holds, counted by why."""

    examples: int = Field(default=3, ge=1, le=8)
    """How many never-seen pieces to show with the merge that takes them in (1 to 8)."""


class OneStepWidget(WidgetConfig):
    """One optimizer step of the project model on `text`: its loss before/after, rows changed."""

    text: str = Field(min_length=1, max_length=100)
    """The sentence the step trains on (1 to 100 characters)."""
    optimizer: Literal["adam", "sgd"] = "adam"
    """adam (as training, without weight decay) or plain sgd."""
    editable: bool = True
    """Whether the learner may type their own sentence."""


class InputsWidget(WidgetConfig):
    """The recorded inputs experiment: one model trained with the ID as a number, with a
    one-hot row times W and with a lookup; validation-loss curves beside chance and the
    token-frequency baseline, the one-hot/lookup gap, and what each first layer costs."""

    schemes: list[Scheme] = Field(default=["id-number", "onehot", "table"], min_length=1)
    """The runs whose curves are drawn."""


class WidthWidget(WidgetConfig):
    """The recorded width experiment: the lesson's 20 category words on a line when each
    token gets one number (d = 1) and on a plane (d = 2), with the validation loss and the
    category contrast at every width."""

    plane: bool = True
    """Also draw the words' rows at d = 2 as points on a plane."""


class RenumberWidget(WidgetConfig):
    """The trained model's IDs renumbered by a random permutation, consistently and in the
    tokenizer only: the sentence's next-token predictions and the validation loss each way;
    a key draws a new permutation."""

    sentence: str = Field(min_length=1, max_length=40)
    """The sentence whose next token the model predicts (1 to 40 characters)."""


WIDGETS: dict[str, type[WidgetConfig]] = {
    "tokens": TokensWidget,
    "neighbours": NeighboursWidget,
    "lookup": LookupWidget,
    "heatmap": HeatmapWidget,
    "pipeline": PipelineWidget,
    "path": PathWidget,
    "rows": RowsWidget,
    "analogy": AnalogyWidget,
    "training": TrainingWidget,
    "merges": MergesWidget,
    "unseen": UnseenWidget,
    "one-step": OneStepWidget,
    "inputs": InputsWidget,
    "width": WidthWidget,
    "renumber": RenumberWidget,
}
