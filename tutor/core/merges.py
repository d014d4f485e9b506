"""Byte-level BPE one merge at a time: what the tokenizer does inside one call, spelled out.

The learner is to see that a token's ID records when its merge was learnt, so the walk
replays the tokenizer's own merges list (in its tokenizer.json) on the learner's text:
first every byte is its own token, then at each step the earliest-learnt merge that still
applies anywhere in the text joins every occurrence of its pair. Pairs never cross the
pre-tokenizer's pieces, exactly as in the tokenizer, so the last step's IDs are the ones
`Scheme.encode` gives (tests hold them equal).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from tokenizers import Tokenizer

from tutor.core.paths import tokenizers_dir
from tutor.core.tokenize import TokenizeError, check_text, get_scheme, shared_tokenizer

MAX_WALK_CHARS = 200  # ~600 bytes: every step keeps the whole text, and a screen shows it


@dataclass(frozen=True, slots=True)
class Merge:
    """One applied merge: its place in the merges list and the token it made."""

    rank: int  # 0 for the first merge learnt
    left: int
    right: int
    merged: int  # the new token's ID
    count: int  # how many times the pair was joined in this text


@dataclass(frozen=True, slots=True)
class MergeWalk:
    """The text's tokens before any merge, and after each merge that applied."""

    text: str
    scheme: str
    merges_learnt: int  # length of the tokenizer's merges list
    states: tuple[tuple[tuple[int, ...], ...], ...]  # per step: each piece's token IDs
    merges: tuple[Merge, ...]  # merges[i] leads from states[i] to states[i + 1]

    def ids(self, step: int) -> list[int]:
        """Every token ID of the text after `step` merges, in order."""
        return [id for piece in self.states[step] for id in piece]


@dataclass(frozen=True, slots=True)
class _Rules:
    tokenizer: Tokenizer
    vocab: dict[str, int]
    ranks: dict[tuple[int, int], tuple[int, int]]  # (left, right) -> (rank, merged id)
    learnt: int  # length of the merges list


@cache
def _rules(path: Path) -> _Rules:
    """The pre-tokenizer, the vocabulary and the merges of a byte-level tokenizer.json;
    the pre-tokenizer is that of the tokenizer its scheme already loaded."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    vocab: dict[str, int] = spec["model"]["vocab"]
    ranks = {}
    for rank, pair in enumerate(spec["model"]["merges"]):
        left, right = pair.split(" ") if isinstance(pair, str) else pair
        ids = (vocab[left], vocab[right])
        ranks.setdefault(ids, (rank, vocab[left + right]))
    merges = len(spec["model"]["merges"])
    return _Rules(shared_tokenizer(path), vocab, ranks, merges)  # the scheme's own


def rules_held() -> int:
    """How many tokenizers' merge tables `merge_walk` keeps now."""
    return _rules.cache_info().currsize


def release_rules() -> None:
    """Forget the merge tables kept: the lesson that steps through merges is left (the
    app calls this), and a table is a few MB of Python dicts."""
    _rules.cache_clear()


def _join(
    piece: tuple[int, ...], pair: tuple[int, int], merged: int
) -> tuple[tuple[int, ...], int]:
    """`piece` with every occurrence of `pair` joined, left to right (as the tokenizer does
    for "aaa": [aa, a]), and how many were joined."""
    out: list[int] = []
    joined = position = 0
    while position < len(piece):
        if piece[position : position + 2] == pair:
            out.append(merged)
            joined += 1
            position += 2
        else:
            out.append(piece[position])
            position += 1
    return tuple(out), joined


