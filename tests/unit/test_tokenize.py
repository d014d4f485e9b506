"""Tokenize: pieces, ids and spans for any Unicode; byte-level round-trips exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, processors

from tests.unit.model_fixture import (
    SPECIAL,
    UNK,
    WORDS_EN,
    WORDS_ZH,
    build_model_dir,
    byte_bpe_json,
    char_json,
    write_tokenizer,
)
from tutor.core.tokenize import (
    CODEPOINT_VOCAB,
    MAX_TEXT_CHARS,
    Scheme,
    Token,
    TokenizeError,
    get_scheme,
    load_scheme,
    piece_bytes,
)

# Arbitrary Unicode, plus the kinds the issue names explicitly: emoji (incl. ZWJ
# sequences), combining marks, right-to-left scripts, control characters, CJK.
TRICKY = st.sampled_from(
    [
        "😀",
        "👩\u200d💻",
        "e\u0301",
        "\u0644\u064e",
        "שלום",
        "\x00",
        "\x1b",
        "\r\n",
        "\t",
        "猫",
        "鼹",
    ]
)
TEXT = st.one_of(st.text(), st.lists(st.one_of(TRICKY, st.text(max_size=3))).map("".join))


@pytest.fixture(scope="module")
def byte_scheme(tmp_path_factory: pytest.TempPathFactory) -> Scheme:
    path = tmp_path_factory.mktemp("tok") / "byte.json"
    return load_scheme(write_tokenizer(path, byte_bpe_json()), "byte-bpe-zh")


@pytest.fixture(scope="module")
def char_scheme(tmp_path_factory: pytest.TempPathFactory) -> Scheme:
    path = tmp_path_factory.mktemp("tok") / "char.json"
    return load_scheme(write_tokenizer(path, char_json()), "char")


@pytest.fixture(scope="module")
def hf() -> Tokenizer:
    """The same tokenizer through the library directly, as an independent reference."""
    return Tokenizer.from_str(byte_bpe_json())


@settings(deadline=None)
@given(text=TEXT)
def test_byte_level_round_trip_on_arbitrary_unicode(byte_scheme: Scheme, text: str) -> None:
    tokens = byte_scheme.encode(text)
    assert byte_scheme.decode([t.id for t in tokens]) == text


@settings(deadline=None)
@given(text=TEXT)
def test_byte_level_spans_cover_the_token_bytes(byte_scheme: Scheme, text: str) -> None:
    tokens = byte_scheme.encode(text)
    assert b"".join(piece_bytes(t.piece) for t in tokens) == text.encode("utf-8")
    previous = Token("", 0, 0, 0)
    for token in tokens:
        span = text[token.start : token.end]
        data = piece_bytes(token.piece)
        try:
            assert span == data.decode("utf-8") == token.piece  # whole UTF-8: exactly the piece
        except UnicodeDecodeError:
            assert data in span.encode("utf-8")  # partial: the span holds its characters
        # no gaps; tokens cut from one character share that character's span
        assert previous.start <= token.start <= previous.end
        previous = token
    assert previous.end == len(text)


@given(text=TEXT)
def test_codepoint_is_one_token_per_character(text: str) -> None:
    scheme = get_scheme("codepoint")
    tokens = scheme.encode(text)
    assert [t.id for t in tokens] == [ord(ch) for ch in text]
    assert [(t.start, t.end) for t in tokens] == [(i, i + 1) for i in range(len(text))]
    assert scheme.decode([t.id for t in tokens]) == text


@settings(deadline=None)
@given(text=st.lists(st.one_of(st.characters(), st.characters(categories=["Cs"]))).map("".join))
def test_any_python_string_gives_tokens_or_a_clear_error(
    byte_scheme: Scheme, char_scheme: Scheme, text: str
) -> None:
    # Surrogates included: invalid UTF-8 on a command line arrives as lone surrogates.
    has_surrogate = any("\ud800" <= ch <= "\udfff" for ch in text)
    for scheme in (get_scheme("codepoint"), byte_scheme, char_scheme):
        try:
            tokens = scheme.encode(text)
        except TokenizeError as err:
            assert has_surrogate and "lone surrogate" in str(err)
        else:
            assert not has_surrogate
            assert (tokens[-1].end if tokens else 0) == len(text)


def test_lone_surrogate_message() -> None:
    with pytest.raises(TokenizeError) as err:
        get_scheme("codepoint").encode("ab\udcff")
    assert str(err.value) == (
        "text is not valid Unicode: lone surrogate U+DCFF at character 2 "
        "(was the input valid UTF-8?)"
    )


def test_chinese_character_split_into_bytes_shares_one_span(byte_scheme: Scheme) -> None:
    # 鼹 never occurs in the training text: its three UTF-8 bytes are three tokens.
    tokens = byte_scheme.encode("猫鼹")
    assert tokens[0] == Token("猫", byte_scheme.piece_to_id("猫"), 0, 1)
    assert [t.piece for t in tokens[1:]] == ["<E9>", "<BC>", "<B9>"]
    assert {(t.start, t.end) for t in tokens[1:]} == {(1, 2)}


def test_partial_utf8_piece_shows_text_and_hex(byte_scheme: Scheme, hf: Tokenizer) -> None:
    # "苹果汁": the trained merges glue 苹果 to the first byte of 汁 (E6 B1 81).
    tokens = byte_scheme.encode("苹果汁")
    assert [t.piece for t in tokens] == ["苹果<E6>", "<B1>", "<81>"]
    assert [t.id for t in tokens] == hf.encode("苹果汁").ids
    assert [(t.start, t.end) for t in tokens] == [(0, 3), (2, 3), (2, 3)]


def test_space_stays_inside_the_span(byte_scheme: Scheme) -> None:
    tokens = byte_scheme.encode("猫 cat")
    assert tokens[-1].piece == " cat"
    assert "猫 cat"[tokens[-1].start : tokens[-1].end] == " cat"


def test_space_stays_inside_the_span_despite_trim_offsets(tmp_path: Path) -> None:
    # HF's ByteLevel post-processor trims spaces out of offsets by default; the scheme must
    # still report the span the piece came from.
    tok = Tokenizer.from_str(byte_bpe_json())
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    assert tok.encode("猫 cat").offsets[-1] == (2, 5)
    scheme = load_scheme(write_tokenizer(tmp_path / "t.json", tok.to_str()), "t")
    assert [(t.piece, t.start, t.end) for t in scheme.encode("猫 cat")][-1] == (" cat", 1, 5)


def test_ids_match_the_library(byte_scheme: Scheme, hf: Tokenizer) -> None:
    text = "小明喜欢苹果 the dog eats 😀"
    assert [t.id for t in byte_scheme.encode(text)] == hf.encode(text).ids


def test_every_id_round_trips_through_its_readable_piece(byte_scheme: Scheme) -> None:
    for i in range(byte_scheme.vocab_size):
        assert byte_scheme.piece_to_id(byte_scheme.id_to_piece(i)) == i


@pytest.mark.parametrize("word", WORDS_ZH + WORDS_EN)
def test_lesson_words_are_single_tokens(byte_scheme: Scheme, hf: Tokenizer, word: str) -> None:
    # A typed word is the token it becomes at the start of a word in running text: an
    # English word after a space ("Ġcat"); Chinese, written without spaces, as it is.
    assert len(hf.encode(word).ids) == 1
    after_space = hf.encode(" " + word).ids
    expected = after_space[0] if len(after_space) == 1 else hf.encode(word).ids[0]
    assert byte_scheme.single_id(word) == expected
    assert (len(after_space) == 1) == word.isascii()


def test_single_id_names_the_pieces(byte_scheme: Scheme) -> None:
    with pytest.raises(TokenizeError) as err:
        byte_scheme.single_id("汽车猫")
    assert (
        str(err.value) == "'汽车猫' is not one token in byte-bpe-zh: it splits into '汽车' + '猫'"
    )


def test_single_id_accepts_special_and_hex_pieces(byte_scheme: Scheme) -> None:
    assert byte_scheme.single_id(SPECIAL) == 0
    assert byte_scheme.id_to_piece(byte_scheme.single_id("<E9>")) == "<E9>"


def test_single_id_rejects_empty(byte_scheme: Scheme) -> None:
    with pytest.raises(TokenizeError, match="empty"):
        byte_scheme.single_id("")


def test_char_scheme_meets_unk(char_scheme: Scheme) -> None:
    tokens = char_scheme.encode("猫鼹")
    assert [t.piece for t in tokens] == ["猫", UNK]
    assert tokens[1].id == 0 and (tokens[1].start, tokens[1].end) == (1, 2)
    assert not char_scheme.byte_level
    assert char_scheme.special_ids == frozenset({0})
    with pytest.raises(TokenizeError) as err:
        char_scheme.single_id("鼹")
    assert str(err.value) == "'鼹' is not in the vocabulary of char: it becomes '[UNK]'"
    with pytest.raises(TokenizeError, match=r"splits into '猫' \+ '狗'"):
        char_scheme.single_id("猫狗")


def test_codepoint_scheme_facts() -> None:
    scheme = get_scheme("codepoint")
    assert scheme.vocab_size == CODEPOINT_VOCAB == 1_114_112
    assert scheme.single_id("猫") == 0x732B
    assert scheme.id_to_piece(0x10FFFF) == "\U0010ffff"
    with pytest.raises(TokenizeError, match="splits into 'a' \\+ 'b'"):
        scheme.single_id("ab")
    with pytest.raises(TokenizeError, match="outside codepoint"):
        scheme.id_to_piece(CODEPOINT_VOCAB)


@pytest.mark.parametrize("which", ["codepoint", "byte", "char"])
def test_length_limit(which: str, byte_scheme: Scheme, char_scheme: Scheme) -> None:
    scheme = {"codepoint": get_scheme("codepoint"), "byte": byte_scheme, "char": char_scheme}[which]
    longest = ("猫 cat 😀 e\u0301 " * MAX_TEXT_CHARS)[:MAX_TEXT_CHARS]
    tokens = scheme.encode(longest)
    assert tokens[-1].end == MAX_TEXT_CHARS
    if scheme.byte_level or which == "codepoint":
        assert scheme.decode([t.id for t in tokens]) == longest
    with pytest.raises(TokenizeError) as err:
        scheme.encode(longest + "x")
    assert str(err.value) == "text is 100,001 characters long; the limit is 100,000"


def test_empty_text_has_no_tokens(byte_scheme: Scheme) -> None:
    assert byte_scheme.encode("") == []
    assert byte_scheme.decode([]) == ""


def test_project_scheme_comes_from_the_model_dir(tmp_path: Path) -> None:
    model_dir = build_model_dir(tmp_path / "model")
    scheme = get_scheme("project", model_dir)
    assert scheme is get_scheme("project", model_dir)  # cached
    assert scheme.byte_level and scheme.vocab_size == 400
    assert scheme.single_id("猫") == Tokenizer.from_str(byte_bpe_json()).encode("猫").ids[0]


def test_bad_names_and_files(tmp_path: Path) -> None:
    with pytest.raises(TokenizeError, match="unknown scheme 'bogus'"):
        get_scheme("bogus")
    with pytest.raises(TokenizeError, match="tokenizer file not found"):
        load_scheme(tmp_path / "missing.json", "x")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(TokenizeError, match=r"is not a tokenizer\.json file"):
        load_scheme(bad, "x")


@pytest.mark.parametrize("which", ["byte", "char"])
def test_a_piece_is_spelled_once_per_id(
    which: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spelling pieces out of their bytes was most of encoding a long paste: an id met
    again is read from what was spelled, with the same pieces as the first time."""
    json_text = byte_bpe_json() if which == "byte" else char_json()
    scheme = load_scheme(write_tokenizer(tmp_path / "t.json", json_text), "byte-bpe-zh")
    text = "小明把苹果给了小王。猫和狗都是动物，cat and dog." * 20
    first = scheme.encode(text)
    spelled: list[int] = []
    raw = scheme._raw  # type: ignore[attr-defined]

    def counting(id: int) -> str:
        spelled.append(id)
        return raw(id)

    monkeypatch.setattr(scheme, "_raw", counting)
    again = scheme.encode(text)
    assert again == first
    assert spelled == []


