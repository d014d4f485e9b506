"""Feedback that is right: free text graded on meaning with a self-check, choices explained
one by one (a missed option is not a wrong tick), numbers accepted as people write them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Button, Checkbox, Input, RadioButton, TextArea

from tests.tui.conftest import LESSON
from tests.tui.test_quiz_summary import question_of, quiz_page, submit, summary_page
from tests.waits import settle
from tutor.content.grade import MAX_CHARS
from tutor.progress.store import MAX_TEXT_CHARS
from tutor.tui.app import TutorApp
from tutor.tui.widgets.summary import SummaryEditor

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

WRONG = "ID 不是行号；one-hot 乘表不等于查表；训练不会改变向量的位置。"
PARAPHRASE = (
    "token ID 只是一个索引，用来在表里取出对应的那一行向量，这和 one-hot 乘矩阵等价。"
    "表里的数随机初始化，靠梯度下降一点点调整，用法相近的词最后挨在一起。"
)


async def answer_text(pilot, app: TutorApp, text: str):  # type: ignore[no-untyped-def]
    question = question_of(app, "text")
    question.query_one("#answer", TextArea).text = text
    await submit(pilot, question)
    return question


async def test_a_text_answer_that_denies_the_claims_is_not_praised(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = await answer_text(pilot, app, WRONG)
        reading = question.plain_text()
        assert question.correct is False
        assert "✓ 答对了" not in reading and "✓ 提到了" not in reading
        assert "「ID 不是行号」否定了：ID 只是行号，数值大小没有意义" in reading

        question = await answer_text(pilot, app, PARAPHRASE)
        assert question.correct is True
        assert "✓ 答对了" in question.plain_text()


async def test_a_misconception_gets_its_correction_and_no_credit(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = await answer_text(pilot, app, "ID 只是行号。ID 越大的 token 越重要。")
        reading = question.plain_text()
        assert question.correct is False
        assert "误解：ID 大的 token 更重要" in reading
        assert "ID 的大小只记录它是第几个被合并进词表的" in reading
        assert "✓ 提到了：ID 只是行号" not in reading
        assert "✗ 「ID 只是行号」被你写的误解「ID 大的 token 更重要」抵消" in reading


async def test_the_learner_marks_the_reference_claims_they_covered_and_it_is_kept(
    make_app: Callable[..., TutorApp],
) -> None:
    number = quiz_page()[0]
    app = make_app(start_lesson=LESSON, start_page=number)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = question_of(app, "text")
        assert not question.query("#self-check Checkbox")  # nothing to check before submitting
        question = await answer_text(pilot, app, "ID 只是行号")
        boxes = list(question.query("#self-check Checkbox").results(Checkbox))
        assert [str(box.label) for box in boxes] == [
            "ID 只是行号，数值大小没有意义",
            "one-hot 乘表等于查表，取出的是对应的一行",
            "表里的数一开始随机，是训练学出来的",
            "意义在向量的位置里：用法相近的 token 向量相近",
        ]
        boxes[0].focus()
        await pilot.press("space")
        boxes[2].value = True
        await settle(pilot)
        store = app.ctx.store
        assert store.self_check(LESSON, question.question.id) == [
            "id-is-row",
            "learned-numbers",
        ]

    restarted = make_app(start_lesson=LESSON, start_page=number)
    async with restarted.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = question_of(restarted, "text")
        ticked = [box.value for box in question.query("#self-check Checkbox").results(Checkbox)]
        assert ticked == [True, False, True, False]


async def test_the_summary_is_graded_on_meaning_with_a_self_check(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        first, second = editor.summary.sections[:2]
        fixed = next(s for s in editor.summary.sections if s.lists_misconceptions)
        editor.query_one(f"#section-{first.id}", TextArea).text = WRONG
        editor.query_one(f"#section-{second.id}", TextArea).text = "分词器可以随时换成别的"
        editor.query_one(f"#section-{fixed.id}", TextArea).text = "ID 越大的 token 越重要"
        await settle(pilot)
        editor.query_one("#submit-summary", Button).press()
        await settle(pilot)
        reading = editor.plain_text()
        assert "覆盖了 0 / 6 个要点" in reading
        assert "误解：分词器可以随时换" in reading
        assert "⚠ 误解：ID 大的 token 更重要" not in reading  # named as corrected, not held
        assert "✓ 纠正了的误解：ID 大的 token 更重要" in reading
        boxes = list(editor.query("#self-check Checkbox").results(Checkbox))
        assert len(boxes) == 6
        boxes[-1].value = True
        await settle(pilot)
        assert app.ctx.store.self_check(LESSON, "summary") == ["bound-partners"]


async def graded_summary(app: TutorApp, understanding: str, fixed: str) -> str:
    """The summary page with its first section and 纠正了的误解 written, once submitted."""
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        first = editor.summary.sections[0]
        listing = next(s for s in editor.summary.sections if s.lists_misconceptions)
        editor.query_one(f"#section-{first.id}", TextArea).text = understanding
        editor.query_one(f"#section-{listing.id}", TextArea).text = fixed
        await settle(pilot)
        editor.query_one("#submit-summary", Button).press()
        await settle(pilot)
        return editor.plain_text()


async def test_a_misconception_written_as_fixed_is_credit_and_withdraws_no_claim(
    make_app: Callable[..., TutorApp],
) -> None:
    """Page 15 as a learner filled it: 纠正了的误解 was read as held, cancelled the claim
    in 我的理解 and was quoted as 「「…」."""
    app = make_app(start_lesson=LESSON, start_page=summary_page())
    reading = await graded_summary(app, "ID 只是行号。", "ID 相近的 token 意思相近。")
    assert "覆盖了 1 / 6 个要点 · 纠正了 1 个误解" in reading
    assert "✓ 提到了：ID 只是行号，数值大小没有意义\n  找到：「ID 只是行号」" in reading
    assert "✓ 纠正了的误解：ID 相近的 token 意思相近" in reading
    assert "抵消" not in reading and "⚠" not in reading
    assert "「「" not in reading and "」」" not in reading


async def test_the_summary_s_findings_read_in_english(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=summary_page(), lang="en")
    reading = await graded_summary(
        app, 'It is just a "row index".', "Bigger IDs are more important"
    )
    assert "Covers 1 of 6 key claims · 1 misconception(s) fixed" in reading
    assert "  found: “It is just a 'row index'”" in reading
    assert "○ not found: Multiplying a one-hot vector by the table is the same" in reading
    assert "if you wrote it, tick it yourself below" in reading
    assert "✓ misconception fixed: A token with a bigger ID matters more" in reading


async def test_a_learner_s_own_quotes_are_not_doubled(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = await answer_text(pilot, app, "「ID 只是行号」这句话是对的")
        reading = question.plain_text()
        assert "  找到：「『ID 只是行号』这句话是对的」" in reading
        assert "「「" not in reading


async def test_a_missed_option_is_told_apart_from_a_wrong_tick(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        multiple = question_of(app, "multiple")
        choices = multiple.question.choices
        right = [n for n, c in enumerate(choices) if c.correct]
        wrong = [n for n, c in enumerate(choices) if not c.correct]
        boxes = list(multiple.query(Checkbox))
        boxes[right[0]].value = True
        boxes[wrong[0]].value = True
        await submit(pilot, multiple)
        lines = multiple.plain_text().splitlines()

        def line_of(n: int) -> str:
            return next(line for line in lines if choices[n].text in line and "—" in line)

        assert line_of(right[0]).startswith("✓ ")
        assert line_of(wrong[0]).startswith("✗ 选错：")
        for n in right[1:]:
            assert line_of(n).startswith("○ 漏选：")
        for n in wrong[1:]:  # left out, rightly: still explained
            assert line_of(n).startswith("· ")


async def test_a_single_choice_explains_every_option(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        for single in [q for q in app.screen.query("QuizQuestion") if q.question.type == "single"]:
            wrong = next(n for n, c in enumerate(single.question.choices) if not c.correct)
            single.query(RadioButton)[wrong].value = True
            await submit(pilot, single)
            reading = single.plain_text()
            for choice in single.question.choices:
                assert app.ctx.fill_facts(choice.explain) in reading
            correct = next(c for c in single.question.choices if c.correct)
            assert f"正确答案：{app.ctx.fill_facts(correct.text)}" in reading


@pytest.mark.parametrize("typed", ["√2", "sqrt(2)", "2**0.5", "2^0.5", "1.41", "1.414", " √ 2 "])
async def test_numeric_answers_are_read_as_people_write_them(
    make_app: Callable[..., TutorApp], typed: str
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        numeric = question_of(app, "numeric")
        numeric.query_one("#answer", Input).value = typed
        await submit(pilot, numeric)
        assert numeric.correct is True
        assert "正确答案：1.41" in numeric.plain_text()
        assert "1.414" not in numeric.plain_text().split("正确答案")[1]


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("√3", "√3 ≈ 1.73"),
        ("__import__('os')", "不是一个数"),
        ("9**9**9", "不是一个数"),
        ("x" * 500, "「" + "x" * 40 + "…」不是一个数"),
    ],
    ids=["root-3", "code", "overflow", "500-chars"],
)
async def test_other_numeric_input_is_judged_or_refused_safely(
    make_app: Callable[..., TutorApp], typed: str, says: str
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        numeric = question_of(app, "numeric")
        numeric.query_one("#answer", Input).value = typed
        await submit(pilot, numeric)
        assert says in numeric.plain_text()


async def test_feedback_speaks_english_in_the_english_interface(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0], lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        multiple = question_of(app, "multiple")
        choices = multiple.question.choices
        boxes = list(multiple.query(Checkbox))
        boxes[next(n for n, c in enumerate(choices) if not c.correct)].value = True
        await submit(pilot, multiple)
        reading = multiple.plain_text()
        assert "✗ wrong pick: " in reading and "○ missed: " in reading

        question = await answer_text(
            pilot, app, "An ID is not a row number. Bigger IDs matter more."
        )
        reading = question.plain_text()
        assert "✗ “An ID is not a row number” denies: A token ID is only a row number" in reading
        assert "⚠ Misconception: A token with a bigger ID matters more" in reading
        assert "Self-check: tick the reference claims" in reading


async def test_a_100000_character_paste_is_cut_to_the_field_and_graded(
    make_app: Callable[..., TutorApp],
) -> None:
    """The field keeps MAX_TEXT_CHARS (the store's limit, below the grader's MAX_CHARS)."""
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        question = question_of(app, "text")
        area = question.query_one("#answer", TextArea)
        area.insert(PARAPHRASE + "很" * 100_000)  # a paste goes through the field's edit
        assert len(area.text) == MAX_TEXT_CHARS < MAX_CHARS
        await submit(pilot, question)
        assert question.correct is True
        assert "只评了前" not in question.plain_text()
        attempt = app.ctx.store.last_attempt(LESSON, question.question.id)
        assert attempt.answer == PARAPHRASE + "很" * (MAX_TEXT_CHARS - len(PARAPHRASE))


async def test_a_numeric_answer_is_recorded_as_the_number_read_and_a_comment_is_refused(
    make_app: Callable[..., TutorApp],
) -> None:
    """`2 #…` once passed as 2 (the comment dropped) and was kept as typed, control
    characters and all, for the teacher's report to print."""
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        numeric = question_of(app, "numeric")
        store, qid = app.ctx.store, numeric.question.id
        numeric.query_one("#answer", Input).value = "2 #\u009b\u202e"
        await submit(pilot, numeric)
        assert "不是一个数" in numeric.plain_text()
        assert store.attempts(LESSON, qid) == []
        for typed in ("√2", " 1.41 ", "2.0"):
            numeric.query_one("#answer", Input).value = typed
            await submit(pilot, numeric)
        assert [a.answer for a in store.attempts(LESSON, qid)] == [
            "1.4142135623730951",
            "1.41",
            "2",
        ]


