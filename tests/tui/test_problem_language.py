"""Content problems carry a code and values, and are said in the interface's language: every
code the content layer can give has a sentence in zh and en, the English sentence is the
message `tutor check --lang en` prints, and the Chinese one has no English sentence in it."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.waits import settle
from tutor.content import load_lessons
from tutor.content.problems import Problem
from tutor.content.source import FIELD_TYPES, MAX_FILE_BYTES, MAX_YAML_ALIASES
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen
from tutor.words import i18n
from tutor.words.problems import say_problem

CONTENT = Path(i18n.__file__).parents[1] / "content"
FIXTURES = Path(__file__).parents[1] / "content" / "fixtures"
BROKEN = Path(__file__).parent / "fixtures" / "broken"
FACTS = FIXTURES / "engine"
EN, ZH = i18n.Speaker("en"), i18n.Speaker("zh")
# three or more English words in a row, once quoted values ('x', "x", 「x」, `x`) are cut
ENGLISH = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]+){2,}")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|「[^」]*」|`[^`]*`|“[^”]*”")


def problem_codes() -> set[str]:
    """Every code the content layer gives: each `code="..."` keyword of a call in
    tutor/content, the second argument of `raise Invalid(message, "code", ...)` in its
    models, and one `field.<type>` for each pydantic error type it says in its own words."""
    codes = {f"field.{kind}" for kind in FIELD_TYPES} | {"field.other"}
    for path in CONTENT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "code":  # a literal, or literals chosen between
                    codes |= {
                        value.value
                        for value in ast.walk(keyword.value)
                        if isinstance(value, ast.Constant) and isinstance(value.value, str)
                    }
            if (
                getattr(node.func, "id", "") == "Invalid"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
            ):
                codes.add(node.args[1].value)
    return codes


def test_every_problem_code_of_the_content_layer_is_said_in_both_languages() -> None:
    codes = problem_codes()
    assert {"unknown_fact", "yaml_syntax", "too_large", "field.missing"} <= codes
    assert {"single_no_correct", "too_many_aliases", "field.literal_error"} <= codes
    assert sorted(code for code in codes if not i18n.has(f"content.{code}")) == []


def _card(folder: Path, lesson_id: str | None = None, extra: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "lesson.md").write_text(
        f"---\nid: {lesson_id or folder.name}\ntitle: t\nquestion: q\ntopic: x\n"
        f"objectives: [o]\noutcome: o\n{extra}---\n",
        encoding="utf-8",
    )
    return folder


QUIZ = """---
kind: quiz
title: t
questions:
  - {id: a, type: single, prompt: p, choices: [{text: x, explain: e}, {text: y, explain: e}]}
  - {id: b, type: single, prompt: p, choices: [{text: x, explain: e, correct: true},
                                               {text: y, explain: e, correct: true}]}
  - {id: c, type: multiple, prompt: p, choices: [{text: x, explain: e}, {text: y, explain: e}]}
  - {id: d, type: multiple, prompt: p, choices: [{text: x, explain: e, correct: true}]}
  - {id: e, type: numeric, prompt: p, choices: [{text: x, explain: e}]}
  - {id: f, type: text, prompt: p, answer: 3}
  - {id: g, type: single, prompt: p, rubric: [r], choices: [{text: x, explain: e, correct: yes},
                                                          {text: y, explain: e}]}
  - {id: h, type: numeric, prompt: p, answer: 1, tolerance: -1}
  - {id: i, type: numeric, prompt: p, answer: many, tolerance: 1, unit: [u]}
  - {id: a, type: text, prompt: p, rubric: [nope]}
  - {id: j, type: essay, prompt: p}
  - {id: k, type: text, prompt: p, rubric: [claim], extra: 1}
  - {id: l, type: text, prompt: p}
  - {id: m, type: numeric, prompt: p, answer: [1], tolerance: 1}
  - {id: n, type: single, prompt: p, choices: [{text: x, explain: e, correct: [true]},
                                               {text: y, explain: e}]}
  - 3
