"""The progress store, on each backend: what a learner did is there after a restart, for
them alone, and two sessions of one learner writing at once lose nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.progress.conftest import OpenStore
from tutor.progress.store import (
    MAX_ANSWER_JSON_CHARS,
    MAX_ATTEMPTS_PER_QUESTION,
    MAX_SUBMISSIONS_PER_LESSON,
    MAX_TEXT_CHARS,
    StoreLimitError,
)


def test_visits_positions_and_resume_survive_reopening(open_as: OpenStore) -> None:
    store = open_as("ada")
    store.visit_page("embedding", 1)
    store.visit_page("embedding", 3)
    store.visit_page("other", 2)
    store.visit_page("embedding", 3)
    store.close()

    reopened = open_as("ada")
    assert reopened.visited_pages("embedding") == {1, 3}
    assert reopened.lesson_page("embedding") == 3
    assert reopened.lesson_page("missing") is None
    position = reopened.last_position()
    assert (position.lesson, position.page) == ("embedding", 3)


def test_learners_are_kept_apart(open_as: OpenStore) -> None:
    open_as("ada").visit_page("embedding", 5)
    bob = open_as("bob")
    assert bob.visited_pages("embedding") == set()
    assert bob.last_position() is None


def test_quiz_attempts_keep_every_answer_in_order(open_as: OpenStore) -> None:
    store = open_as("ada")
    store.record_attempt("embedding", "q1", 2, False)
    store.record_attempt("embedding", "q1", [0, 3], True)
    store.record_attempt("embedding", "q2", "248,320", True)
    attempts = open_as("ada").attempts("embedding", "q1")
    assert [(a.answer, a.correct) for a in attempts] == [(2, False), ([0, 3], True)]
    last = store.last_attempt("embedding", "q2")
    assert (last.answer, last.correct) == ("248,320", True)
    assert store.last_attempt("embedding", "q3") is None


def test_summary_sections_and_submission(open_as: OpenStore) -> None:
    store = open_as("ada")
    store.save_summary("embedding", "understanding", "ID 是行号")
    store.save_summary("embedding", "understanding", "ID 只是行号")
    assert not store.summary_submitted("embedding")
    store.submit_summary("embedding", {"understanding": "ID 只是行号", "models": "查表"})
    reopened = open_as("ada")
    assert reopened.summary("embedding") == {"understanding": "ID 只是行号", "models": "查表"}
    assert reopened.summary_submitted("embedding")


def test_self_check_marks_are_kept_and_changed(open_as: OpenStore) -> None:
    store = open_as("ada")
    store.save_self_check("embedding", "summary", ["id-is-row"])
    store.save_self_check("embedding", "summary", ["id-is-row", "learned-numbers"])
    store.save_self_check("embedding", "explain-embedding", [])
    ada = open_as("ada")
    assert ada.self_check("embedding", "summary") == ["id-is-row", "learned-numbers"]
    assert ada.self_check("embedding", "explain-embedding") == []
    assert open_as("bob").self_check("embedding", "summary") == []


def test_odd_unicode_round_trips_and_long_texts_are_cut_at_the_limit(
    open_as: OpenStore,
) -> None:
    store = open_as("ada\u200b🙂")
    text = "行号\u0301 \x00 \U0010fffd " + "猫" * 100_000
    store.save_summary("embedding", "understanding", text)
    store.record_attempt("embedding", "q5", text, False)
    store.record_attempt("embedding", "q1", {"picked": "\U0010fffd"}, False)
    reopened = open_as("ada\u200b🙂")
    # a NUL (which PostgreSQL text cannot hold) reads back as U+FFFD on both backends
    kept = text[:MAX_TEXT_CHARS]
    assert reopened.summary("embedding") == {"understanding": kept.replace("\x00", "\ufffd")}
    assert reopened.last_attempt("embedding", "q5").answer == kept  # JSON keeps the NUL
    assert reopened.last_attempt("embedding", "q1").answer == {"picked": "\U0010fffd"}


def test_the_per_learner_limits_hold_and_say_why(open_as: OpenStore) -> None:
    store = open_as("ada")
    for n in range(MAX_ATTEMPTS_PER_QUESTION):
        store.record_attempt("embedding", "q1", n, False)
    with pytest.raises(
        StoreLimitError, match=f"already has {MAX_ATTEMPTS_PER_QUESTION} saved attempts"
    ):
        store.record_attempt("embedding", "q1", -1, True)
    for n in range(MAX_SUBMISSIONS_PER_LESSON):
        store.submit_summary("embedding", {"understanding": f"v{n}"})
    store.submit_summary("embedding", {"understanding": f"v{n}"})  # unchanged: not stored
    with pytest.raises(StoreLimitError, match="submitted 20 times"):
        store.submit_summary("embedding", {"understanding": "one more"})
    with pytest.raises(StoreLimitError):  # still full: refused again, the store unharmed
        store.record_attempt("embedding", "q1", -2, True)
    assert len(store.attempts("embedding", "q1")) == MAX_ATTEMPTS_PER_QUESTION
    assert store.summary("embedding") == {"understanding": "v19"}


def test_an_answer_too_big_to_store_is_refused_and_says_why(open_as: OpenStore) -> None:
    store = open_as("ada")
    longest_text = "\x00" * 100_000  # cut to MAX_TEXT_CHARS, each written as \u0000
    store.record_attempt("embedding", "q1", longest_text, False)
    too_big = [
        list(range(MAX_ANSWER_JSON_CHARS)),  # a list has no cut of its own
        {"picked": "x" * MAX_ANSWER_JSON_CHARS},
    ]
    for answer in too_big:
        length = len(json.dumps(answer, ensure_ascii=False))
        with pytest.raises(StoreLimitError, match=f"{length:,} characters") as refused:
            store.record_attempt("embedding", "q1", answer, False)
        assert refused.value.code == "answer_too_big"
        assert refused.value.values == {"chars": length, "limit": MAX_ANSWER_JSON_CHARS}
    kept = open_as("ada").attempts("embedding", "q1")
    assert [a.answer for a in kept] == [longest_text[:MAX_TEXT_CHARS]]
    assert len(json.dumps(kept[0].answer)) <= MAX_ANSWER_JSON_CHARS


WRITER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from tutor.progress.opening import open_store

    where = json.loads(sys.argv[1])
    if "data_dir" in where:
        where["data_dir"] = Path(where["data_dir"])
    store = open_store("ada", **where)
    for n in range(100):  # the most attempts kept per question
        store.visit_page("embedding", n % 16 + 1)
        store.record_attempt("embedding", f"q{sys.argv[2]}", n, n % 2 == 0)
        store.save_summary("embedding", f"s{sys.argv[2]}", "x" * n)
    """
)