def test_files_with_the_same_bytes_share_one_tokenizer(tmp_path: Path) -> None:
    """The shipped byte-bpe-zh and the project model's tokenizer.json are one file twice:
    the lesson's token strip, the model's scheme and the project scheme hold one
    tokenizer, not a copy each (about 2 MB of vocabulary and merges apiece)."""
    text = byte_bpe_json()
    first = load_scheme(write_tokenizer(tmp_path / "a.json", text), "byte-bpe-zh")
    second = load_scheme(write_tokenizer(tmp_path / "b.json", text), "project")
    other = load_scheme(write_tokenizer(tmp_path / "c.json", char_json()), "char")
    assert first._tok is second._tok  # type: ignore[attr-defined]
    assert other._tok is not first._tok  # type: ignore[attr-defined]
    assert (first.name, second.name) == ("byte-bpe-zh", "project")
    assert second.encode("猫 cat") == first.encode("猫 cat")


def test_the_shipped_project_tokenizer_is_loaded_once() -> None:
    from tutor.core.model import open_model

    shipped = get_scheme("byte-bpe-zh")._tok  # type: ignore[attr-defined]
    assert get_scheme("project")._tok is shipped  # type: ignore[attr-defined]
    assert open_model().scheme._tok is shipped  # type: ignore[attr-defined]


