"""The merge walk replays the shipped byte-level tokenizers' own merges: it starts from the
text's bytes, applies merges in the order they were learnt, names the IDs the tokenizer
gives them, and ends on exactly the IDs the tokenizer's one call gives."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.content.widgets import ByteScheme, MergesWidget
from tutor.core.merges import MAX_WALK_CHARS, merge_walk
from tutor.core.paths import tokenizers_dir
from tutor.core.tokenize import TokenizeError, get_scheme, piece_bytes

SENTENCE = "小明把苹果给了小王"
SCHEMES = get_args(ByteScheme)
TEXT = st.text(
    st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.sampled_from("小明把苹果给了小王 the cat sat,。！aaaa👩\u200d💻"),
    ),
    max_size=40,
)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_walk_starts_from_the_bytes_and_ends_on_the_tokenizers_ids(scheme: str) -> None:
    walk = merge_walk(SENTENCE, scheme)
    tokenizer = get_scheme(scheme)
    first = b"".join(piece_bytes(tokenizer.id_to_piece(id)) for id in walk.ids(0))
    assert first == SENTENCE.encode("utf-8")
    assert all(len(piece_bytes(tokenizer.id_to_piece(id))) == 1 for id in walk.ids(0))
    assert walk.ids(len(walk.merges)) == [token.id for token in tokenizer.encode(SENTENCE)]


@settings(deadline=None, max_examples=150)
@given(text=TEXT, scheme=st.sampled_from(SCHEMES))
def test_on_any_text_the_last_step_is_what_the_tokenizer_gives(text: str, scheme: str) -> None:
    walk = merge_walk(text, scheme)
    tokenizer = get_scheme(scheme)
    assert walk.ids(len(walk.merges)) == [token.id for token in tokenizer.encode(text)]
    assert len(walk.ids(0)) == len(text.encode("utf-8"))


def test_each_merge_is_the_tokenizers_own_rule_and_id() -> None:
    """Read beside the walk, from the tokenizer.json itself: rule i joins exactly the
    pair the merges list has at i, into the token whose ID the vocabulary gives."""
    spec = json.loads((tokenizers_dir() / "byte-bpe-zh.json").read_text(encoding="utf-8"))
    vocab, merges = spec["model"]["vocab"], spec["model"]["merges"]
    walk = merge_walk(SENTENCE)
    assert walk.merges_learnt == len(merges)
    assert len(walk.merges) == 19
    ranks = [merge.rank for merge in walk.merges]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)  # learnt order, once each
    for merge in walk.merges:
        left, right = merges[merge.rank]
        assert (vocab[left], vocab[right], vocab[left + right]) == (
            merge.left,
            merge.right,
            merge.merged,
        )
        assert merge.merged == 257 + merge.rank  # one special token, then the 256 bytes
    assert [(m.merged, m.count) for m in walk.merges[:2]] == [(259, 1), (261, 2)]  # 了, 小 小


def test_each_step_joins_its_pair_and_nothing_else() -> None:
    walk = merge_walk(SENTENCE + "，小明")
    for step, merge in enumerate(walk.merges):
        before, after = walk.ids(step), walk.ids(step + 1)
        assert len(before) - len(after) == merge.count
        assert after.count(merge.merged) - before.count(merge.merged) == merge.count


def test_text_over_the_limit_is_refused_with_its_numbers() -> None:
    assert len(merge_walk("小" * MAX_WALK_CHARS).merges) > 0  # the limit itself is fine
    with pytest.raises(TokenizeError) as refused:
        merge_walk("小" * (MAX_WALK_CHARS + 1))
    assert refused.value.code == "too_long"
    assert refused.value.values == {"chars": MAX_WALK_CHARS + 1, "limit": MAX_WALK_CHARS}
    field = MergesWidget.model_fields["text"].metadata
    assert any(getattr(rule, "max_length", None) == MAX_WALK_CHARS for rule in field)


def test_a_tokenizer_without_bytes_is_refused() -> None:
    with pytest.raises(TokenizeError) as refused:
        merge_walk(SENTENCE, "char")
    assert refused.value.code == "not_byte_level"


def test_empty_text_has_no_bytes_and_no_merges() -> None:
    walk = merge_walk("")
    assert (walk.ids(0), walk.merges) == ([], ())


@pytest.mark.slow  # reads and tokenizes the 5 MB training text
def test_the_unseen_tokens_are_counted_as_the_build_counts_them_and_sorted_by_why() -> None:
    """The never-seen share the lesson states is the one counted here, every never-seen
    token has one reason, and an absorbed piece's example is a real merge: its bytes and
    its partner's make the merged token, which the tokenizer uses and the text holds."""
    from tutor.core.facts import load_facts
    from tutor.core.merges import unseen_tokens
    from tutor.core.tokenize import PROJECT

    unseen = unseen_tokens()
    share = load_facts()["rows.never_seen_share"].value
    assert round(100 * unseen.never / unseen.vocab, 1) == share
    assert unseen.absorbed + unseen.english + unseen.bytes + unseen.other == unseen.never
    assert unseen.absorbed > 0 and unseen.examples
    scheme = get_scheme(PROJECT)
    for example in unseen.examples:
        pair = [example.piece, example.partner][:: 1 if example.first else -1]
        assert piece_bytes(example.merged) == b"".join(map(piece_bytes, pair))
        assert scheme.id_to_piece(example.id) == example.piece
        assert scheme.id_to_piece(example.merged_id) == example.merged
        assert example.merged_count > 0
    assert [e.id for e in unseen.examples] == sorted(e.id for e in unseen.examples)
