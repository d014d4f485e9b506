"""The rubric grader on answers written for it: what it credits, what it refuses, and why.

Each row is an answer a learner could write, with the claims it makes and the misconceptions
it states. The grader must credit a claim only where it is asserted, recognise it when
paraphrased (Chinese or English), and never credit a misconception statement with the claim
it contradicts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError

from tutor.content import Lesson, load_lessons
from tutor.content.grade import (
    MAX_CHARS,
    SUMMARY,
    Rubric,
    UnknownItem,
    gradable_items,
    grade,
    number_as_stored,
    read_number,
    rubric_for,
    shown_number,
    summary_answer,
)
from tutor.content.models import Misconception, RubricClaim, Summary
from tutor.core.paths import content_dir

Q5 = "explain-embedding"
ROW, LOOKUP, LEARNED, POSITION, CONTEXT, BOUND = (
    "id-is-row",
    "onehot-is-lookup",
    "learned-numbers",
    "meaning-in-position",
    "context-free",
    "bound-partners",
)
BIG, CLOSE, RETRAIN, FOLLOWS, SWAP, MIX = (
    "bigger-id-matters",
    "close-ids-close-meaning",
    "training-changes-ids",
    "vector-follows-context",
    "swap-tokenizer",
    "onehot-mixes-rows",
)

PARAPHRASE_ZH = (
    "token ID 只是一个索引，用来在表里取出对应的那一行向量，这和 one-hot 乘矩阵等价。"
    "表里的数随机初始化，靠梯度下降一点点调整，用法相近的词最后挨在一起。"
    "查到的向量不看语境，同一个词在哪句话里都是同一行。"
    "分词器和表是配套的，编号可以换，但必须一起换。"
)

# (answer, claims it makes, misconceptions it states), graded against the summary rubric
ANSWERS: list[tuple[str, set[str], set[str]]] = [
    # the two answers the old keyword matcher got wrong
    ("ID 不是行号；one-hot 乘表不等于查表；训练不会改变向量的位置。", set(), set()),
    (PARAPHRASE_ZH, {ROW, LOOKUP, LEARNED, POSITION, CONTEXT, BOUND}, set()),
    # correct paraphrases, one claim each
    ("ID 只是第几行的意思。", {ROW}, set()),
    ("编号的大小说明不了什么。", {ROW}, set()),
    ("ID 的数值大小没有意义", {ROW}, set()),
    ("ID 并非数量，而是行号", {ROW}, set()),
    ("one-hot 向量乘上 embedding 矩阵，结果就是取出一行", {LOOKUP}, set()),
    ("用 ID 去查表", {LOOKUP}, set()),
    ("这些参数起初是随机的", {LEARNED}, set()),
    ("这张表是可学习的", {LEARNED}, set()),
    ("训练不会改变 ID，只改变表里的数。", {LEARNED}, set()),
    ("意思相近的词，向量也离得近", {POSITION}, set()),
    ("一个词的意义藏在它那一行向量所处的位置里", {POSITION}, set()),
    ("向量不随上下文变化", {CONTEXT}, set()),
    ("不管出现在哪个句子里，苹果查到的都是同一行", {CONTEXT}, set()),
    ("分词器在训练前就冻结了", {BOUND}, set()),
    ("分词器不能随时换", {BOUND}, set()),
    ("分词器和权重一起发布", {BOUND}, set()),
    ("ID 不能直接用来计算，因为它只是一个序号。", {ROW}, set()),
    ("embedding 表是一个 V×d 的矩阵，用 ID 查出对应的行。", {LOOKUP}, set()),
    ("训练过程中，ID 保持不变，变化的是 embedding 表中的数值。", {LEARNED, BOUND}, set()),
    # partial answers
    ("ID 只是行号，查表就是取出一行。", {ROW, LOOKUP}, set()),
    ("表是训练出来的。", {LEARNED}, set()),
    ("ID 只是行号，训练会改变向量", {ROW, LEARNED}, set()),
    ("embedding 就是把 token 变成向量。", set(), set()),
    # misconception statements
    ("ID 越大的 token 越重要", set(), {BIG}),
    ("编号大的词对模型更关键，因为它是行号", set(), {BIG}),
    ("猫和狗的 ID 相近，说明它们意思相近", set(), {CLOSE}),  # over two clauses of a sentence
    ("ID 相近的 token 意思也相近", set(), {CLOSE}),
    ("ID 挨得近的词，语义上也接近", set(), {CLOSE}),
    ("编号相邻的词意思差不多，向量也靠近", set(), {CLOSE}),
    ("训练会把 ID 调整到更合适的编号", set(), {RETRAIN}),
    ("训练时会不断更新 ID 和表里的数", set(), {RETRAIN}),
    ("向量会随上下文变化", set(), {FOLLOWS}),
    ("苹果在吃苹果和苹果手机里查到的行不同", set(), {FOLLOWS}),
    ("分词器可以随时换成别的", set(), {SWAP}),
    ("换个分词器也没关系，模型照常工作", set(), {SWAP}),
    # negated statements and corrected misconceptions
    ("ID 大不代表更重要", set(), set()),
    ("ID 的大小并不是没有意义", set(), set()),
    ("查表和 one-hot 乘表不是一回事", set(), set()),
    # its second clause names no subject; "only changes the numbers" says it all the same
    ("训练时不会改 ID，只改表里的数", {LEARNED}, set()),
    ("ID 越大越重要？不对。", set(), set()),
    ("「ID 大的 token 更重要」：不对，ID 只是行号", {ROW}, set()),
    ("我原以为 ID 大的更重要，其实不是", set(), set()),
    ("之前觉得训练会改 ID，其实 ID 是固定的", set(), set()),
    ("- ID 越大越重要 ✗", set(), set()),
    ("误解一：ID 大的 token 更重要。", set(), set()),
    ("训练会改 ID 吗？不会。", set(), set()),
    ("I used to think bigger IDs were more important.", set(), set()),
    ("ID 相近的词意思不一定相近", set(), set()),
    ("分词器不是可以随时换的", set(), set()),
    ("表里的数不是随机初始化的", set(), set()),
    ("ID 不只是行号，它还代表重要性。", set(), set()),
    ("没有人会说 ID 只是行号。", set(), set()),
    ("one-hot 乘表并不等于查表", set(), set()),
    ("ID 绝对不是行号", set(), set()),
    ("ID 从来都只是行号", {ROW}, set()),
    # English
    (
        "A token ID is just an index. Multiplying a one-hot vector by the table picks out "
        "one row, so it is a lookup. The rows start random and are learned in training; "
        "similar tokens end up close together. The vector depends only on the ID, not on "
        "the context. Tokenizer and table are bound partners, frozen before training.",
        {ROW, LOOKUP, LEARNED, POSITION, CONTEXT, BOUND},
        set(),
    ),
    ("An ID is not a row number", set(), set()),
    ("An ID is not just a row number.", set(), set()),
    ("An ID isn't a quantity but a row number.", {ROW}, set()),
    ("An ID is just a row number, not a quantity", {ROW}, set()),
    ("The embedding table is learnable", {LEARNED}, set()),
    ("Embeddings are trained with gradient descent", {LEARNED}, set()),
    ("One-hot times the embedding matrix is equivalent to a table lookup.", {LOOKUP}, set()),
    ("The same token always gets the same vector, regardless of context.", {CONTEXT}, set()),
    ("Tokens with close IDs don't necessarily have related meanings.", set(), set()),
    ("I think a larger ID means the token is more important.", set(), {BIG}),
    ("嵌入向量会根据上下文动态变化。", set(), {FOLLOWS}),
    ("Bigger IDs are more important", set(), {BIG}),
    ("A bigger ID does not make a token more important", set(), set()),
    ("The vector changes with the context", set(), {FOLLOWS}),
    ("The vector does not change with the context", {CONTEXT}, set()),
    ("You can swap the tokenizer at any time", set(), {SWAP}),
    ("Training updates the IDs", set(), {RETRAIN}),
    ("Lookup does not select a row", set(), set()),
    # questions and lone keywords assert nothing
    ("索引？查表？意思和向量？随机初始？", set(), set()),
    ("查表。", set(), set()),
    ("索引", set(), set()),
    ("随机初始化", set(), set()),
    ("可学习。配套。同一行。", set(), set()),
    ("ID 只是行号吗？", set(), set()),
    ("ID 越大越重要？", set(), set()),
    ("What is a lookup table?", set(), set()),
    ("Is an ID just a row number?", set(), set()),
    ("Row number. Lookup table. Random init. Gradient descent.", set(), set()),
    # a clause that states a misconception is no evidence for any claim
    ("查表得到的向量会随上下文变化。", set(), {FOLLOWS}),
    ("查表得到的向量会随上下文变化。ID 只是行号。", {ROW}, {FOLLOWS}),
    ("ID 越大的 token 查表取出的那一行越重要", set(), {BIG}),
    ("The lookup vector depends on the surrounding context.", set(), {FOLLOWS}),
    ("Tokens with close IDs look up a row with related meanings.", set(), {CLOSE}),
    # whole sentences that say the claim are still credited
    ("每个 token 的 ID 就是它在表里的行号。", {ROW}, set()),
    ("查表就是按 ID 取出那一行向量。", {LOOKUP}, set()),
    ("ID 只是索引，查表取出一行", {ROW, LOOKUP}, set()),
    ("表里的数一开始是随机的。", {LEARNED}, set()),
    ("意思藏在向量的位置里。", {POSITION}, set()),
    ("分词器和 embedding 表是配套的。", {BOUND}, set()),
    ("A token ID is just a row index.", {ROW}, set()),
    ("ID 相当于表的行索引", {ROW}, set()),
    ("用 ID 当下标去取向量", {ROW}, set()),
    ("词表在训练前就定好了", {BOUND}, set()),
    ("查表得到的向量不会随上下文变化", {CONTEXT}, set()),
    ("Token IDs are indices into the embedding matrix.", {ROW}, set()),
    ("The embedding layer looks up the row for each ID.", {LOOKUP}, set()),
    ("The numbers in the table start random and are learned.", {LEARNED}, set()),
    ("Meaning lives in where the vector sits.", {POSITION}, set()),
    ("The tokenizer is frozen before training.", {BOUND}, set()),
    # nothing to grade
    ("", set(), set()),
    ("   \n  ", set(), set()),
    ("我不知道。", set(), set()),
]


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    found = load_lessons(content_dir()).lesson("embedding")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def summary_rubric(lesson: Lesson) -> Rubric:
    return rubric_for(lesson, SUMMARY)


def test_there_are_forty_answers_or_more() -> None:
    assert len(ANSWERS) >= 40


@pytest.mark.parametrize(("answer", "claims", "misconceptions"), ANSWERS)
def test_answers_get_their_verdicts(
    summary_rubric: Rubric, answer: str, claims: set[str], misconceptions: set[str]
) -> None:
    result = grade(summary_rubric, answer)
    assert {claim.id for claim in result.met} == claims
    assert {m.id for m in result.matched} == misconceptions


@pytest.mark.parametrize(
    "answer", [answer for answer, _claims, stated in ANSWERS if stated], ids=str
)
def test_a_misconception_is_never_credited_with_the_claim_it_contradicts(
    summary_rubric: Rubric, answer: str
) -> None:
    result = grade(summary_rubric, answer)
    for found in result.matched:
        denied = set(summary_rubric.misconception(found.id).contradicts)
        assert denied.isdisjoint({claim.id for claim in result.met})


@pytest.mark.parametrize(
    "answer", [answer for answer, _claims, stated in ANSWERS if stated], ids=str
)
def test_a_clause_that_states_a_misconception_is_evidence_for_no_claim(
    summary_rubric: Rubric, answer: str
) -> None:
    """Not only the claims it contradicts: 查表得到的向量会随上下文变化 says nothing right
    about lookup either."""
    result = grade(summary_rubric, answer)
    stated = {found.evidence for found in result.matched}
    assert stated and stated.isdisjoint({claim.evidence for claim in result.met})


def test_a_question_asserts_nothing_and_its_answer_is_graded(summary_rubric: Rubric) -> None:
    result = grade(
        summary_rubric, "ID 是什么？ID 只是行号。What is a lookup? A lookup picks out one row."
    )
    assert {claim.id: claim.evidence for claim in result.met} == {
        ROW: "ID 只是行号",
        LOOKUP: "A lookup picks out one row",
    }
    asked = grade(summary_rubric, "ID 只是行号？")
    assert asked.met == [] and [claim.id for claim in asked.claims if claim.denied] == []


def test_a_misconception_anywhere_withdraws_the_claims_it_denies(summary_rubric: Rubric) -> None:
    """ID 只是行号 is credited alone, but not beside "bigger IDs matter more"."""
    alone = grade(summary_rubric, "ID 只是行号。")
    assert [claim.id for claim in alone.met] == [ROW]
    both = grade(summary_rubric, "ID 只是行号。不过 ID 越大的 token 越重要。")
    assert [m.id for m in both.matched] == [BIG]
    row = next(claim for claim in both.claims if claim.id == ROW)
    assert not row.met and row.denied and row.evidence == "ID 只是行号"
    assert row.contradicted_by == BIG


def test_a_negated_claim_is_reported_with_the_clause_that_denies_it(
    summary_rubric: Rubric,
) -> None:
    result = grade(summary_rubric, "我觉得 ID 不是行号，而是一个数量。")
    row = next(claim for claim in result.claims if claim.id == ROW)
    assert (row.met, row.denied, row.evidence) == (False, True, "我觉得 ID 不是行号")


@pytest.mark.parametrize(
    "answer",
    [
        "ID 相近不代表意思相近。",
        "编号挨着并不说明意思接近。",
        "Close IDs do not mean similar meanings.",
    ],
)
def test_rejecting_a_misconception_denies_no_claim(summary_rubric: Rubric, answer: str) -> None:
    """Its words (意思相近) are also a claim's; negated there, the learner rejects the
    misconception, which is right, not the claim."""
    result = grade(summary_rubric, answer)
    assert [claim.id for claim in result.claims if claim.denied] == []
    assert result.matched == []


def test_the_reference_summary_makes_every_claim_and_states_no_misconception(
    lesson: Lesson, summary_rubric: Rubric
) -> None:
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    result = grade(summary_rubric, summary.reference)
    assert result.complete
    assert result.matched == []


def test_misconceptions_in_quotes_or_a_conditional_are_mentioned_not_stated(
    summary_rubric: Rubric,
) -> None:
    mentioned = "纠正了的误解：「训练会改 ID」。如果把 ID 当数值，编号大的就会被当成更重要"
    assert grade(summary_rubric, mentioned).matched == []
    stated = "训练会改 ID"
    assert [m.id for m in grade(summary_rubric, stated).matched] == [RETRAIN]


def test_a_summary_section_of_corrected_misconceptions_names_them_without_holding_them(
    lesson: Lesson, summary_rubric: Rubric
) -> None:
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    fixed = next(section.id for section in summary.sections if section.lists_misconceptions)
    other = next(section.id for section in summary.sections if not section.lists_misconceptions)
    listed = "ID 越大的 token 越重要\n训练会改 ID\n\nID 只是行号"
    named = grade(summary_rubric, summary_answer(summary, {fixed: listed}))
    assert named.matched == [] and [claim.id for claim in named.met] == [ROW]
    held = grade(summary_rubric, summary_answer(summary, {other: listed}))
    assert {m.id for m in held.matched} == {BIG, RETRAIN}
    assert held.met == []


def test_the_json_shape_is_the_command_line_contract(summary_rubric: Rubric) -> None:
    dumped = grade(summary_rubric, "ID 只是行号").model_dump()
    assert set(dumped) >= {"claims", "misconceptions"}
    assert dumped["claims"][0] == {
        "id": ROW,
        "met": True,
        "evidence": "ID 只是行号",
        "denied": False,
        "contradicted_by": "",
        "status": "met",
    }
    assert {"id", "matched"} <= set(dumped["misconceptions"][0])
    assert [c["id"] for c in dumped["claims"]] == [c.id for c in summary_rubric.claims]


def test_a_text_question_is_graded_on_its_own_claims(lesson: Lesson) -> None:
    rubric = rubric_for(lesson, Q5)
    assert [claim.id for claim in rubric.claims] == [ROW, LOOKUP, LEARNED, POSITION]
    assert {m.id for m in rubric.misconceptions} == {BIG, CLOSE, RETRAIN, FOLLOWS, SWAP, MIX}
    wrong = grade(rubric, "ID 不是行号；one-hot 乘表不等于查表；训练不会改变向量的位置。")
    assert wrong.met == [] and not wrong.complete
    right = grade(rubric, PARAPHRASE_ZH)
    assert right.complete


def test_an_unknown_item_names_the_items_there_are(lesson: Lesson) -> None:
    assert gradable_items(lesson) == [Q5, SUMMARY]
    with pytest.raises(
        UnknownItem, match=r"'close-ids' is not a text question.*explain-embedding, summary"
    ):
        rubric_for(lesson, "close-ids")


def test_a_100000_character_answer_is_graded_up_to_the_limit(summary_rubric: Rubric) -> None:
    padding = "我觉得这一课很有意思" * 10_000
    assert len(padding) == 100_000
    early = grade(summary_rubric, PARAPHRASE_ZH + padding)
    assert early.truncated and early.complete
    late = grade(summary_rubric, padding + PARAPHRASE_ZH)
    assert late.truncated and late.met == []
    unbroken = grade(summary_rubric, "行号不" * 33_334)  # one clause, a negation in every word
    assert unbroken.truncated and len(unbroken.claims) == 6
    assert MAX_CHARS < 100_000


def test_odd_unicode_and_full_width_text_are_read_as_typed(summary_rubric: Rubric) -> None:
    result = grade(summary_rubric, "ＩＤ只是行号\u200b；ONE-HOT 乘表等于查表\U0001f600")
    assert {claim.id for claim in result.met} == {ROW, LOOKUP}
    assert result.claims[0].evidence == "ＩＤ只是行号\u200b"


def test_phrases_and_contradictions_are_checked_when_the_lesson_loads() -> None:
    with pytest.raises(ValidationError, match=r"phrase '行号\|' has an empty word"):
        RubricClaim(id="x", claim_zh="x", claim_en="x", phrases_zh=["行号|"], phrases_en=["row"])
    claim = RubricClaim(id="x", claim_zh="x", claim_en="x", phrases_zh=["行号"], phrases_en=["a"])
    wrong = Misconception(
        id="m",
        name_zh="m",
        name_en="m",
        phrases_zh=["大"],
        phrases_en=["big"],
        contradicts=["y"],
        correction_zh="c",
        correction_en="c",
    )
    with pytest.raises(ValidationError, match="contradicts 'y', which is not a claim"):
        Summary(
            sections=[{"id": "s", "title_zh": "s", "title_en": "s"}],
            rubric=[claim],
            misconceptions=[wrong],
            reference="r",
        )


def test_jieba_is_loaded_only_when_a_chinese_clause_needs_it() -> None:
    """Opening the quiz (importing the grader) or grading English costs no jieba (~0.3 s)."""
    probe = (
        "import sys\n"
        "from tutor.content import load_lessons\n"
        "from tutor.content.grade import grade, rubric_for\n"
        "from tutor.core.paths import content_dir\n"
        "rubric = rubric_for(load_lessons(content_dir()).lesson('embedding'), 'summary')\n"
        "grade(rubric, 'An ID is not a row number; it is only an index.')\n"
        "print('jieba' in sys.modules)\n"
        "grade(rubric, 'ID 不是行号')\n"
        "print('jieba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
    assert done.stderr == ""  # jieba's "Building prefix dict" must not reach the TUI's stderr


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("1.41", 1.41),
        ("√2", 2**0.5),
        ("√ 2", 2**0.5),
        ("√(1+1)", 2**0.5),
        ("sqrt(2)", 2**0.5),
        ("2**0.5", 2**0.5),
        ("2^0.5", 2**0.5),
        ("248,320", 248_320),
        ("248 320", 248_320),
        ("2.5e5", 250_000),
        ("-3", -3),
        ("１．４１", 1.41),
        ("2×3÷4", 1.5),
        ("π", 3.141592653589793),
    ],
)
def test_numbers_are_read_as_people_write_them(typed: str, value: float) -> None:
    assert read_number(typed) == pytest.approx(value)


@pytest.mark.parametrize(
    "typed",
    ["", "abc", "1,41", "__import__('os')", "(1).real", "9**9**9", "1/0", "sqrt(-1)", "1" * 101],
)
def test_anything_else_is_not_a_number(typed: str) -> None:
    assert read_number(typed) is None


@pytest.mark.parametrize(
    "typed",
    [
        "2 #anything",  # Python's parser drops a comment: the rest would pass as typed
        "1.41#",
        "2\u009b31m",  # a C1 control (CSI)
        "1.41\u202e",  # right-to-left override
        "1\u200b.41",  # zero-width space
        "1.41\x7f",
        "(1\n+1)",  # a line break inside brackets
        "1.41\\",
    ],
    ids=["comment", "bare-hash", "csi", "rlo", "zero-width", "del", "newline", "backslash"],
)
def test_what_is_not_a_number_expression_is_refused_whole(typed: str) -> None:
    assert read_number(typed) is None


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("√2", "1.4142135623730951"), ("1.41", "1.41"), ("248,320", "248320"), ("2.0", "2")],
)
def test_a_numeric_answer_is_kept_as_the_number_it_is(typed: str, stored: str) -> None:
    value = read_number(typed)
    assert value is not None and number_as_stored(value) == stored


def test_a_number_is_shown_at_the_question_s_precision() -> None:
    assert shown_number(2**0.5, 0.01) == "1.41"
    assert shown_number(1.414, 0.005) == "1.414"
    assert shown_number(248_320, 0) == "248,320"
    assert shown_number(3.7, 1) == "4"


# The cases a learner met (issue 21): each failed before the grader read sentences and
# sections as they are written.


@pytest.mark.parametrize(
    "answer",
    [
        "Tokens with nearby IDs mean similar things.",
        "If two IDs are close, the words are probably similar in meaning.",
        # without the word "meaning", each was credited with meaning-in-position instead
        "Words with close token ids are similar.",
        "Tokens with close IDs are used alike.",
        "Tokens whose IDs are near each other are similar.",
        "ID 相近的词用法也相近。",
        "编号挨着的词，向量也相似。",
    ],
)
def test_close_ids_close_meaning_is_flagged_and_earns_no_claim(lesson: Lesson, answer: str) -> None:
    result = grade(rubric_for(lesson, Q5), answer)
    assert [m.id for m in result.matched] == [CLOSE]
    assert result.met == []


@pytest.mark.parametrize(
    "answer",
    [
        "Token IDs are close, but meanings are unrelated.",
        "猫和狗的 ID 相近，但意思未必相近。",
        "Similar words get close vectors regardless of their IDs.",
        "意思相近的 token 向量靠近，和 ID 无关。",
    ],
)
def test_a_sentence_that_turns_against_its_first_clause_states_no_misconception(
    lesson: Lesson, answer: str
) -> None:
    assert grade(rubric_for(lesson, Q5), answer).matched == []


def test_a_retraction_in_english_keeps_the_claim_that_follows_it(lesson: Lesson) -> None:
    answer = "I used to think bigger IDs matter more, but that's wrong: an ID is just a row index."
    result = grade(rubric_for(lesson, Q5), answer)
    row = next(claim for claim in result.claims if claim.id == ROW)
    assert (row.met, row.denied, row.evidence) == (True, False, "an ID is just a row index")
    assert result.matched == []
    assert next(m for m in result.misconceptions if m.id == BIG).status == "rejected"


def test_a_misconception_listed_as_fixed_is_credit_and_cancels_nothing(
    lesson: Lesson, summary_rubric: Rubric
) -> None:
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    texts = {"understanding": "ID 只是行号。", "misconceptions-fixed": "ID 相近的 token 意思相近。"}
    result = grade(summary_rubric, summary_answer(summary, texts))
    assert [claim.id for claim in result.met] == [ROW]
    assert [m.id for m in result.fixed] == [CLOSE]
    assert result.matched == []
    assert all(claim.contradicted_by == "" for claim in result.claims)


def test_a_numbered_list_of_fixed_misconceptions_names_each_as_learners_write_them(
    lesson: Lesson, summary_rubric: Rubric
) -> None:
    """Retracted, negated or in everyday words (混起来), each item is a fixed one."""
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    fixed = (
        "1. 以前以为 ID 相近的词意思也相近，其实不是。\n"
        "2. 训练不会改 ID\n"
        "3. one-hot 乘表不是把所有行混起来"
    )
    texts = {"understanding": "ID 只是行号。", "misconceptions-fixed": fixed}
    result = grade(summary_rubric, summary_answer(summary, texts))
    assert sorted(m.id for m in result.fixed) == sorted([CLOSE, RETRAIN, MIX])
    assert result.matched == [] and [claim.id for claim in result.met] == [ROW]


def test_remaining_questions_assert_nothing_and_are_kept_for_the_teacher(
    lesson: Lesson, summary_rubric: Rubric
) -> None:
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    asked = "ID 相近的 token 意思相近吧，ID 只是行号吗，训练会改 ID"
    result = grade(summary_rubric, summary_answer(summary, {"remaining-questions": asked}))
    assert result.met == [] and result.matched == [] and result.fixed == []
    assert result.questions == asked


def test_a_summary_file_is_read_by_its_headings_in_either_language(
    summary_rubric: Rubric,
) -> None:
    written = (
        "## My Understanding\nAn ID is just a row index.\n\n"
        "## 纠正了的误解\n- ID 越大的 token 越重要\n\n"
        "## Remaining Questions\nDoes training change the IDs?"
    )
    result = grade(summary_rubric, written)
    assert [claim.id for claim in result.met] == [ROW]
    assert [m.id for m in result.fixed] == [BIG]
    assert result.matched == []
    assert result.questions == "Does training change the IDs?"
    unheaded = grade(summary_rubric, "ID 越大的 token 越重要")  # one "understanding" section
    assert [m.id for m in unheaded.matched] == [BIG]


def test_one_hot_as_an_approximate_lookup_is_a_misconception_not_the_claim(
    lesson: Lesson,
) -> None:
    answer = (
        "Multiplying the one-hot vector by the table is not really a lookup, "
        "the lookup is just a cheap approximation."
    )
    result = grade(rubric_for(lesson, Q5), answer)
    assert [m.id for m in result.matched] == [MIX]
    lookup = next(claim for claim in result.claims if claim.id == LOOKUP)
    assert not lookup.met and lookup.contradicted_by == MIX


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("ID 就像门牌号，门牌号大小不代表什么。", {ROW}),
        ("token ID 就是第几排的意思。", {ROW}),
        ("embedding 就是把那一行抽出来。", {LOOKUP}),
        ("独热向量去乘这张表，正好抽出对应的那一排。", {LOOKUP}),
        ("用独热向量去乘这张表，结果就是那一行。", {LOOKUP}),  # the product named in a clause
        ("独热向量乘上嵌入矩阵，得到的就是对应那一行。", {LOOKUP}),  # of its own
        ("表里的数开始是随便初始化的，之后靠反向传播一点点更新。", {LEARNED}),
        ("意思接近的 token，训练后在空间里离得近。", {POSITION}),
        (
            "An ID is like an address: you fetch one row of a big learnable matrix.",
            {ROW, LOOKUP, LEARNED},
        ),
    ],
)
def test_paraphrases_without_the_rubric_s_words_are_credited(
    lesson: Lesson, answer: str, claims: set[str]
) -> None:
    assert {claim.id for claim in grade(rubric_for(lesson, Q5), answer).met} == claims


def test_a_claim_both_said_and_denied_is_undecided(summary_rubric: Rubric) -> None:
    result = grade(summary_rubric, "ID 只是行号。ID 不是行号。")
    row = next(claim for claim in result.claims if claim.id == ROW)
    assert (row.met, row.denied, row.status, row.evidence) == (
        False,
        False,
        "undecided",
        "ID 只是行号",
    )


def test_a_misconception_only_in_a_hypothesis_is_undecided(summary_rubric: Rubric) -> None:
    result = grade(summary_rubric, "如果 ID 越大的 token 越重要，模型就学不好")
    big = next(m for m in result.misconceptions if m.id == BIG)
    assert (big.matched, big.status) == (False, "undecided")


@pytest.mark.parametrize(
    "answer",
    [
        "one-hot 乘表时，其余每一行都乘以 0，只剩那一行，所以等于查表。",
        "Multiplying by a one-hot vector multiplies every row by zero but one: it is a lookup.",
        "one-hot 乘表和查表结果差不多一样，但查表更快。",
    ],
)
def test_explaining_why_one_hot_picks_one_row_is_not_the_mixing_misconception(
    lesson: Lesson, answer: str
) -> None:
    """Every row, all rows: the words of the right explanation too (every other row × 0)."""
    result = grade(rubric_for(lesson, Q5), answer)
    assert result.matched == []
    assert [claim.id for claim in result.met] == [LOOKUP]