def merge_walk(text: str, scheme: str = "byte-bpe-zh") -> MergeWalk:
    """The merges of byte-level `scheme` applied to `text`, one at a time."""
    tokenizer_scheme = get_scheme(scheme)  # refuses an unknown scheme in the usual words
    if not tokenizer_scheme.byte_level:
        raise TokenizeError(
            f"{scheme} is not a byte-level tokenizer: it has no bytes to start from",
            "not_byte_level",
            scheme=scheme,
        )
    check_text(text, MAX_WALK_CHARS)
    rules = _rules(tokenizers_dir() / f"{scheme}.json")
    pieces = rules.tokenizer.pre_tokenizer.pre_tokenize_str(text)
    state = tuple(tuple(rules.vocab[byte] for byte in piece) for piece, _ in pieces)
    states, merges = [state], []
    while True:
        found = [
            (rules.ranks[pair], pair)
            for piece in state
            for pair in pairwise(piece)
            if pair in rules.ranks
        ]
        if not found:
            break
        (rank, merged), pair = min(found)
        joined = [_join(piece, pair, merged) for piece in state]
        state = tuple(piece for piece, _ in joined)
        count = sum(times for _, times in joined)
        merges.append(Merge(rank, pair[0], pair[1], merged, count))
        states.append(state)
    return MergeWalk(text, scheme, rules.learnt, tuple(states), tuple(merges))


@dataclass(frozen=True, slots=True)
class Absorbed:
    """A piece the training text never holds, and the merge that always takes it in."""

    id: int
    piece: str
    partner: str  # the piece it is merged with
    first: bool  # whether it is the merge's left part (else its right)
    merged_id: int
    merged: str
    merged_count: int  # how often the merged token occurs in the training text


@dataclass(frozen=True, slots=True)
class UnseenTokens:
    """The project model's vocabulary entries that its training text never holds, by kind:
    a fact (`rows.never_seen_share`) says how many; this says why."""

    vocab: int
    never: int
    absorbed: int  # multi-byte pieces of Chinese text that a later merge always takes in
    english: int  # pieces of ASCII text: the tokenizer also learnt from English
    bytes: int  # single bytes
    other: int  # the rest (special tokens, whole pieces of text the model never reads)
    examples: tuple[Absorbed, ...]  # the absorbed pieces with the lowest IDs, each with
    # the merge that takes it in most often


@cache
def unseen_tokens(examples: int = 3) -> UnseenTokens:
    """Count the project tokenizer's IDs in the project model's training text (as the
    build measures `rows.never_seen_share`: each line, then the end-of-text token) and sort
    the never-seen ones by why. The counts are the run-time facts' (tutor.core.runfacts):
    measured once per set of artifacts in a child process, then read from the cache dir."""
    import numpy as np

    from tutor.core.paths import assets_dir
    from tutor.core.runfacts import MODEL, runtime_input_counts
    from tutor.core.tokenize import PROJECT, piece_bytes

    assets = assets_dir()
    rules, scheme = _rules(assets / MODEL / "tokenizer.json"), get_scheme(PROJECT)
    reserved = scheme.reserved_ids
    vocab = rules.tokenizer.get_vocab_size()
    counts = np.asarray(runtime_input_counts(assets), dtype=np.int64)[:vocab]
    pieces = {id: scheme.id_to_piece(id) for id in range(vocab)}
    # id -> the merge that takes it in most often in the text:
    # ((-count, rank), partner, merged, whether the id is the left part)
    absorbing: dict[int, tuple[tuple[int, int], int, int, bool]] = {}
    for (left, right), (rank, merged) in rules.ranks.items():
        order = (-int(counts[merged]), rank)
        for part, partner, first in ((left, right, True), (right, left, False)):
            if part not in absorbing or order < absorbing[part][0]:
                absorbing[part] = (order, partner, merged, first)
    kinds = {"absorbed": 0, "english": 0, "bytes": 0, "other": 0}
    found: list[Absorbed] = []
    for id in map(int, np.flatnonzero(counts == 0)):
        piece = pieces[id]
        data = b"" if id in reserved else piece_bytes(piece)
        if len(data) == 1:
            kinds["bytes"] += 1
        elif data and data.isascii():
            kinds["english"] += 1
        elif data and id in absorbing:
            kinds["absorbed"] += 1
            _order, partner, merged, first = absorbing[id]
            if len(found) < examples:
                found.append(
                    Absorbed(
                        id,
                        piece,
                        pieces[partner],
                        first,
                        merged,
                        pieces[merged],
                        int(counts[merged]),
                    )
                )
        else:
            kinds["other"] += 1
    never = int((counts == 0).sum())
    return UnseenTokens(vocab, never, examples=tuple(found), **kinds)
