"""Widget blocks: the YAML inside ```tutor <widget> fences, one pydantic model per widget.

The TUI imports these models to build its widgets, so a config that passed `tutor check`
is exactly what the widget receives.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TokenScheme = Literal["codepoint", "char", "word", "char-bpe", "byte-bpe-en", "byte-bpe-zh"]
NeighbourScheme = Literal["id", "onehot", "before", "after"]
Stage = Literal["before", "after"]
PipelineStep = Literal["text", "tokens", "ids", "embedding", "attention", "ffn", "output"]

# A position inside the widget's YAML, as pydantic spells it: ("tokens", 2).
Loc = tuple[str | int, ...]


class WidgetConfig(BaseModel):
    """Base of every widget config: unknown fields are errors, configs never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        """Strings the widget looks up as one token of the project model.

        The checker warns when the project tokenizer splits one of them, because the
        widget could then only show the first piece.
        """
        return iter(())


class TokensWidget(WidgetConfig):
    """Live tokenization of `text` under several schemes, side by side."""

    text: str
    schemes: list[TokenScheme] = Field(
        default_factory=lambda: ["byte-bpe-zh", "char", "byte-bpe-en"], min_length=1
    )
    editable: bool = True


class NeighboursWidget(WidgetConfig):
    """Nearest tokens to a chosen one under each representation scheme."""

    tokens: list[str] = Field(min_length=1)
    schemes: list[NeighbourScheme] = Field(
        default_factory=lambda: ["id", "onehot", "before", "after"], min_length=1
    )
    k: int = Field(default=5, ge=1, le=50)

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token


class LookupWidget(WidgetConfig):
    """one-hot x E = row, on a small table with its numbers and as real-scale shapes."""

    sentence: str
    small_vocab: int = Field(default=8, ge=2, le=64)
    small_dim: int = Field(default=4, ge=1, le=16)


class HeatmapWidget(WidgetConfig):
    """Cosine similarity of a few tokens' rows, before or after training."""

    tokens: list[str] = Field(min_length=2, max_length=40)
    stage: Stage = "before"

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token


class PipelineWidget(WidgetConfig):
    """The text -> output pipeline with one step highlighted."""

    current: PipelineStep


class PathStage(BaseModel):
    """One step on the path of representations: what it solved and where it got stuck."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    solved: str
    stuck: str


class PathWidget(WidgetConfig):
    """The path of representations, one stage at a time."""

    stages: list[PathStage] = Field(min_length=1)


class RowsWidget(WidgetConfig):
    """Each token's row id across sentences: same token, same row, whatever the context."""

    sentences: list[str] = Field(min_length=1)
    token: str | None = None

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        if self.token is not None:
            yield ("token",), self.token


class AnalogyWidget(WidgetConfig):
    """a - b + c and the tokens nearest to the result."""

    a: str
    b: str
    c: str
    k: int = Field(default=5, ge=1, le=50)

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        yield ("a",), self.a
        yield ("b",), self.b
        yield ("c",), self.c


class TrainingWidget(WidgetConfig):
    """The recorded training run, checkpoint by checkpoint: the tokens' cosine heatmap,
    the neighbours of a few of them, the loss and the category contrast."""

    tokens: list[str] = Field(min_length=2, max_length=40)
    neighbours: list[str] = Field(default_factory=list, max_length=5)
    k: int = Field(default=5, ge=1, le=20)

    def single_tokens(self) -> Iterator[tuple[Loc, str]]:
        for index, token in enumerate(self.tokens):
            yield ("tokens", index), token
        for index, token in enumerate(self.neighbours):
            yield ("neighbours", index), token


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
}
