"""`tutor report` on a real class's progress: the same figures from SQLite and PostgreSQL,
in JSON, CSV and an 80-column table; guests counted, never listed; read-only."""

from __future__ import annotations

import csv
import grp
import io
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncssh
import pytest
from rich.cells import cell_len

from tests.progress.conftest import OpenStore
from tutor.cli import main
from tutor.content import load_lessons
from tutor.core.paths import content_dir
from tutor.progress.report import claim_names
from tutor.progress.sessions import ServedSessions
from tutor.progress.sqlite import DB_FILENAME

ADA_KEY = asyncssh.generate_private_key("ssh-ed25519")
ADA = ADA_KEY.get_fingerprint("sha256")
BOB = "SHA256:" + "b" * 43  # a key nobody named


def embedding_of(data: dict) -> dict:
    """The Embedding lesson's part of a JSON report, which has one part per lesson."""
    return next(lesson for lesson in data["lessons"] if lesson["lesson"] == "embedding")


def fill_class(open_as: OpenStore, where: dict[str, object]) -> None:
    ada = open_as(ADA)
    for page in range(1, 15):
        ada.visit_page("embedding", page)
    ada.record_attempt("embedding", "close-ids", 1, False)  # option 2 (wrong)
    ada.record_attempt("embedding", "close-ids", 3, True)
    ada.record_attempt("embedding", "table-facts", [0, 1, 2], False)  # option 3 is wrong
    ada.save_summary("embedding", "understanding", "ID 只是行号")
    ada.save_self_check("embedding", "summary", ["id-is-row", "learned-numbers"])
    ada.save_self_check("embedding", "explain-embedding", [])
    bob = open_as(BOB)
    bob.visit_page("embedding", 1)
    bob.visit_page("embedding", 2)
    bob.record_attempt("embedding", "close-ids", 1, False)
    bob.record_attempt("embedding", "close-ids", 3, True)
    bob.record_attempt("embedding", "renumber", 2, True)
    served = ServedSessions(where.get("data_dir"), database=where.get("database"))  # type: ignore[arg-type]
    for _ in range(3):
        served.start("guest", guest=True, cap=1)
    served.start(BOB, guest=False, cap=3)
    served.close()


def report(where: dict[str, object], *options: str) -> str:
    source = ["--database", where["database"]] if "database" in where else []
    source = source or ["--data-dir", str(where["data_dir"])]
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        assert main(["report", *map(str, source), *options]) == 0
    return out.getvalue()


def test_the_json_report_has_each_learner_question_and_guest_count(
    where: dict[str, object], open_as: OpenStore, tmp_path: Path
) -> None:
    fill_class(open_as, where)
    keys = tmp_path / "authorized_keys"
    keys.write_text(ADA_KEY.export_public_key().decode().strip() + " Ada Lovelace\n")
    data = json.loads(report(where, "--json", "--authorized-keys", str(keys)))
    assert data["guest_sessions"] == 3
    lesson = embedding_of(data)
    learners = {row["name"]: row for row in lesson["learners"]}
    assert set(learners) == {"Ada Lovelace", BOB[:15] + "…"}  # guests never listed
    ada = learners["Ada Lovelace"]
    assert (ada["pages_reached"], ada["pages_total"], ada["furthest_page"]) == (14, 16, 14)
    marks = {m["question"]: (m["attempts"], m["last_right"]) for m in ada["questions"]}
    assert marks["close-ids"] == (2, True)
    assert marks["table-facts"] == (1, False)
    assert marks["renumber"] == (0, None)
    # of the summary's 6 reference claims and the text question's 4, she marked 2
    assert (ada["self_check_covered"], ada["self_check_total"]) == (2, 6 + 4)
    questions = {q["question"]: q for q in lesson["questions"]}
    close = questions["close-ids"]
    assert close["answered"] == 2
    assert close["right_first_try"] == 0.0
    assert close["most_chosen_wrong"].startswith("2. 猫的 ID 更大")
    assert close["most_chosen_wrong_count"] == 2
    assert questions["renumber"]["right_first_try"] == 1.0
    assert questions["table-facts"]["most_chosen_wrong"].startswith("3. ")
    assert questions["onehot-distance"]["answered"] == 0