summary:
  sections: [{id: s, title_zh: 总结, title_en: s}]
  rubric: [{id: claim, claim_zh: 断言, claim_en: c, phrases_zh: [行], phrases_en: [row]}]
  misconceptions:
    - {id: m, name_zh: 误解, name_en: m, phrases_zh: [x], phrases_en: [x], contradicts: [nope],
       correction_zh: 改, correction_en: c}
  reference: r
---
"""


def broken_content(root: Path) -> Path:
    """Lessons that between them have a problem of nearly every code."""
    card = _card(root / "cards", "Bad_Id", "prerequisites: [{lesson: x, knowledge: y}]\nnext: 3\n")
    (card / "01-quiz.md").write_text(QUIZ, encoding="utf-8")
    summary = "summary:\n  sections: [{id: s, title_zh: 总结, title_en: s}]\n  reference: r\n"
    (card / "03-wrap.md").write_text(
        "---\nkind: wrapup\ntitle: t\n" + summary + "  rubric: [{id: c, claim_zh: 断言, "
        'claim_en: c, phrases_zh: ["行|"], phrases_en: [row]}]\n---\n',
        encoding="utf-8",
    )
    named = _card(root / "named", "other-name", "prerequisites: [{lesson: pagez}]\n")
    (named / "01-quiz.md").write_text(
        "---\nkind: quiz\ntitle: t\nquestions:\n"
        "  - {id: a, type: text, prompt: p, rubric: [claim]}\n"
        "  - {id: a, type: text, prompt: p, rubric: [clam]}\n---\n",
        encoding="utf-8",
    )
    (named / "02-wrap.md").write_text(
        "---\nkind: wrapup\ntitle: t\n" + summary + "  rubric: [{id: claim, claim_zh: 断言, "
        "claim_en: c, phrases_zh: [行], phrases_en: [row]}]\n---\n",
        encoding="utf-8",
    )
    (card / "02-empty.md").write_text("---\nkind: quiz\ntitle: t\n---\n", encoding="utf-8")
    (card / "02-again.md").write_text("---\nkind: fix\ntitle: t\n---\n", encoding="utf-8")
    (card / "notes.md").write_text("x\n", encoding="utf-8")
    pages = _card(root / "pages")
    files = {
        "01-nofront.md": "正文\n",
        "02-unclosed.md": "---\nkind: fix\n",
        "03-kind.md": "---\nkind: quzz\ntitle: t\n---\n",
        "04-kind.md": "---\nkind: nothing\ntitle: t\n---\n",
        "05-nokind.md": "---\ntitle: t\n---\n",
        "06-list.md": "---\n- a\n---\n",
        "07-syntax.md": "---\nkind: fix\ntitle: a: b\n---\n",
        "08-braces.md": "---\nkind: fix\ntitle: [{{fact:x}}]\n---\n",
        "09-value.md": "---\nkind: fix\ntitle: {{fact:x}}\n---\n",
        "10-control.md": "---\nkind: fix\ntitle: t\n---\na\x1b[31m\n",
        "11-escape.md": '---\nkind: fix\ntitle: "a\\e[31m"\n---\n',
        "12-widgets.md": "---\nkind: fix\ntitle: t\n---\n```tutor\n```\n```tutor tokenz\n```\n"
        "```tutor nothing\n```\n```tutor tokens x\n```\n```tutor tokens\ntext: [a\n```\n"
        "```tutor neighbours\ntokens: [汽车猫]\nk: 0\nschemes: [idd]\n```\n"
        "```tutor heatmap\ntokens: [a]\nstage: later\n```\n"
        "```tutor tokens\ntext: t\neditable: maybe\ncolour: red\n```\n"
        "```tutor lookup\nsentence: s\nsmall_vocab: 100\nsmall_dim: 1.5\n```\n"
        "```tutor path\nstages: {a: b}\n```\n"
        "```tutor training\ntokens: [a, b]\nneighbours: [a, b, c, d, e, f]\n```\n"
        "```tutor pipeline\ncurrent: x\n```\n```tutor analogy\na: 猫\nb: 狗\nc: 猫\nk: [1]\n```\n"
        "```tutor rows\nsentences: [a]\nk: five\n```\n"
        "```tutor analogy\na: 猫\nb: 狗\nc: 猫\nk: five\n```\n```tutor tokens\n",
        "12-prose.md": "---\nkind: fix\ntitle: t\n---\n```tutor tokens`\ntext: 猫\n```\n",
        "12-item.md": "---\nkind: fix\ntitle: t\n---\n- 一项\n\n  ```tutor tokens\ntext: 猫\n"
        "  ```\n",
        "13-facts.md": "---\nkind: fix\ntitle: t\n---\n{{fact:no.such}} {{fact:x\n",
        "14-alias.md": "---\nkind: fix\ntitle: t\na: &a x\nb: ["
        + ", ".join(["*a"] * (MAX_YAML_ALIASES + 1))
        + "]\n---\n",
        "15-anchor.md": "---\nkind: fix\ntitle: t\na: &a x\nb: &a y\n---\n",
        "16-deep.md": "---\nkind: fix\ntitle: t\nx: " + "[" * 100 + "]" * 100 + "\n---\n",
        "17-deep.md": "---\nkind: fix\ntitle: t\nx:\n" + " [\n" * 40 + " ]\n" * 40 + "---\n",
        "18-bomb.md": "---\nkind: fix\ntitle: t\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\n",
        "18-braces2.md": "---\nkind: fix\ntitle: {{fact:x}} more\n---\n",
        "19-char.md": "---\nkind: fix\ntitle: \ufffe\n---\n",
        "20-huge.md": "---\nkind: fix\ntitle: t\n---\n" + "长" * MAX_FILE_BYTES,
        "21-bytes.md": "",
    }
    for name, text in files.items():
        (pages / name).write_text(text, encoding="utf-8")
    (pages / "21-bytes.md").write_bytes(b"---\nkind: fix\ntitle: \xff\n---\n")
    os.mkfifo(pages / "22-pipe.md")
    (pages / "23-outside.md").symlink_to(root.parent / "elsewhere.md")
    (root.parent / "elsewhere.md").write_text("---\nkind: fix\ntitle: t\n---\n")
    _card(root / "first", extra="prerequisites: [{lesson: second}]\n")
    (root / "first" / "01-a.md").write_text("---\nkind: fix\ntitle: t\n---\n")
    _card(root / "second", extra="prerequisites: [{lesson: first}]\n")
    (root / "second" / "01-a.md").write_text("---\nkind: fix\ntitle: t\n---\n")
    _card(root / "nopages")
    return root


def all_problems(tmp_path: Path) -> list[Problem]:
    root = broken_content(tmp_path / "content")
    model = Path(__file__).parents[2] / "assets" / "models" / "project"
    problems = load_lessons(root, facts_dir=FACTS, model_dir=model if model.is_dir() else None)
    (tmp_path / "empty").mkdir()
    others = [
        *load_lessons(tmp_path / "nowhere").problems,
        *load_lessons(tmp_path / "empty").problems,
        *load_lessons(root / "cards" / "notes.md").problems,
    ]
    return [*problems.problems, *others, *labelled_set_problems(tmp_path)]


def labelled_set_problems(tmp_path: Path) -> list[Problem]:
    """What `tutor grade --eval` finds wrong in a labelled answer file (content.evaluation)."""
    from tutor.content.evaluation import MAX_FILE_BYTES as MAX_LABELLED_BYTES
    from tutor.content.evaluation import read_labelled

    shipped = load_lessons(CONTENT.parents[1] / "content")
    lessons = {lesson.id: lesson for lesson in shipped.lessons}
    files = {
        "no-lesson.yaml": "lesson: nope\nanswers: [{id: a4, item: summary, text: x}]\n",
        "labels.yaml": (
            "lesson: embedding\nanswers:\n"
            "  - {id: a4, item: summary, text: x, held_out: true, claims: [id-is-rows]}\n"
            "  - {id: a4, item: nope, text: x}\n"
        ),
        "large.yaml": "#" * (MAX_LABELLED_BYTES + 1),
        "latin1.yaml": "lesson: caf\xe9\n",
    }
    problems = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_bytes(text.encode("latin-1") if name == "latin1.yaml" else text.encode())
        problems += read_labelled(path, lessons)[1]
    return problems


def english(text: str) -> list[str]:
    return ENGLISH.findall(QUOTED.sub("", text))


def test_every_problem_reads_in_english_as_check_says_it_and_in_chinese_without_english(
    tmp_path: Path,
) -> None:
    problems = all_problems(tmp_path)
    seen = {problem.code for problem in problems}
    # said by the core's own sentence, or not reachable with the shipped assets in place
    unreached = {"facts_not_loaded", "tokenizer_not_loaded", "field.dict_type"}
    assert sorted(problem_codes() - seen - unreached - {"field.other"}) == []
    for problem in problems:
        assert problem.code, str(problem)
        if not problem.code.startswith("core."):  # the core's refusal, as the app says it
            assert say_problem(EN, problem) == problem.message, problem.code
        said = say_problem(ZH, problem)
        assert said != problem.message and english(said) == [], (problem.code, said)


def test_a_pydantic_error_of_a_type_not_said_names_the_field_in_chinese() -> None:
    problem = Problem(
        Path("x.md"), 1, 1, "error", "'a.b': Input is wrong", code="field.other",
        values={"field": "a.b", "reason": "Input is wrong"},
    )  # fmt: skip
    assert say_problem(ZH, problem) == "字段 'a.b' 的值不对（pydantic 原话：「Input is wrong」）"
    assert say_problem(EN, problem) == problem.message


async def test_the_chinese_error_screen_has_no_english_sentence(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    root = broken_content(tmp_path / "content")
    app = make_app(content_root=root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.plain_text()
        heads = [line for line in shown.splitlines() if not re.match(r"\s*\d* \|", line)]
        leaks = [line for line in heads if english(line.split(": ", 1)[-1])]
        assert leaks == []
        assert "= 错误" in shown or "错误" in shown
        for problem in load_lessons(root).errors:
            path = f"{problem.path}:{problem.line}:{problem.col}: "
            assert f"{path}{say_problem(ZH, problem)}" in shown


def test_check_speaks_chinese_by_default_and_english_when_asked(tmp_path: Path) -> None:
    root = BROKEN
    problems = load_lessons(root).problems
    zh, en = (
        subprocess.run(
            [sys.executable, "-m", "tutor", "check", str(root), *lang],
            capture_output=True,
            text=True,
        )
        for lang in ([], ["--lang", "en"])
    )
    assert zh.returncode == en.returncode == 1
    for problem in problems:
        place = f"{problem.path}:{problem.line}:{problem.col}: "
        assert f"{place}{say_problem(ZH, problem)}\n" in zh.stdout
        assert f"{problem!s}\n" in en.stdout
    assert zh.stdout.endswith(f"{root}：1 课，0 页；3 个错误，0 个警告\n"), zh.stdout
    assert en.stdout.endswith(f"{root}: 1 lesson, 0 pages; 3 errors, 0 warnings\n")
    assert english(zh.stdout.split("\n")[0].split(": ", 1)[-1]) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_severity_is_said_in_the_interface_language(lang: str) -> None:
    from tutor.words.problems import render_said

    problem = Problem(Path("x.md"), 1, 1, "warning", "w", "line", code="no_pages")
    rendered = render_said(i18n.Speaker(lang), problem)
    assert rendered.endswith("^ 警告" if lang == "zh" else "^ warning"), rendered


async def test_the_english_error_screen_points_at_the_english_check(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(content_root=BROKEN, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert f"tutor check {BROKEN} --lang en" in app.screen.hint
        shown = app.screen.plain_text()
        assert [str(problem) in shown for problem in load_lessons(BROKEN).errors] == [True] * 3