@pytest.mark.parametrize(
    ("lang", "typed", "says"),
    [
        ("zh", "2", "2 是正确答案的平方：还差开平方根这一步。"),
        ("en", "2", "2 is the square of the answer: the square root is still to be taken."),
        ("zh", "1", "1 只是一个位置上的差"),
        ("zh", "1.4", "1.4 是对的数，只是小数位不够：题目要保留 2 位小数（1.41）。"),
        (
            "en",
            "1.4",
            "1.4 is the right number with too few decimals: the question asks for 2 (1.41).",
        ),
        ("zh", "1.5", "距离 = √(1² + 1²) = √2 ≈ 1.41"),
    ],
    ids=["squared", "squared-en", "one-position", "decimals", "decimals-en", "other"],
)
async def test_a_wrong_number_is_explained(
    make_app: Callable[..., TutorApp], lang: str, typed: str, says: str
) -> None:
    """A wrong number once got only "✗ 不对": each tempting one gets its own sentence, any
    other the derivation."""
    app = make_app(start_lesson=LESSON, start_page=quiz_page()[0], lang=lang)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        numeric = question_of(app, "numeric")
        numeric.query_one("#answer", Input).value = typed
        await submit(pilot, numeric)
        assert numeric.correct is False
        reading = numeric.plain_text()
        assert says in reading
        _prompt, _verdict, explained, _attempts = reading.splitlines()  # one sentence
        assert says in explained
