"""`tutor review` over the course: a learner who submitted the summaries of two lessons is
reviewed in both, one after the other in course order, and each lesson's marks reach the
store under that lesson."""

from __future__ import annotations

from tests.progress.conftest import OpenStore
from tests.progress.test_review import shown_text
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.progress.classview import read_class
from tutor.progress.opening import open_store
from tutor.progress.review import answers_for_course
from tutor.tui.review import ReviewApp
from tutor.tui.widgets.mark_toggle import MarkToggle


async def test_both_summaries_are_shown_and_marked_under_their_lessons(
    where: dict[str, object], open_as: OpenStore
) -> None:
    ada = open_as("ada")
    ada.submit_summary("token", {"understanding": "字节 BPE 从 256 种字节开始，不会有 [UNK]。"})
    ada.submit_summary("embedding", {"understanding": "ID 只是行号；one-hot 乘表就是查表。"})
    lessons = load_lessons(content_dir()).lessons
    progress = read_class(where.get("data_dir"), where.get("database"))  # type: ignore[arg-type]
    entries = answers_for_course(lessons, progress, {})
    assert [(e.learner, e.lesson) for e in entries] == [("ada", "token"), ("ada", "embedding")]
    store = open_store("teacher", **where)  # type: ignore[arg-type]
    app = ReviewApp(lessons, entries, store, "zh", animate=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown_text(app)
        assert "批改 · token · 学习者 1/2：ada" in text
        assert "字节 BPE 从 256 种字节开始" in text
        assert next(t.key for t in app.screen.query(MarkToggle)) == "bytes-no-unk"
        await pilot.press("space")  # bytes-no-unk: met
        await pilot.press("n")
        await pilot.pause()
        text = shown_text(app)
        assert "批改 · embedding · 学习者 2/2：ada" in text
        assert "ID 只是行号；one-hot 乘表就是查表。" in text
        await pilot.press("space")  # id-is-row: met
        await pilot.press("q")
    assert open_as("ada").teacher_marks("token")["summary"].claims == {"bytes-no-unk": True}
    assert open_as("ada").teacher_marks("embedding")["summary"].claims == {"id-is-row": True}
