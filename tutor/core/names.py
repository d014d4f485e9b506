"""The names a learner or an author types for tokenization schemes, training stages and
recorded experiments.

Defined once, as the Literal types pydantic and the type checker read and as the tuples
argparse offers, so a new scheme cannot be accepted in one place and refused in another.
Plain data: `tutor --help` imports this without numpy or tokenizers.
"""

from __future__ import annotations

from typing import Literal, get_args

# the tokenizers a widget or `tutor tokenize --scheme` can name
TokenScheme = Literal["codepoint", "char", "word", "char-bpe", "byte-bpe-en", "byte-bpe-zh"]
TOKEN_SCHEMES: tuple[TokenScheme, ...] = get_args(TokenScheme)

# the tokenizer of the model in use (--model), whatever its kind
PROJECT = "project"

# how the neighbours of a token are found: by id, by one-hot vector, by the table's rows
NeighbourScheme = Literal["id", "onehot", "before", "after"]
NEIGHBOUR_SCHEMES: tuple[NeighbourScheme, ...] = get_args(NeighbourScheme)

# the embedding table before training (its random start) and after
Stage = Literal["before", "after"]
STAGES: tuple[Stage, ...] = get_args(Stage)

# the experiments the assets build records and `tutor experiment NAME` prints
RecordedExperiment = Literal["inputs", "width"]
RECORDED_EXPERIMENTS: tuple[RecordedExperiment, ...] = get_args(RecordedExperiment)
