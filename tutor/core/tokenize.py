"""Text -> tokens (readable piece, id, character span) under each scheme the lesson compares.

Every scheme answers the same questions (encode, decode, id <-> piece, "is this one token?")
so that screens and the CLI never special-case a tokenizer. Byte-level pieces show their
whole UTF-8 characters as text and every other byte as hex ("<E7 8C>", "苹果<E6>"), because
a learner must see that one Chinese character can be several tokens.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from tokenizers import Tokenizer

from tutor.core.names import PROJECT, TOKEN_SCHEMES
from tutor.core.paths import default_model_dir, tokenizers_dir
from tutor.core.refusal import Refusal

SCHEMES = TOKEN_SCHEMES
MAX_TEXT_CHARS = 100_000
CODEPOINT_VOCAB = 0x110000  # 1,114,112: every code point U+0000..U+10FFFF has an id

_MAX_PIECES_IN_MESSAGE = 12
_HEX_RUN = re.compile(r"<([0-9A-F]{2}(?: [0-9A-F]{2})*)>")
_ESCAPED_RUN = re.compile("[\udc80-\udcff]+")
# a SentencePiece byte-fallback piece (Llama 2, Mistral, Gemma): one raw byte
_FALLBACK_BYTE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_SURROGATE = re.compile("[\ud800-\udfff]")
# placeholders and specials by name: BERT's [unusedN] and [PAD]/[CLS]/[SEP]/[MASK], Gemma's
# <unusedN>, T5's <extra_id_N>, Llama 3's <|reserved_special_token_N|>, <pad>, <mask>, <s> ...
_RESERVED = re.compile(
    r"\[(?:unused\d+|PAD|UNK|CLS|SEP|MASK)\]|<(?:unused\d+|extra_id_\d+|pad|unk|mask|s|/s)>"
    r"|<\|[^|]*\|>"
)
# a word-start mark (SentencePiece's ▁, GPT-2's Ġ) or a byte piece: vocabulary notation
_PIECE_NOTATION = re.compile(r"[▁Ġ]|<0x[0-9A-Fa-f]{2}>|<[0-9A-F]{2}(?: [0-9A-F]{2})*>")


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its readable piece, its id and the characters text[start:end] it came from."""

    piece: str
    id: int
    start: int
    end: int


METASPACE = "▁"  # SentencePiece's space, which starts a word
QUOTE_CHARS = 40  # an error message quotes at most this many characters of the input


def quoted(text: str) -> str:
    """`text` as an error message quotes it: a 5,000-character paste is not echoed whole."""
    if len(text) <= QUOTE_CHARS:
        return repr(text)
    return f"{text[:QUOTE_CHARS]!r}… ({len(text):,} characters)"


class TokenizeError(Refusal):
    """A tokenization request that cannot be answered (a code per kind of refusal)."""


def check_text(text: str, limit: int = MAX_TEXT_CHARS) -> None:
    """Refuse what no scheme can answer: text over `limit` characters, and lone surrogates
    (what Python makes of invalid UTF-8 on a command line), which are not Unicode text."""
    if len(text) > limit:
        raise TokenizeError(
            f"text is {len(text):,} characters long; the limit is {limit:,}",
            "too_long",
            chars=len(text),
            limit=limit,
        )
    bad = _SURROGATE.search(text)
    if bad:
        raise TokenizeError(
            f"text is not valid Unicode: lone surrogate U+{ord(bad[0]):04X} at character "
            f"{bad.start()} (was the input valid UTF-8?)",
            "not_unicode",
            codepoint=f"U+{ord(bad[0]):04X}",
            at=bad.start(),
        )


def _quote_pieces(pieces: Sequence[str]) -> str:
    shown = " + ".join(repr(p) for p in pieces[:_MAX_PIECES_IN_MESSAGE])
    if len(pieces) > _MAX_PIECES_IN_MESSAGE:
        shown += f" + ... ({len(pieces)} pieces)"
    return shown


