"""`tutor review` on a real class's progress, SQLite and PostgreSQL: the teacher marks by
keys alone, the marks reach the store and the learner's summary page, and nothing a
learner typed acts on the teacher's terminal."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.progress.conftest import OpenStore
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.progress.classview import read_class
from tutor.progress.opening import open_store
from tutor.progress.review import answers_to_review
from tutor.tui.review import ReviewApp
from tutor.tui.widgets.mark_toggle import MarkToggle
from tutor.tui.widgets.marking import ItemMarking

HOSTILE_NAME = "evil\x1b[2J\u202eboB"
HOSTILE_ANSWER = "ID 越大的词越重要。\x9b31m\u200b\x7f"


def fill(open_as: OpenStore) -> None:
    ada = open_as("ada")
    ada.submit_summary(
        "embedding",
        {
            "understanding": "ID 只是行号；one-hot 乘表就是查表。",
            "remaining-questions": "位置信息是怎么加进去的？",
            "misconceptions-fixed": "ID 大的 token 更重要",
        },
    )
    ada.save_summary("embedding", "understanding", "a draft typed after submitting")
    open_as(HOSTILE_NAME).record_attempt("embedding", "explain-embedding", HOSTILE_ANSWER, False)


def review_app(where: dict[str, object], lang: str = "zh") -> ReviewApp:
    """The app as `tutor review` builds it (tutor.commands.review)."""
    lesson = load_lessons(content_dir()).lesson("embedding")
    assert lesson is not None
    progress = read_class(where.get("data_dir"), where.get("database"))  # type: ignore[arg-type]
    store = open_store("teacher", **where)  # type: ignore[arg-type]
    learners = answers_to_review(lesson, progress, {})
    return ReviewApp([lesson], learners, store, lang, animate=False)  # type: ignore[arg-type]


def shown_text(app: ReviewApp) -> str:
    from textual.widgets import Static

    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


async def test_the_teacher_marks_by_keys_and_the_learner_reads_them(
    where: dict[str, object], open_as: OpenStore
) -> None:
    fill(open_as)
    app = review_app(where)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown_text(app)
        assert "学习者 1/2：ada" in text
        assert "ID 只是行号；one-hot 乘表就是查表。" in text  # the submitted text, not the draft
        assert "a draft typed after submitting" not in text
        assert "(评分器：✓「ID 只是行号" in text  # the grader's verdict and its evidence
        assert isinstance(app.focused, MarkToggle)  # the first claim: marked at once
        await pilot.press("space")  # id-is-row: met
        await pilot.press("tab", "space", "space")  # onehot-is-lookup: not met
        toggles = list(app.screen.query(MarkToggle))
        misconception = next(t for t in toggles if t.key == "bigger-id-matters")
        misconception.focus()
        await pilot.press("space", "space")  # fixed
        app.screen.query_one(ItemMarking).query_one("TextArea").focus()
        await pilot.press(*"good")
        await pilot.press("escape", "n")  # leaving the field saves; n: the next learner
        await pilot.pause()
        assert "学习者 2/2：" in shown_text(app)
        await pilot.press("p")
        await pilot.pause()
        again = {t.key: t.state for t in app.screen.query(MarkToggle)}
        assert again["id-is-row"] == "met" and again["onehot-is-lookup"] == "not_met"
        await pilot.press("question_mark")  # help names the keys, in the teacher's language
        await pilot.pause()
        help_text = shown_text(app)
        assert "一次一位学习者" in help_text and "下一位" in help_text and "批" in help_text
        assert "证据等级" not in help_text  # the lessons' facts are not on this screen
        await pilot.press("escape", "q")
    marks = open_as("ada").teacher_marks("embedding")["summary"]
    assert marks.claims == {"id-is-row": True, "onehot-is-lookup": False}
    assert marks.misconceptions == {"bigger-id-matters": "fixed"}
    assert marks.comment == "good"


async def test_learner_text_and_names_are_shown_visibly_in_the_review(
    where: dict[str, object], open_as: OpenStore
) -> None:
    fill(open_as)
    app = review_app(where, "en")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        text = shown_text(app)
    assert "learner 2/2: evil␛[2J⟨U+202E⟩boB" in text
    assert "ID 越大的词越重要。⟨U+009B⟩31m⟨U+200B⟩␡" in text
    assert "grader: found 「ID 越大的词越重要" in text  # the clause it read, for the teacher
    hidden = [c for c in text if c != "\n" and unicodedata.category(c) in {"Cc", "Cf"}]
    assert hidden == []


async def test_nobody_to_review_is_said(where: dict[str, object], open_as: OpenStore) -> None:
    open_as("ada").visit_page("embedding", 1)
    app = review_app(where, "en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Nobody has submitted a summary" in shown_text(app)
        await pilot.press("n", "space", "q")


def test_review_without_progress_says_so_in_the_teacher_s_language(tmp_path: Path, capsys) -> None:
    from tutor.cli import main

    assert main(["--lang", "en", "review", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("tutor review: cannot read the progress at ")


async def test_a_mark_that_cannot_be_saved_is_said_and_stays_on_screen(tmp_path: Path) -> None:
    """A full disk (SQLite's page limit at the pages in use, the marks' filled): the status
    line and a notification say the marks were not saved; the review goes on."""
    import contextlib
    import sqlite3

    ada = open_store("ada", tmp_path)
    ada.submit_summary("embedding", {"understanding": "ID 只是行号。"})
    app = review_app({"data_dir": tmp_path}, "en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        db = app.ctx.store._db  # type: ignore[attr-defined]
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        with contextlib.suppress(sqlite3.OperationalError):  # the marks' own pages full too
            for n in range(10_000):
                db.execute(
                    "INSERT INTO teacher_marks VALUES ('filler', 'x', ?, '{}', ?, 0)",
                    (str(n), "f" * 200),
                )
        app.screen.query_one("TextArea").focus()
        await pilot.press(*("x" * 30))
        await pilot.press("escape")
        await pilot.pause()
        said = "The marks were not saved: the disk is full"
        assert said in shown_text(app)
        assert any(said in str(n.message) for n in app._notifications)
        assert app.screen.query_one(ItemMarking).comment == "x" * 30
        assert app.is_running and app.crashed is None
    assert ada.teacher_marks("embedding") == {}


async def test_the_review_says_what_the_grader_decided_not_only_found_or_not(
    tmp_path: Path,
) -> None:
    """A misconception listed under 纠正了的误解 is one the grader found fixed (the learner's
    page says so), and a claim both said and denied is undecided; the review said 没找到
    for both, so the teacher read the grader as having missed them."""
    ada = open_store("ada", tmp_path)
    ada.submit_summary(
        "embedding",
        {
            "understanding": "ID 只是行号。ID 不是行号。",
            "misconceptions-fixed": "ID 相近的 token 意思相近。",
        },
    )
    for lang, fixed, undecided in (
        ("zh", "(评分器：已纠正「ID 相近的 token 意思相近」)", "(评分器：说不准「ID 只是行号」)"),
        (
            "en",
            "(grader: fixed 「ID 相近的 token 意思相近」)",
            "(grader: undecided 「ID 只是行号」)",
        ),
    ):
        app = review_app({"data_dir": tmp_path}, lang)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            toggles = {t.key: t for t in app.screen.query(MarkToggle)}
            assert fixed in str(toggles["close-ids-close-meaning"].render())
            assert undecided in str(toggles["id-is-row"].render())
            await pilot.press("q")