def test_two_sessions_of_one_learner_write_at_once(
    where: dict[str, object], open_as: OpenStore
) -> None:
    """Two processes hammer the same learner's rows; every write lands."""
    arguments = json.dumps({key: str(value) for key, value in where.items()})
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, arguments, str(n)]) for n in (1, 2)]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    store = open_as("ada")
    assert len(store.attempts("embedding", "q1")) == 100
    assert len(store.attempts("embedding", "q2")) == 100
    assert store.summary("embedding") == {"s1": "x" * 99, "s2": "x" * 99}
    assert store.visited_pages("embedding") == set(range(1, 17))


def test_quiz_drafts_are_kept_apart_from_attempts_and_cleared_by_a_submission(
    open_as: OpenStore,
) -> None:
    """What a learner typed or ticked but did not submit is kept per question, is not an
    attempt, and is replaced by the attempt when they submit it."""
    store = open_as("ada")
    store.save_draft("embedding", "explain-embedding", "ID 是")
    store.save_draft("embedding", "explain-embedding", "ID 只是行号")
    store.save_draft("embedding", "onehot-distance", "√2")
    store.save_draft("embedding", "table-facts", [0, 2])
    reopened = open_as("ada")
    assert reopened.drafts("embedding") == {
        "explain-embedding": "ID 只是行号",
        "onehot-distance": "√2",
        "table-facts": [0, 2],
    }
    assert reopened.attempts("embedding", "explain-embedding") == []
    assert open_as("bob").drafts("embedding") == {}
    reopened.record_attempt("embedding", "onehot-distance", "√2", True)
    assert set(open_as("ada").drafts("embedding")) == {"explain-embedding", "table-facts"}
    assert len(open_as("ada").attempts("embedding", "onehot-distance")) == 1


def test_a_draft_is_cut_at_the_field_s_limit_and_a_huge_one_refused(open_as: OpenStore) -> None:
    """A draft keeps at most MAX_TEXT_CHARS (2,000) characters, what the answer field
    holds; a choice draft bigger than MAX_ANSWER_JSON_CHARS when stored is refused."""
    store = open_as("ada")
    store.save_draft("embedding", "explain-embedding", "猫" * 2_001)
    assert store.drafts("embedding") == {"explain-embedding": "猫" * 2_000}
    with pytest.raises(StoreLimitError) as refused:
        store.save_draft("embedding", "table-facts", list(range(MAX_ANSWER_JSON_CHARS)))
    assert refused.value.code == "answer_too_big"
    assert set(store.drafts("embedding")) == {"explain-embedding"}


def test_the_teacher_s_marks_are_kept_per_learner_and_item_and_replaced(
    open_as: OpenStore,
) -> None:
    """The teacher marks a learner's answer (claims met, misconceptions held or fixed, a
    comment); the learner reads them from their own store, nobody else's marks; marking
    again replaces them; a comment past its limit is cut there."""
    from tutor.progress.marks import TeacherMarks
    from tutor.progress.store import MAX_COMMENT_CHARS

    teacher = open_as("teacher")
    marks = TeacherMarks(
        claims={"id-is-row": True, "learned-numbers": False},
        misconceptions={"bigger-id-matters": "fixed"},
        comment="「门牌号」说得好。",
    )
    teacher.save_teacher_marks("ada", "embedding", "summary", marks)
    teacher.save_teacher_marks("bob", "embedding", "summary", TeacherMarks(comment="bob"))
    ada = open_as("ada")
    assert ada.teacher_marks("embedding") == {"summary": marks}
    assert ada.teacher_marks("other") == {}
    again = TeacherMarks(claims={"id-is-row": False}, comment="x" * (MAX_COMMENT_CHARS + 9))
    teacher.save_teacher_marks("ada", "embedding", "summary", again)
    kept = ada.teacher_marks("embedding")["summary"]
    assert kept.claims == {"id-is-row": False} and kept.misconceptions == {}
    assert kept.comment == "x" * MAX_COMMENT_CHARS
    assert open_as("bob").teacher_marks("embedding")["summary"].comment == "bob"
    assert teacher.teacher_marks("embedding") == {}