class Scheme(ABC):
    """A tokenizer as the lesson sees it: pieces, ids, vocabulary size."""

    name: str
    vocab_size: int
    byte_level: bool
    special_ids: frozenset[int]

    @abstractmethod
    def encode(self, text: str) -> list[Token]:
        """Tokens of `text`, in order, with character spans into `text`."""

    @abstractmethod
    def decode(self, ids: Sequence[int]) -> str:
        """The text that `ids` stand for."""

    @abstractmethod
    def id_to_piece(self, id: int) -> str:
        """Readable text of one id (hex bytes for a partial UTF-8 byte-level token)."""

    @abstractmethod
    def piece_to_id(self, piece: str) -> int | None:
        """The id whose readable piece is exactly `piece`, or None."""

    def token_bytes(self, token: Token, text: str) -> bytes:
        """The bytes `token` stands for in `text` (it came from `encode(text)`): the text
        it covers, not its vocabulary spelling ("▁cat" covers " cat", [UNK] the word it
        replaced)."""
        return text[token.start : token.end].encode("utf-8")

    @property
    def reserved_ids(self) -> frozenset[int]:
        """Special tokens and placeholders ([unusedN], <pad>, [MASK] ...): rows that say
        nothing about how words are used, left out of every cosine neighbour list."""
        return self.special_ids

    # whether a word typed alone is spelled differently at the start of a word ("▁cat",
    # "Ġcat") than inside one ("cat"); False where a piece is the same wherever it stands
    marks_word_starts: bool = False

    def word_forms(self, word: str) -> tuple[str, ...]:
        """How `word` is tried, in order, as the text a person types: at the start of a
        word in running text first."""
        return (word,)

    def spelled_as_piece(self, text: str) -> bool:
        """Whether `text` is written in the vocabulary's own notation (a word-start mark,
        byte pieces, a placeholder's or special token's name), so it can only mean that
        exact entry."""
        notation = _PIECE_NOTATION.search(text) or _RESERVED.fullmatch(text)
        return bool(notation) or text.startswith(" ")

    def single_id(self, piece: str, exact: bool = False) -> int:
        """The id of the word a person typed if it is one token; otherwise say what it becomes.

        A typed word means what the tokenizer makes of it at the start of a word: `cat` is
        `▁cat` or `Ġcat` in a vocabulary that marks word starts, never its mid-word piece.
        `exact` asks for the vocabulary entry spelled `piece` instead. Learners type words;
        whether a word is one row of the table is the point of the lesson, so the error names
        the pieces instead of silently using the first one.
        """
        if not piece:
            raise TokenizeError("an empty string is not a token", "empty_token")
        if exact:
            return self.exact_id(piece)
        if not self.marks_word_starts or self.spelled_as_piece(piece):
            found = self.piece_to_id(piece)
            if found is not None:
                return found
        for form in self.word_forms(piece):
            tokens = self.encode(form)
            if len(tokens) == 1 and tokens[0].id not in self.special_ids:
                return tokens[0].id
        tokens = self.encode(piece)
        if len(tokens) == 1:
            raise TokenizeError(
                f"{quoted(piece)} is not in the vocabulary of {self.name}: "
                f"it becomes {tokens[0].piece!r}",
                "not_in_vocabulary",
                piece=piece,
                scheme=self.name,
                becomes=tokens[0].piece,
            )
        pieces = [t.piece for t in tokens]
        raise TokenizeError(
            f"{quoted(piece)} is not one token in {self.name}: it splits into "
            f"{_quote_pieces(pieces)}",
            "splits",
            piece=piece,
            scheme=self.name,
            pieces=pieces,
        )

    def exact_id(self, piece: str) -> int:
        """The id of the vocabulary entry spelled exactly `piece` (`--piece`)."""
        found = self.piece_to_id(piece) if piece else None
        if found is None:
            raise TokenizeError(
                f"{quoted(piece)} is not an entry of the vocabulary of {self.name}",
                "no_such_piece",
                piece=piece,
                scheme=self.name,
            )
        return found


class CodepointScheme(Scheme):
    """id = ord(character): needs no training and no file, but V = 1,114,112."""

    def __init__(self) -> None:
        self.name = "codepoint"
        self.vocab_size = CODEPOINT_VOCAB
        self.byte_level = False
        self.special_ids = frozenset()

    def encode(self, text: str) -> list[Token]:
        check_text(text)
        return [Token(ch, ord(ch), i, i + 1) for i, ch in enumerate(text)]

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.id_to_piece(i) for i in ids)

    def id_to_piece(self, id: int) -> str:
        if not 0 <= id < CODEPOINT_VOCAB:
            raise TokenizeError(f"id {id} is outside codepoint (0..{CODEPOINT_VOCAB - 1:,})")
        return chr(id)

    def piece_to_id(self, piece: str) -> int | None:
        return ord(piece) if len(piece) == 1 else None