def test_a_scheme_is_read_without_parsing_its_vocabulary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a tokenizer is byte-level, falls back to bytes or has an [UNK] is read from
    its small parts; the whole tokenizer.json is never parsed again as Python objects."""
    import json

    parsed: list[str] = []
    loads = json.loads

    def recording(text: str | bytes, **kwargs: object) -> object:
        parsed.append(text if isinstance(text, str) else text.decode())
        return loads(text, **kwargs)

    monkeypatch.setattr(json, "loads", recording)
    byte = load_scheme(write_tokenizer(tmp_path / "b.json", byte_bpe_json(399)), "b")
    word = load_scheme(write_tokenizer(tmp_path / "w.json", char_json()), "word")
    assert (byte.byte_level, byte.byte_fallback, byte.special_ids) == (True, False, {0})
    assert (word.byte_level, word.special_ids) == (False, frozenset({0}))
    assert word.encode("鼹")[0].id == 0  # the segmented scheme found its [UNK]
    assert not [text for text in parsed if '"vocab"' in text]


@pytest.mark.slow
def test_two_workers_asking_at_once_share_one_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two widgets of one page ask for the project tokenizer together, each in its own
    worker: the second waits for the first's instead of loading a copy of its own."""
    import contextlib
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import tutor.core.tokenize as tokenize

    tokenize.release_schemes()
    both_inside = threading.Barrier(2, timeout=0.5)
    load = tokenize.load_scheme

    def meeting(path: Path, name: str) -> tokenize.TokenizerScheme:
        with contextlib.suppress(threading.BrokenBarrierError):
            both_inside.wait()  # passed only when nothing keeps the two apart
        return load(path, name)

    monkeypatch.setattr(tokenize, "load_scheme", meeting)
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: get_scheme("char"), range(2))
    assert first is second
