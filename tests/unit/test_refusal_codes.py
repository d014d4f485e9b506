"""The core's refusals carry a code and values (an interface translates them) and quote
long input briefly."""

from __future__ import annotations

import numpy as np
import pytest

from tutor.core.names import NEIGHBOUR_SCHEMES
from tutor.core.similarity import SimilarityError, cosine_matrix, nearest
from tutor.core.tokenize import QUOTE_CHARS, TokenizeError, get_scheme


def test_a_long_word_is_quoted_by_its_start_and_length() -> None:
    text = "小明把苹果给了小王。" * 500
    with pytest.raises(TokenizeError) as raised:
        get_scheme("byte-bpe-zh").single_id(text)
    assert raised.value.code == "splits" and raised.value.values["piece"] == text
    message = str(raised.value)
    assert text[:QUOTE_CHARS] in message and text[: QUOTE_CHARS + 1] not in message
    assert "5,000 characters" in message


def test_the_empty_string_has_its_code() -> None:
    with pytest.raises(TokenizeError) as raised:
        get_scheme("byte-bpe-zh").single_id("")
    assert raised.value.code == "empty_token"


def test_similarity_refusals_have_their_codes() -> None:
    from tutor.core.model import open_model

    model = open_model()
    with pytest.raises(SimilarityError) as raised:
        nearest(model, "猫", "id", k=0)
    assert (raised.value.code, raised.value.values) == ("k_too_small", {"k": 0})
    with pytest.raises(SimilarityError) as raised:
        nearest(model, "猫", "bogus")  # type: ignore[arg-type]
    assert raised.value.code == "unknown_scheme"
    assert raised.value.values == {"scheme": "bogus", "choices": ", ".join(NEIGHBOUR_SCHEMES)}
    with pytest.raises(SimilarityError) as raised:
        cosine_matrix(np.zeros(3))
    assert (raised.value.code, raised.value.values) == ("not_a_matrix", {"shape": "(3,)"})


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "zh",
            "「qwertyuiop」在 byte-bpe-zh 里不是一个 token："
            "它会切成 「q」 + 「w」 + 「er」 + 「ty」",
        ),
        (
            "en",
            "“qwertyuiop” is not one token in byte-bpe-zh: it splits into “q” + “w” + “er” + “ty”",
        ),
    ],
)
def test_pieces_are_quoted_as_the_interface_language_quotes(lang: str, said: str) -> None:
    from tutor.words.i18n import Speaker
    from tutor.words.refusals import say

    with pytest.raises(TokenizeError) as raised:
        get_scheme("byte-bpe-zh").single_id("qwertyuiop")
    assert say(Speaker(lang), raised.value).startswith(said)