@cache
def _unicode_to_byte() -> dict[str, int]:
    """GPT-2's byte <-> printable-character map, inverted: how ByteLevel spells raw bytes."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    chars = list(printable)
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


@cache
def _byte_to_unicode() -> dict[int, str]:
    return {b: c for c, b in _unicode_to_byte().items()}


def readable_bytes(data: bytes) -> str:
    """Bytes as text where they are whole UTF-8, other bytes as hex: b"\\xe8\\x8b\\xb9\\xe6" ->
    "苹<E6>", so a learner sees both the character and the dangling byte."""
    text = data.decode("utf-8", errors="surrogateescape")  # bad byte b -> U+DC00 + b
    return _ESCAPED_RUN.sub(
        lambda m: "<" + " ".join(f"{ord(ch) - 0xDC00:02X}" for ch in m[0]) + ">", text
    )


def piece_bytes(piece: str) -> bytes:
    """The bytes a readable byte-level piece stands for (inverse of `readable_bytes`)."""
    parts = _HEX_RUN.split(piece)
    return b"".join(
        bytes.fromhex(part) if i % 2 else part.encode("utf-8") for i, part in enumerate(parts)
    )


def _part(component: object) -> dict:
    """One small part of a tokenizer (its pre-tokenizer, decoder, model) as its JSON says it."""
    if component is None:
        return {}
    return json.loads(component.__getstate__())  # type: ignore[attr-defined]


def _has_part(node: object, found: Callable[[dict], bool]) -> bool:
    """Whether a tokenizer part's JSON, or any part nested in it (a Sequence), is `found`."""
    if isinstance(node, list):
        return any(_has_part(child, found) for child in node)
    if not isinstance(node, dict):
        return False
    return found(node) or any(_has_part(child, found) for child in node.values())


def _is_byte_level(tokenizer: Tokenizer) -> bool:
    def byte_level(part: dict) -> bool:
        return part.get("type") == "ByteLevel"

    return _has_part(_part(tokenizer.pre_tokenizer), byte_level) or _has_part(
        _part(tokenizer.decoder), byte_level
    )


def _is_metaspace(tokenizer: Tokenizer) -> bool:
    """SentencePiece's convention: a space is "▁", and a word starts with it (Llama 2,
    Mistral, T5, XLM-R), by a Metaspace pre-tokenizer or a normaliser that prepends it."""

    def metaspace(part: dict) -> bool:
        kind = part.get("type")
        return kind == "Metaspace" or (kind == "Prepend" and part.get("prepend") == METASPACE)

    return _has_part(_part(tokenizer.normalizer), metaspace) or _has_part(
        _part(tokenizer.pre_tokenizer), metaspace
    )


def _model_fields(tokenizer: Tokenizer) -> tuple[bool, str | None]:
    """(byte_fallback, unk_token) of the tokenizer's model, read from the model's own
    attributes: the vocabulary and merges are never turned into Python objects. Only a
    model that has no such attributes (Unigram) has its JSON read."""
    model = tokenizer.model
    if hasattr(model, "unk_token"):
        return bool(getattr(model, "byte_fallback", False)), model.unk_token
    spec = _part(model)
    return bool(spec.get("byte_fallback")), spec.get("unk_token")


