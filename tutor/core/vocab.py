"""Train the tokenizers the lesson compares, with the `tokenizers` library.

Each scheme answers one step of the lesson's path of representations: characters,
words, character BPE, and two byte-level BPEs whose training mix differs (mostly English
versus mostly Chinese) so that the cost of an unfamiliar language can be measured.

Chinese has no spaces, so words come from a real segmenter (jieba). The word scheme's
vocabulary is jieba's words; the BPEs learn their merges inside those words, as GPT-2's
pre-tokenizer keeps merges inside space-separated words, so a generated corpus's
repeated clauses never fuse into one token. The saved BPEs need no segmenter to encode.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from tutor.core import segment
from tutor.core.corpus import Corpus

UNK = "[UNK]"


@dataclass(frozen=True)
class TokenizerSpec:
    """How one scheme is trained: its vocabulary size and training mix."""

    name: str
    vocab_size: int
    zh_share: float  # of the Chinese training split's lines
    en_share: float  # of the English training split's lines
    min_frequency: int = 2  # a pair seen fewer times is never merged


BPE_SPECS = {
    "char-bpe": TokenizerSpec("char-bpe", 6000, 1.0, 0.25),
    # A sprinkle of Chinese, too rare to earn merges: what an English-trained vocabulary sees.
    "byte-bpe-en": TokenizerSpec("byte-bpe-en", 6000, 0.002, 1.0, min_frequency=100),
    # Merges stop where pairs get rarer than this or the vocabulary is full.
    "byte-bpe-zh": TokenizerSpec("byte-bpe-zh", 8000, 1.0, 0.25, min_frequency=10),
}


@cache
def _segmented(text: str) -> tuple[str, ...]:
    return tuple(w for line in text.splitlines() for w in segment.words(line))


def _every(lines: list[str], share: float) -> list[str]:
    """Every k-th line, so a mix is deterministic and evenly spread."""
    return lines[:: max(1, round(1 / share))] if share > 0 else []


def _mix(corpus: Corpus, spec: TokenizerSpec) -> Iterable[str]:
    """The training mix: Chinese as jieba words (merges stay inside words), English lines."""
    zh = "\n".join(_every(corpus.zh_train.splitlines(), spec.zh_share))
    return [*_segmented(zh), *_every(corpus.en_train.splitlines(), spec.en_share)]


def _train_lines(corpus: Corpus) -> list[str]:
    return corpus.zh_train.splitlines() + corpus.en_train.splitlines()


def build_char(corpus: Corpus) -> Tokenizer:
    """One token per character of the training split; anything else is [UNK]."""
    chars = sorted({ch for line in _train_lines(corpus) for ch in line})
    vocab = {UNK: 0} | {ch: i + 1 for i, ch in enumerate(chars)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"(?m)."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return tok


def build_word(corpus: Corpus) -> Tokenizer:
    """Every word jieba finds in the training split; any other word is [UNK].

    The saved file splits on whitespace and punctuation only (a tokenizer.json cannot hold
    jieba); the tutor's word scheme segments with jieba first, then looks words up here.
    """
    tok = Tokenizer(models.WordLevel(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("isolated")]
    )
    trainer = trainers.WordLevelTrainer(
        vocab_size=1_000_000, min_frequency=1, special_tokens=[UNK], show_progress=False
    )
    words = [*_segmented(corpus.zh_train), *_segmented(corpus.en_train)]
    tok.train_from_iterator(words, trainer=trainer)
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=False)
    return tok


def build_char_bpe(corpus: Corpus, spec: TokenizerSpec) -> Tokenizer:
    """BPE whose base alphabet is exactly the training characters, with [UNK]."""
    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("isolated")]
    )
    alphabet = sorted({ch for line in _train_lines(corpus) for ch in line if not ch.isspace()})
    trainer = trainers.BpeTrainer(
        vocab_size=spec.vocab_size + len(alphabet),
        special_tokens=[UNK],
        initial_alphabet=alphabet,
        limit_alphabet=len(alphabet),
        show_progress=False,
    )
    tok.train_from_iterator(_mix(corpus, spec), trainer=trainer)
    tok.decoder = decoders.BPEDecoder()
    return tok


def build_byte_bpe(corpus: Corpus, spec: TokenizerSpec) -> Tokenizer:
    """Byte-level BPE: 256 byte tokens first, so no text is ever [UNK]."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=spec.vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        min_frequency=spec.min_frequency,
        show_progress=False,
    )
    tok.train_from_iterator(_mix(corpus, spec), trainer=trainer)
    return tok


def build_all(corpus: Corpus) -> dict[str, Tokenizer]:
    return {
        "char": build_char(corpus),
        "word": build_word(corpus),
        "char-bpe": build_char_bpe(corpus, BPE_SPECS["char-bpe"]),
        "byte-bpe-en": build_byte_bpe(corpus, BPE_SPECS["byte-bpe-en"]),
        "byte-bpe-zh": build_byte_bpe(corpus, BPE_SPECS["byte-bpe-zh"]),
    }


@dataclass(frozen=True)
class MergeOrder:
    """How closely token IDs follow merge order: id of merge i's token versus base + i."""

    merges: int
    base: int
    share_exact: float
    max_deviation: int


def merge_order(tokenizer_json: Path | str | dict) -> MergeOrder:
    """Measured on a BPE tokenizer.json; base = the ID the first merge would get."""
    data = (
        tokenizer_json
        if isinstance(tokenizer_json, dict)
        else json.loads(Path(tokenizer_json).read_text(encoding="utf-8"))
    )
    model = data["model"]
    vocab: dict[str, int] = model["vocab"]
    merges = [m.split(" ", 1) if isinstance(m, str) else m for m in model["merges"]]
    base = len(vocab) - len(merges)
    deviations = [abs(vocab["".join(pair)] - (base + i)) for i, pair in enumerate(merges)]
    exact = sum(1 for d in deviations if d == 0)
    return MergeOrder(
        len(merges), base, exact / len(merges) if merges else 1.0, max(deviations, default=0)
    )
