"""`tutor grade`: the grader on the command line, as authors and the teacher's report use it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tutor.cli import main
from tutor.commands.grade import MAX_FILE_BYTES
from tutor.content import load_lessons
from tutor.core.paths import content_dir

WRONG = "ID 不是行号；one-hot 乘表不等于查表；训练不会改变向量的位置。"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_CACHE_DIR", str(tmp_path / "cache"))


def test_json_names_every_claim_and_misconception(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "embedding", "explain-embedding", "--text", WRONG, "--json"]) == 0
    graded = json.loads(capsys.readouterr().out)
    assert [(c["id"], c["met"]) for c in graded["claims"]] == [
        ("id-is-row", False),
        ("onehot-is-lookup", False),
        ("learned-numbers", False),
        ("meaning-in-position", False),
    ]
    assert graded["claims"][0]["evidence"] == "ID 不是行号"
    assert len(graded["misconceptions"]) == 6
    assert not any(m["matched"] for m in graded["misconceptions"])


def test_a_misconception_is_answered_with_its_correction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["grade", "embedding", "summary", "--text", "训练会改 ID。ID 不是行号"]) == 0
    out = capsys.readouterr().out
    assert "! training-changes-ids: 训练会改 ID" in out
    assert "否定：「ID 不是行号」" in out
    assert "→ ID 由分词器在训练前定死" in out
    assert out.rstrip().endswith("0 / 6")


def test_an_answer_file_of_100000_characters_is_graded_to_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("ID 只是行号。" + "很" * 100_000, encoding="utf-8")
    assert main(["--lang", "en", "grade", "embedding", "summary", "--file", str(answer)]) == 0
    out = capsys.readouterr().out
    assert "✓ id-is-row: A token ID is only a row number" in out
    assert "1 / 6 · Only the first 10,000 characters were graded" in out


def test_a_claim_withdrawn_by_a_misconception_names_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "ID 只是行号。ID 越大越重要"
    assert main(["--lang", "en", "grade", "embedding", "summary", "--text", text]) == 0
    assert "    withdrawn by bigger-id-matters: “ID 只是行号”" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text", ["索引？查表？意思和向量？随机初始？", "What is a lookup table?", "查表。"]
)
def test_questions_and_lone_keywords_meet_no_claim(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "embedding", "explain-embedding", "--text", text, "--json"]) == 0
    graded = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in graded["claims"] if c["met"]] == []


def test_a_misconception_clause_is_no_claim_s_evidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "查表得到的向量会随上下文变化。ID 只是行号。"
    assert main(["grade", "embedding", "explain-embedding", "--text", text]) == 0
    out = capsys.readouterr().out
    assert "✓ id-is-row: ID 只是行号，数值大小没有意义\n    找到：「ID 只是行号」\n" in out
    assert "· onehot-is-lookup: one-hot 乘表等于查表，取出的是对应的一行\n· " in out
    assert "! vector-follows-context: 同一个 token 的向量随上下文变\n    「查表得到的" in out
    assert out.count("「查表得到的向量会随上下文变化」") == 1
    assert out.rstrip().endswith("1 / 4")


COURSE = ", ".join(lesson.id for lesson in load_lessons(content_dir()).lessons)
REFUSED = [
    (
        ["embedding", "close-ids", "--text", "x"],
        "tutor grade：「close-ids」不是「embedding」课的文字题或总结"
        "（可以评分的：explain-embedding, summary）",
        "tutor grade: 'close-ids' is not a text question or the summary of lesson 'embedding' "
        "(gradable items: explain-embedding, summary)",
    ),
    (
        ["nope", "summary", "--text", "x"],
        f"tutor grade：没有「nope」这一课（现有的课：{COURSE}；`tutor check` 会说明原因）",
        f"tutor grade: no lesson 'nope' (lessons: {COURSE}; `tutor check` says why)",
    ),
    (
        ["embedding", "summary", "--file", "/nonexistent/a.txt"],
        "tutor grade：读不了 /nonexistent/a.txt：没有这个文件",
        "tutor grade: cannot read /nonexistent/a.txt: there is no such file",
    ),
    (
        ["embedding", "summary", "--file", "/"],
        "tutor grade：读不了 /：这是一个文件夹",
        "tutor grade: cannot read /: it is a folder",
    ),
]


@pytest.mark.parametrize(("argv", "zh", "en"), REFUSED, ids=["item", "lesson", "missing", "folder"])
def test_what_cannot_be_graded_is_one_line_in_the_interfaces_language_and_exit_2(
    argv: list[str], zh: str, en: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", *argv]) == 2
    assert capsys.readouterr().err == zh + "\n"
    assert main(["--lang", "en", "grade", *argv]) == 2
    assert capsys.readouterr().err == en + "\n"


def test_a_file_that_is_not_utf8_or_too_large_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_bytes("行号".encode("gbk"))
    assert main(["grade", "embedding", "summary", "--file", str(answer)]) == 2
    assert capsys.readouterr().err == f"tutor grade：{answer} 不是 UTF-8 文本\n"
    assert main(["--lang", "en", "grade", "embedding", "summary", "--file", str(answer)]) == 2
    assert capsys.readouterr().err == f"tutor grade: {answer}: not UTF-8 text\n"
    answer.write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    assert main(["grade", "embedding", "summary", "--file", str(answer)]) == 2
    assert capsys.readouterr().err == (
        f"tutor grade：{answer} 超过 1,000,000 字节，不会是一份答案\n"
    )


def test_the_answer_is_required_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["grade", "embedding", "summary"])
    with pytest.raises(SystemExit):
        main(["grade", "embedding", "summary", "--text", "a", "--file", "b"])


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh",
            [
                "✗ id-is-row: ID 只是行号，数值大小没有意义",
                "    被误解抵消 bigger-id-matters：「ID 只是行号」",
                "! bigger-id-matters: ID 大的 token 更重要",
                "    「ID 越大越重要」",
            ],
        ),
        (
            "en",
            [
                "✗ id-is-row: A token ID is only a row number; its size means nothing",
                "    withdrawn by bigger-id-matters: “ID 只是行号”",
                "! bigger-id-matters: A token with a bigger ID matters more",
                "    “ID 越大越重要”",
            ],
        ),
    ],
)
def test_evidence_is_quoted_as_the_interface_language_quotes(
    capsys: pytest.CaptureFixture[str], lang: str, expected: list[str]
) -> None:
    text = "ID 只是行号。ID 越大越重要"
    assert main(["--lang", lang, "grade", "embedding", "summary", "--text", text]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] + lines[-4:-2] == expected
    assert main(["--lang", lang, "grade", "embedding", "summary", "--text", "ID 不是行号"]) == 0
    said = {"zh": "    否定：「ID 不是行号」", "en": "    denied: “ID 不是行号”"}[lang]
    assert capsys.readouterr().out.splitlines()[1] == said


@pytest.mark.parametrize(
    ("lang", "note"),
    [
        ("zh", "1 / 6 · 只评了前 10,000 个字符；按评分要点作答只需几段，缩短后才能整篇评分。"),
        (
            "en",
            "1 / 6 · Only the first 10,000 characters were graded; a rubric answer is a few "
            "paragraphs, so shorten it to be graded whole.",
        ),
    ],
)
def test_the_limit_is_said_in_the_interface_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, note: str
) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("ID 只是行号。" + "很" * 10_000, encoding="utf-8")
    argv = ["--lang", lang, "grade", "embedding", "summary", "--file", str(answer)]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == note


def test_a_summary_file_is_read_by_its_four_headings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = tmp_path / "summary.md"
    answer.write_text(
        "## My Understanding\nID 只是行号。\n\n"
        "## Misconceptions Fixed\nID 相近的 token 意思相近。\n\n"
        "## 还没解决的问题\n训练会改 ID 吗？\n",
        encoding="utf-8",
    )
    assert main(["grade", "embedding", "summary", "--file", str(answer)]) == 0
    out = capsys.readouterr().out
    assert "✓ id-is-row: ID 只是行号，数值大小没有意义\n    找到：「ID 只是行号」\n" in out
    assert "+ close-ids-close-meaning: ID 相近的 token 意思相近\n" in out
    assert "已纠正（写在「纠正了的误解」里）：「ID 相近的 token 意思相近」" in out
    assert "! " not in out and "抵消" not in out
    assert out.rstrip().endswith("1 / 6")
    assert main(["grade", "embedding", "summary", "--file", str(answer), "--json"]) == 0
    graded = json.loads(capsys.readouterr().out)
    assert graded["questions"] == "训练会改 ID 吗？"