def test_the_most_chosen_wrong_answer_counts_learners_not_tries(
    where: dict[str, object], open_as: OpenStore
) -> None:
    ada = open_as(ADA)
    for _ in range(10):  # one learner retrying the same wrong option
        ada.record_attempt("embedding", "close-ids", 1, False)
    bob = open_as(BOB)
    bob.record_attempt("embedding", "close-ids", 2, False)
    bob.record_attempt("embedding", "close-ids", 1, False)
    data = json.loads(report(where, "--json"))
    close = {q["question"]: q for q in embedding_of(data)["questions"]}["close-ids"]
    assert close["most_chosen_wrong"].startswith("2. ")
    assert close["most_chosen_wrong_count"] == 2  # Ada and Bob, each once


def test_csv_has_a_row_per_learner_and_question(
    where: dict[str, object], open_as: OpenStore
) -> None:
    fill_class(open_as, where)
    rows = list(csv.DictReader(io.StringIO(report(where, "--csv"))))
    assert len(rows) == 2 * 5
    bob = {row["question"]: row for row in rows if row["learner"] == BOB}
    assert (bob["close-ids"]["attempts"], bob["close-ids"]["last_right"]) == ("2", "1")
    assert bob["onehot-distance"]["last_right"] == ""


def test_the_table_fits_80_columns(where: dict[str, object], open_as: OpenStore) -> None:
    fill_class(open_as, where)
    text = report(where, "--lang", "en")
    assert "Guests: 3 sessions (never listed)" in text
    assert BOB[:15] + "…" in text
    widths = [cell_len(line) for line in text.splitlines()]
    assert max(widths) <= 80, text


def latin_words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]{2,}", text))


def test_the_table_speaks_chinese_by_default_and_fits_80_columns(
    where: dict[str, object], open_as: OpenStore
) -> None:
    """Every English word in the Chinese table is a name, an id, the source or the
    lesson's own text; misconceptions are said in their Chinese wording."""
    fill_class(open_as, where)
    open_as(BOB).record_attempt("embedding", "explain-embedding", "ID 越大的词越重要。", False)
    text = report(where)
    data = json.loads(report(where, "--json"))
    content = [data["source"]]
    for each in data["lessons"]:  # every lesson of the course has its table
        content += [each["title"], each["lesson"]]
        content += [row["name"] for row in each["learners"]]
        for question in each["questions"]:
            content += [
                question["question"],
                question["prompt"],
                question["most_chosen_wrong"] or "",
            ]
    for each in load_lessons(
        content_dir()
    ).lessons:  # the rubrics' claims, as the lessons word them
        content += claim_names(each, "zh").values()
    lesson = embedding_of(data)
    assert [(m["misconception"], m["learners"]) for m in lesson["misconceptions"]] == [
        ("bigger-id-matters", 1)
    ]
    assert "ID 大的 token 更重要" in text  # the misconception's Chinese wording, not its id
    assert "bigger-id-matters" not in text
    assert "访客：3 次会话（从不列出）" in text
    assert latin_words(text) - latin_words(" ".join(content)) - {"ID", "token"} == set(), text
    widths = [cell_len(line) for line in text.splitlines()]
    assert max(widths) <= 80, text


def test_the_english_table_says_misconceptions_in_english(
    where: dict[str, object], open_as: OpenStore
) -> None:
    open_as(BOB).record_attempt("embedding", "explain-embedding", "ID 越大的词越重要。", False)
    text = report(where, "--lang", "en")
    assert "A token with a bigger ID matters more" in text
    assert "Misconception" in text and "ID 大的" not in text