class TokenizerScheme(Scheme):
    """A Hugging Face tokenizer.json (WordLevel, BPE or byte-level BPE)."""

    def __init__(self, name: str, tokenizer: Tokenizer) -> None:
        self.byte_level = _is_byte_level(tokenizer)
        self.metaspace = _is_metaspace(tokenizer)
        self.marks_word_starts = self.byte_level or self.metaspace
        self.byte_fallback, unk = _model_fields(tokenizer)
        # Changed only where it differs: a tokenizer shared by several schemes (see
        # `load_scheme`) may be encoding in another thread, and is already set right.
        if tokenizer.truncation is not None:
            tokenizer.no_truncation()
        if tokenizer.padding is not None:
            tokenizer.no_padding()
        if self.byte_level and tokenizer.post_processor is not None:
            # The ByteLevel post-processor trims spaces out of offsets, so " cat" would map to
            # "cat"; we encode without special tokens, so dropping it changes no id.
            tokenizer.post_processor = None
        self.name = name
        self._tok = tokenizer
        self.vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
        added = tokenizer.get_added_tokens_decoder()
        self._added = {id: tok.content for id, tok in added.items()}
        self.special_ids = frozenset(id for id, tok in added.items() if tok.special)
        self._unk_id = tokenizer.token_to_id(unk) if unk else None
        if self._unk_id is not None:
            self.special_ids |= {self._unk_id}
        # id -> readable piece, filled as ids are met: spelling a piece out of its bytes
        # was three quarters of encoding a 2,000-character paste
        self._pieces: dict[int, str] = {}

    @cached_property
    def reserved_ids(self) -> frozenset[int]:
        """Every added special token, the unknown token, and the entries named like a
        placeholder or a special token ([unused12], <unused3>, <extra_id_0>, [PAD], <pad>,
        [MASK]) even where the file does not mark them special (one pass over the
        vocabulary, on the first neighbour list)."""
        named = (
            id
            for piece, id in self._tok.get_vocab(with_added_tokens=True).items()
            if _RESERVED.fullmatch(piece)
        )
        return self.special_ids | frozenset(named)

    def word_forms(self, word: str) -> tuple[str, ...]:
        """A byte-level vocabulary spells a word after a space ("Ġcat") apart from the same
        word at the very start of the text ("cat"): the first is how words run in text."""
        return (" " + word, word) if self.byte_level else (word,)

    def spelled_as_piece(self, text: str) -> bool:
        return text in self._added.values() or super().spelled_as_piece(text)

    def encode(self, text: str) -> list[Token]:
        check_text(text)
        enc = self._tok.encode(text, add_special_tokens=False)
        return [
            Token(self.id_to_piece(id), id, start, end)
            for id, (start, end) in zip(enc.ids, enc.offsets, strict=True)
        ]

    def token_bytes(self, token: Token, text: str) -> bytes:
        """Each token's own bytes: a byte-level token's, a byte-fallback piece <0xE9> is the
        one byte E9 (the three pieces of 龙 cover the same character), and a SentencePiece
        piece is its spelling with "▁" as a space."""
        if self.byte_level:
            return piece_bytes(token.piece)
        fallback = _FALLBACK_BYTE.fullmatch(token.piece) if self.byte_fallback else None
        if fallback and token.id not in self._added:
            return bytes.fromhex(fallback[1])
        if self.metaspace and token.id not in self._added and token.id != self._unk_id:
            # its own spelling, "▁" being a space: a "▁" the normaliser put before 猫 does
            # not stand for 猫's bytes
            return token.piece.replace(METASPACE, " ").encode("utf-8")
        return super().token_bytes(token, text)

    def decode(self, ids: Sequence[int]) -> str:
        if not self.byte_level:
            return self._tok.decode(list(ids), skip_special_tokens=False)
        # Join the raw bytes ourselves: exact, and no decoder option can strip a space.
        return b"".join(self._token_bytes(i) for i in ids).decode("utf-8", errors="replace")

    def _raw(self, id: int) -> str:
        raw = self._tok.id_to_token(id)
        if raw is None:
            raise TokenizeError(
                f"id {id} is not in {self.name} (vocabulary size {self.vocab_size:,})"
            )
        return raw

    def _token_bytes(self, id: int) -> bytes:
        raw = self._raw(id)
        if id in self._added:
            return raw.encode("utf-8")
        table = _unicode_to_byte()
        try:
            return bytes(table[ch] for ch in raw)
        except KeyError:  # a vocabulary entry outside the byte alphabet: keep it as text
            return raw.encode("utf-8")

    def id_to_piece(self, id: int) -> str:
        piece = self._pieces.get(id)
        if piece is None:
            raw = self._token_bytes(id) if self.byte_level else None
            piece = self._pieces[id] = self._raw(id) if raw is None else readable_bytes(raw)
        return piece

    def piece_to_id(self, piece: str) -> int | None:
        if not self.byte_level or piece in self._added.values():
            return self._tok.token_to_id(piece)
        spelled = "".join(_byte_to_unicode()[b] for b in piece_bytes(piece))
        found = self._tok.token_to_id(spelled)
        return self._tok.token_to_id(piece) if found is None else found  # "Ġcat" as typed


