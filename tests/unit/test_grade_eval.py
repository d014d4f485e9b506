"""The grader measured on answers labelled by hand (tests/content/labelled_answers.yaml).

The held-out part was chosen by a hash of the answer ids before any phrase was tuned; the
targets below are the README's ("Testing a rubric on labelled answers").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tutor.cli import main
from tutor.content import Lesson, load_lessons
from tutor.content.evaluation import (
    Evaluation,
    LabelledSet,
    evaluate,
    held_out_by_hash,
    read_labelled,
)
from tutor.core.paths import content_dir

LABELLED = Path(__file__).parents[1] / "content" / "labelled_answers.yaml"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    found = load_lessons(content_dir()).lesson("embedding")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def labelled(lesson: Lesson) -> LabelledSet:
    answers, problems = read_labelled(LABELLED, {lesson.id: lesson})
    assert problems == [] and answers is not None
    return answers


@pytest.fixture(scope="module")
def held_out(labelled: LabelledSet, lesson: Lesson) -> Evaluation:
    return evaluate(labelled, lesson, "held-out")


def test_the_set_has_240_answers_on_both_items_in_both_languages(labelled: LabelledSet) -> None:
    assert len(labelled.answers) >= 240
    kinds: dict[tuple[str, str], int] = {}
    for answer in labelled.answers:
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", answer.text) else "en"
        kinds[answer.item, lang] = kinds.get((answer.item, lang), 0) + 1
    assert set(kinds) == {
        (item, lang) for item in ("explain-embedding", "summary") for lang in ("zh", "en")
    }
    assert min(kinds.values()) >= 50


def test_the_held_out_part_is_the_one_the_hash_chose(labelled: LabelledSet) -> None:
    marked = [answer.id for answer in labelled.answers if answer.held_out]
    assert marked == [answer.id for answer in labelled.answers if held_out_by_hash(answer.id)]
    assert 0.15 <= len(marked) / len(labelled.answers) <= 0.25


def test_every_claim_and_misconception_is_labelled_somewhere(
    labelled: LabelledSet, lesson: Lesson
) -> None:
    summary = next(p.front.summary for p in lesson.pages if getattr(p.front, "summary", None))
    claims = {claim for answer in labelled.answers for claim in answer.claims}
    held = {m for answer in labelled.answers for m in answer.held}
    assert claims == {claim.id for claim in summary.rubric}
    assert held == {m.id for m in summary.misconceptions}


def test_the_grader_meets_its_targets_on_the_held_out_part(held_out: Evaluation) -> None:
    assert held_out.answers == 44
    assert held_out.contradicted_claims == 0
    assert held_out.misconception_recall is not None and held_out.misconception_recall >= 0.9
    assert held_out.claim_precision is not None and held_out.claim_precision >= 0.95
    assert held_out.claim_recall is not None and held_out.claim_recall >= 0.8
    assert held_out.rejected_held == 0
    assert held_out.rejected_withdrew == 0
    assert held_out.targets_met


def test_a_grader_that_credits_everything_misses_the_targets(
    labelled: LabelledSet, lesson: Lesson
) -> None:
    """The targets can fail: the same answers, labelled as if nothing were ever said."""
    blank = LabelledSet(
        lesson=labelled.lesson,
        answers=[
            answer.model_copy(update={"claims": [], "held": [], "rejected": [], "fixed": []})
            for answer in labelled.answers
        ],
    )
    evaluation = evaluate(blank, lesson, "held-out")
    assert evaluation.claim_precision == 0.0
    assert not evaluation.targets_met
    assert {target.name for target in evaluation.targets if not target.met} >= {"claim_precision"}


def test_eval_prints_the_tuning_part_and_only_the_held_out_total(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--lang", "en", "grade", "--eval", str(LABELLED)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tuning part: 196 answers (precision  recall  right/extra/missed)")
    assert re.search(r"^  id-is-row +\d\.\d\d  \d\.\d\d  \d+/\d+/\d+$", out, re.MULTILINE)
    lines = out.rstrip().splitlines()
    assert lines[-2].startswith("tuning part, 196 answers: claims precision")
    assert lines[-1].startswith("held-out part, 44 answers: claims precision 1.00")
    assert lines[-1].endswith("targets met")
    held_out_ids = [
        answer.id
        for answer in LabelledSet.model_validate(
            {"lesson": "embedding", "answers": _answers()}
        ).answers
        if answer.held_out
    ]
    assert not any(f"  {answer_id} (" in out for answer_id in held_out_ids)


def test_eval_json_names_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "--eval", str(LABELLED), "--part", "held-out", "--json"]) == 0
    [held_out] = json.loads(capsys.readouterr().out)
    assert held_out["part"] == "held-out" and held_out["answers"] == 44
    assert held_out["answers_shown"] is True
    assert set(held_out["claims"]["id-is-row"]) == {
        "precision",
        "recall",
        "true_positive",
        "false_positive",
        "false_negative",
    }
    assert held_out["contradicted_claims"] == 0
    assert [target["met"] for target in held_out["targets"]] == [True] * 6


def test_a_bad_label_is_a_located_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "answers.yaml"
    wrong.write_text(
        "lesson: embedding\n"
        "answers:\n"
        "  - id: a4\n"
        "    item: explain-embedding\n"
        '    text: "ID 只是行号"\n'
        "    claims: [id-is-rows]\n",
        encoding="utf-8",
    )
    assert main(["--lang", "en", "grade", "--eval", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert f"{wrong}:6:14: 'id-is-rows' is not a claim or misconception id" in err
    assert "(did you mean 'id-is-row'?)" in err
    assert f"{wrong}:3:9: answer 'a4' must have held_out" not in err  # a4 is in the tuning part
    marked = tmp_path / "marked.yaml"
    marked.write_text(
        wrong.read_text()
        .replace("id-is-rows", "id-is-row")
        .replace("  - id: a4\n", "  - id: a4\n    held_out: true\n"),
        encoding="utf-8",
    )
    assert main(["--lang", "en", "grade", "--eval", str(marked)]) == 2
    assert "must have held_out: false" in capsys.readouterr().err


def test_grading_without_an_item_says_what_to_give(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "en", "grade", "--text", "ID 只是行号"]) == 2
    assert "name the lesson and the item" in capsys.readouterr().err


def _answers() -> list[dict[str, object]]:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(LABELLED.read_text(encoding="utf-8"))["answers"]


def test_a_labelled_set_is_bounded_in_bytes_and_answers(
    tmp_path: Path, lesson: Lesson, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.content.evaluation import MAX_ANSWERS, MAX_FILE_BYTES

    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"lesson: embedding\n" + b"#" * MAX_FILE_BYTES)
    assert main(["--lang", "en", "grade", "--eval", str(huge)]) == 2
    err = capsys.readouterr().err
    assert f"{huge}:1:1: more than 500,000 bytes; a labelled set holds at most 1,000" in err
    many = tmp_path / "many.yaml"
    marks = {n: str(held_out_by_hash(f"a{n}")).lower() for n in range(MAX_ANSWERS + 1)}
    rows = "".join(
        f"  - {{id: a{n}, item: summary, text: x, held_out: {mark}}}\n" for n, mark in marks.items()
    )
    many.write_text(f"lesson: embedding\nanswers:\n{rows}", encoding="utf-8")
    answers, problems = read_labelled(many, {lesson.id: lesson})
    assert answers is None
    assert [(p.line, p.col) for p in problems] == [(2, 1)]
    assert "at most 1000" in problems[0].message


def test_an_unreadable_labelled_file_is_one_line_in_the_interface_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.yaml"
    assert main(["grade", "--eval", str(missing)]) == 2
    assert capsys.readouterr().err.strip() == f"tutor grade：读不了 {missing}：没有这个文件"