def test_reading_does_not_wait_for_a_learner_who_is_writing(tmp_path: Path) -> None:
    from tutor.progress.opening import open_store

    open_store("ada", tmp_path).visit_page("embedding", 3)
    writer = sqlite3.connect(tmp_path / DB_FILENAME, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a learner's write in progress holds the lock
    writer.execute("UPDATE positions SET page = 4")
    data = json.loads(report({"data_dir": tmp_path}, "--json"))
    writer.execute("COMMIT")
    assert embedding_of(data)["learners"][0]["furthest_page"] == 3


def test_reading_writes_nothing(where: dict[str, object], open_as: OpenStore) -> None:
    fill_class(open_as, where)
    if "data_dir" in where:
        path = Path(str(where["data_dir"])) / DB_FILENAME
        before = path.read_bytes()
        report(where, "--json")
        assert path.read_bytes() == before
    else:
        before = everything_in(str(where["database"]))
        report(where, "--json")
        assert everything_in(str(where["database"])) == before


TABLES = [
    "page_visits",
    "positions",
    "quiz_attempts",
    "summaries",
    "summary_submissions",
    "self_checks",
    "served_sessions",
    "teacher_marks",
    "schema_version",
]


def everything_in(url: str) -> dict[str, list[tuple[object, ...]]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}


def test_no_progress_yet_is_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--data-dir", str(tmp_path)]) == 1
    path = tmp_path / DB_FILENAME
    assert (
        capsys.readouterr().err
        == f"tutor report：读不了 {path} 的进度：这里还没有进度文件（还没有人用过导师？）\n"
    )
    assert main(["--lang", "en", "report", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        f"tutor report: cannot read the progress at {path}: "
        "no progress file here yet (has anyone used the tutor?)\n"
    )
    assert not (tmp_path / DB_FILENAME).exists()


def test_an_unknown_lesson_names_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.progress.opening import open_store

    open_store("ada", tmp_path).visit_page("embedding", 1)
    assert main(["report", "--data-dir", str(tmp_path), "--lesson", "nope"]) == 2
    known = ", ".join(lesson.id for lesson in load_lessons(content_dir()).lessons)
    assert capsys.readouterr().err == f"tutor report：没有「nope」这一课（现有的课：{known}）\n"
    assert main(["--lang", "en", "report", "--data-dir", str(tmp_path), "--lesson", "nope"]) == 2
    assert capsys.readouterr().err == f"tutor report: no lesson 'nope' (lessons: {known})\n"


def test_a_file_that_is_not_a_progress_file_is_said_in_the_interfaces_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / DB_FILENAME).write_bytes(b"not a database" * 100)
    assert main(["report", "--data-dir", str(tmp_path)]) == 1
    path = tmp_path / DB_FILENAME
    assert capsys.readouterr().err == (
        f"tutor report：读不了 {path} 的进度：进度文件已损坏，或者不是导师的进度文件\n"
    )
    keys = tmp_path / "missing_keys"
    (tmp_path / DB_FILENAME).unlink()
    from tutor.progress.opening import open_store

    open_store("ada", tmp_path).visit_page("embedding", 1)
    assert main(["report", "--data-dir", str(tmp_path), "--authorized-keys", str(keys)]) == 2
    assert capsys.readouterr().err == f"tutor report：读不了 {keys}：没有这个文件\n"


def test_a_hostile_key_comment_neither_styles_the_table_nor_runs_in_a_spreadsheet(
    tmp_path: Path,
) -> None:
    from tutor.progress.opening import open_store

    open_store(ADA, tmp_path).visit_page("embedding", 1)
    keys = tmp_path / "keys"
    name = "=1+[red]x\x1b[2J"  # short enough for the name column
    keys.write_text(ADA_KEY.export_public_key().decode().strip() + f" {name}\n")
    where = {"data_dir": tmp_path}
    table = report(where, "--authorized-keys", str(keys), "--lang", "en")
    assert "=1+[red]x␛[2J" in table
    assert "\x1b" not in table
    rows = csv.DictReader(io.StringIO(report(where, "--csv", "--authorized-keys", str(keys))))
    assert {row["name"] for row in rows} == {"'=1+[red]x␛[2J"}


# a learner name (`--learner`, a ForceCommand's TUTOR_LEARNER) and answers as hostile as a
# learner can type them: a formula, C1 CSI, bidi override, zero-width space, DEL, ESC
HOSTILE_NAME = '=HYPERLINK("http://x","y")\x9b2J\u202e'
HOSTILE_TEXT = "2 #\x1b]0;owned\x07\x9b31m\u202eevil\u200b\x7f"


def hidden_characters(text: str) -> list[str]:
    import unicodedata

    hidden = {"Cc", "Cf", "Zl", "Zp", "Cs"}
    return [c for c in text if c not in "\n\r" and unicodedata.category(c) in hidden]


def test_learner_text_never_reaches_the_teacher_s_terminal_raw(
    where: dict[str, object], open_as: OpenStore
) -> None:
    """Names, numeric and text answers and summaries, in the table, the CSV and the JSON:
    nothing a terminal acts on is printed, and no CSV cell starts like a formula."""
    learner = open_as(HOSTILE_NAME)
    learner.visit_page("embedding", 15)
    learner.record_attempt("embedding", "onehot-distance", HOSTILE_TEXT, False)
    learner.record_attempt("embedding", "explain-embedding", HOSTILE_TEXT, False)
    learner.save_summary("embedding", "understanding", HOSTILE_TEXT)
    learner.save_summary("embedding", "remaining-questions", HOSTILE_TEXT)
    for lang in ("en", "zh"):
        table = report(where, "--lang", lang)
        assert hidden_characters(table) == [], table
        assert "⟨U+009B⟩" in table and "⟨U+202E⟩" in table
    text = report(where, "--json")
    assert hidden_characters(text) == []
    data = json.loads(text)  # tools still get exactly what was typed
    assert embedding_of(data)["learners"][0]["learner"] == HOSTILE_NAME
    sheet = report(where, "--csv")
    assert hidden_characters(sheet) == []
    for row in csv.reader(io.StringIO(sheet)):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row


def test_the_grader_reads_summaries_and_text_answers_for_claims_and_misconceptions(
    where: dict[str, object], open_as: OpenStore
) -> None:
    """A learner who states a misconception in a text answer is counted under it, and is
    not credited with the claim it contradicts; a correct summary's claims are met."""
    ada = open_as(ADA)
    ada.visit_page("embedding", 15)
    ada.save_summary("embedding", "understanding", "ID 只是行号；one-hot 乘表就是查表。")
    ada.record_attempt("embedding", "explain-embedding", "训练会改变 token 的 ID。", False)
    bob = open_as(BOB)
    bob.record_attempt("embedding", "explain-embedding", "ID 越大的词越重要。", False)
    bob.save_summary("embedding", "understanding", "训练会改变 token 的 ID。")
    data = json.loads(report(where, "--json"))
    lesson = embedding_of(data)
    rows = {row["learner"]: row for row in lesson["learners"]}
    assert set(rows[ADA]["claims_met"]) >= {"id-is-row", "onehot-is-lookup"}
    assert rows[ADA]["misconceptions"] == ["training-changes-ids"]
    assert rows[BOB]["claims_met"] == []
    counts = {m["misconception"]: m["learners"] for m in lesson["misconceptions"]}
    assert counts["training-changes-ids"] == 2  # Ada's answer and Bob's summary
    assert sum(counts.values()) == 3


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can read a store another user owns")
def test_reading_as_root_leaves_only_files_the_stores_owner_can_write(tmp_path: Path) -> None:
    """`sudo tutor report` while the server is stopped: the read-only open creates the
    `-wal` and `-shm` files, and they must belong to the store's owner, or the server
    could no longer write when it starts again."""
    from tutor.progress.opening import open_store

    store = open_store(ADA, tmp_path)
    store.visit_page("embedding", 1)
    store.close()
    owner = 65534  # nobody: a user other than the one reading
    for path in [tmp_path, *tmp_path.iterdir()]:
        os.chown(path, owner, owner)
    (tmp_path / DB_FILENAME).chmod(0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_FILENAME]  # server stopped
    report({"data_dir": tmp_path}, "--json")
    files = {p.name: p.stat() for p in tmp_path.iterdir()}
    assert set(files) >= {DB_FILENAME, DB_FILENAME + "-shm", DB_FILENAME + "-wal"}
    for name, stat in files.items():
        assert (name, stat.st_uid, stat.st_gid) == (name, owner, owner)
        assert (name, stat.st_mode & 0o777) == (name, 0o640)  # the owner may write


@contextmanager
def acting_as(user: str, *groups: str) -> Iterator[None]:
    """Run the block with another user's effective ids (root only), then be root again."""
    import grp
    import pwd

    entry = pwd.getpwnam(user)
    os.setgroups([grp.getgrnam(group).gr_gid for group in groups])
    os.setegid(entry.pw_gid)
    os.seteuid(entry.pw_uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups([])


def store_owned_by_nobody(mode: int) -> Path:
    """A stopped server's store (no -wal, no -shm), owned by `nobody`, in a folder any user
    may write (as a class's shared folder could be)."""
    import tempfile

    from tutor.progress.opening import open_store

    folder = Path(tempfile.mkdtemp(prefix="tutor-report-"))
    store = open_store(ADA, folder)
    store.visit_page("embedding", 1)
    store.close()
    (folder / DB_FILENAME).chmod(mode)
    for path in [folder, *folder.iterdir()]:
        shutil.chown(path, "nobody", "nogroup")
    folder.chmod(0o777)
    return folder


needs_root_and_users = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None,
    reason="acting as other users needs root",
)


@needs_root_and_users
def test_another_user_who_could_strand_the_server_is_refused_and_creates_nothing() -> None:
    """A teacher's own account (neither root nor the store's owner) would create `-wal` and
    `-shm` the server's user could not write: the report says so instead of reading."""
    from tutor.progress.classview import read_class
    from tutor.progress.store import StoreError

    folder = store_owned_by_nobody(0o644)
    try:
        with acting_as("postgres"), pytest.raises(StoreError) as refused:
            read_class(folder)
        assert "run it as the file's owner (nobody) or as root" in str(refused.value)
        assert sorted(p.name for p in folder.iterdir()) == [DB_FILENAME]
    finally:
        shutil.rmtree(folder)


@needs_root_and_users
def test_another_user_in_the_stores_group_leaves_files_the_group_may_write() -> None:
    from tutor.progress.classview import read_class

    folder = store_owned_by_nobody(0o664)
    try:
        with acting_as("postgres", "nogroup"):
            progress = read_class(folder)
        assert list(progress.visits) == [(ADA, "embedding", 1)]
        nogroup = grp.getgrnam("nogroup").gr_gid
        for path in folder.iterdir():
            assert (path.name, path.stat().st_gid, path.stat().st_mode & 0o777) == (
                path.name,
                nogroup,
                0o664,
            )
    finally:
        shutil.rmtree(folder)


def test_drafts_change_nothing_in_the_report(where: dict[str, object], open_as: OpenStore) -> None:
    """Answers typed or ticked but not submitted are no attempts: the report is the same
    with them as without."""
    fill_class(open_as, where)
    before = json.loads(report(where, "--json"))
    ada = open_as(ADA)
    ada.save_draft("embedding", "onehot-distance", "1.41")
    ada.save_draft("embedding", "explain-embedding", "ID 只是行号")
    ada.save_draft("embedding", "renumber", 1)
    open_as(BOB).save_draft("embedding", "table-facts", [0])
    after = json.loads(report(where, "--json"))
    del after["generated_at"], before["generated_at"]
    assert after == before


def mark_class(open_as: OpenStore) -> None:
    """Ada's summary met two claims by the grader, she ticked one, the teacher credits a
    third the grader missed; Bob's answer states a misconception the teacher marks held,
    and Ada's the teacher marks fixed; both wrote remaining questions."""
    from tutor.progress.marks import TeacherMarks

    ada = open_as(ADA)
    ada.save_summary("embedding", "understanding", "ID 只是行号；one-hot 乘表就是查表。")
    ada.save_summary("embedding", "remaining-questions", "位置信息是怎么加进去的？")
    ada.save_self_check("embedding", "summary", ["id-is-row"])
    bob = open_as(BOB)
    bob.record_attempt("embedding", "explain-embedding", "ID 越大的词越重要。", False)
    bob.save_summary("embedding", "remaining-questions", "  ")  # blank: not a question
    teacher = open_as("teacher")
    teacher.save_teacher_marks(
        ADA,
        "embedding",
        "summary",
        TeacherMarks(
            claims={"id-is-row": True, "learned-numbers": True, "onehot-is-lookup": False},
            misconceptions={"bigger-id-matters": "fixed"},
        ),
    )
    teacher.save_teacher_marks(
        BOB,
        "embedding",
        "explain-embedding",
        TeacherMarks(claims={"id-is-row": True}, misconceptions={"bigger-id-matters": "held"}),
    )


def test_a_misconception_a_learner_names_as_corrected_counts_as_fixed_by_the_grader(
    where: dict[str, object], open_as: OpenStore
) -> None:
    """The summary's section of corrected misconceptions is what the grader reads as fixed:
    the report counted only the learners still holding one, so a class that had put a
    misconception behind it showed nothing, as if no one had ever met it."""
    open_as(ADA).save_summary("embedding", "misconceptions-fixed", "ID 越大的词越重要。")
    open_as(BOB).record_attempt("embedding", "explain-embedding", "ID 越大的词越重要。", False)
    lesson = embedding_of(json.loads(report(where, "--json")))
    rows = {row["misconception"]: row for row in lesson["misconceptions"]}
    bigger = rows["bigger-id-matters"]
    assert (bigger["learners"], bigger["grader_fixed"]) == (1, 1)  # Bob holds it, Ada fixed it
    table = report(where, "--lang", "en").splitlines()
    at = table.index(next(line for line in table if line.startswith("Misconception")))
    assert table[at - 1].split() == ["Grader", "Grader", "Teacher", "Teacher"]
    assert table[at].split() == ["Misconception", "held", "fixed", "held", "fixed"]
    assert table[at + 1].split()[-4:] == ["1", "1", "0", "0"]


def test_each_claim_and_misconception_has_the_grader_s_the_learners_and_the_teacher_s_count(
    where: dict[str, object], open_as: OpenStore
) -> None:
    mark_class(open_as)
    lesson = embedding_of(json.loads(report(where, "--json")))
    claims = {(row["item"], row["claim"]): row for row in lesson["claims"]}
    counts = {key: (r["grader"], r["self_check"], r["teacher"]) for key, r in claims.items()}
    assert counts[("summary", "id-is-row")] == (1, 1, 1)
    assert counts[("summary", "onehot-is-lookup")] == (1, 0, 0)  # the teacher disagreed
    assert counts[("summary", "learned-numbers")] == (0, 0, 1)  # the grader missed it
    assert counts[("explain-embedding", "id-is-row")] == (0, 0, 1)
    misconceptions = {row["misconception"]: row for row in lesson["misconceptions"]}
    bigger = misconceptions["bigger-id-matters"]
    assert (bigger["learners"], bigger["teacher_held"], bigger["teacher_fixed"]) == (1, 1, 1)
    assert lesson["remaining_questions"] == [
        {"name": ADA[:15] + "…", "learner": ADA, "text": "位置信息是怎么加进去的？"}
    ]


def test_the_table_shows_the_three_counts_and_the_remaining_questions_in_80_columns(
    where: dict[str, object], open_as: OpenStore
) -> None:
    mark_class(open_as)
    for lang, words in (
        ("zh", ["评分器", "老师", "还没解决的问题", "位置信息是怎么加进去的？"]),
        ("en", ["Grader", "Teacher", "Remaining questions", "位置信息是怎么加进去的？"]),
    ):
        text = report(where, "--lang", lang)
        for word in words:
            assert word in text, text
        widths = [cell_len(line) for line in text.splitlines()]
        assert max(widths) <= 80, text