class SegmentedScheme(TokenizerScheme):
    """The word scheme: jieba cuts Chinese into words, the vocabulary numbers them.

    A tokenizer.json cannot hold a segmenter, so the file is the vocabulary and this class
    does the cutting; a word the training split never had is [UNK].
    """

    def encode(self, text: str) -> list[Token]:
        from tutor.core import segment

        check_text(text)
        tokens = []
        for word, start, end in segment.spans(text):
            id = self._tok.token_to_id(word)
            if id is None:
                if self._unk_id is None:
                    raise TokenizeError(f"{word!r} is not in {self.name} and it has no [UNK]")
                id = self._unk_id
            tokens.append(Token(self.id_to_piece(id), id, start, end))
        return tokens


SEGMENTED_SCHEMES = frozenset({"word"})


# Tokenizers by the sha256 of their file: files with the same bytes share one (the shipped
# byte-bpe-zh is the project model's tokenizer.json), each scheme keeping its own name.
# Held weakly: a tokenizer lives as long as a scheme (or the model) holds it.
_tokenizers: weakref.WeakValueDictionary[bytes, Tokenizer] = weakref.WeakValueDictionary()
_tokenizers_lock = threading.Lock()
_schemes_lock = threading.Lock()


def shared_tokenizer(path: Path) -> Tokenizer:
    """The tokenizer in `path`, shared with every earlier file of the same bytes."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).digest()
    with _tokenizers_lock:  # two workers opening one file make one tokenizer
        tokenizer = _tokenizers.get(digest)
        if tokenizer is None:
            tokenizer = Tokenizer.from_str(data.decode("utf-8"))
            _tokenizers[digest] = tokenizer
        return tokenizer


def load_scheme(path: Path, name: str) -> TokenizerScheme:
    """A scheme from any tokenizer.json file (uncached; `get_scheme` caches the shipped
    ones), named `name`; its tokenizer is shared with any file of the same bytes."""
    if not path.is_file():
        raise TokenizeError(f"tokenizer file not found: {path}", "tokenizer_not_found", path=path)
    try:
        tokenizer = shared_tokenizer(path)
    except Exception as exc:  # the tokenizers library raises bare Exception on bad JSON
        raise TokenizeError(
            f"{path} is not a tokenizer.json file: {exc}", "bad_tokenizer", path=path
        ) from exc
    if name in SEGMENTED_SCHEMES:
        return SegmentedScheme(name, tokenizer)
    return TokenizerScheme(name, tokenizer)


def _new_scheme(name: str, model_dir: Path | None) -> Scheme:
    if name == "codepoint":
        return CodepointScheme()
    if name == PROJECT:
        return load_scheme((model_dir or default_model_dir()) / "tokenizer.json", PROJECT)
    if name not in SCHEMES:
        raise TokenizeError(f"unknown scheme {name!r}; choose one of {', '.join(SCHEMES)}")
    return load_scheme(tokenizers_dir() / f"{name}.json", name)


# the schemes asked for by name, kept until `release_schemes`
_schemes: dict[tuple[str, Path | None], Scheme] = {}


def get_scheme(name: str, model_dir: Path | None = None) -> Scheme:
    """A shipped scheme by name, or "project": the tokenizer of `model_dir` (default model).

    `model_dir` only matters for "project"; the named schemes are the shipped files.
    """
    if name != PROJECT:
        model_dir = None
    key = (name, model_dir.resolve() if model_dir else None)
    with _schemes_lock:  # widgets asking together in their workers share one scheme
        scheme = _schemes.get(key)
        if scheme is None:
            scheme = _schemes[key] = _new_scheme(*key)
        return scheme


def held_schemes() -> set[str]:
    """The names of the schemes `get_scheme` keeps now."""
    with _schemes_lock:
        return {name for name, _ in _schemes}


def release_schemes() -> None:
    """Forget every kept scheme but the project model's, which the lesson's tables use
    throughout: a lesson that compared tokenizers is left (the app calls this), and their
    tokenizers are freed unless something else still holds them."""
    with _schemes_lock:
        for key in [key for key in _schemes if key[0] != PROJECT]:
            del _schemes[key]
