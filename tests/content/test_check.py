"""Each problem class `tutor check` knows has a fixture and its exact `path:line:col: message`.

Paths are asserted relative to tests/content/fixtures (the tests run from there), so every
expectation reads exactly as an author would see it.
"""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest
from rich.cells import cell_len
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from tutor.commands.check import run
from tutor.content import Problem, load_lessons, render_problem
from tutor.content.widgets import NeighboursWidget, TokensWidget

FIXTURES = Path(__file__).parent / "fixtures"
FACTS = FIXTURES / "engine"
WORDS = ("猫", "狗", "汽车", "苹果", "小明", "小王")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model folder with only a byte-level BPE tokenizer.json in which each of WORDS is
    one token and no two are merged together, so '汽车猫' splits into '汽车' + '猫'."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(WORDS) * 20, trainer)
    folder = tmp_path_factory.mktemp("tiny-model")
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)


def problems(path: str, model: Path) -> list[str]:
    lesson_set = load_lessons(Path(path), model_dir=model, facts_dir=FACTS)
    return [f"{problem.severity}: {problem}" for problem in lesson_set.problems]


def test_yaml_syntax_error(tiny_model: Path) -> None:
    assert problems("pages/01-yaml-syntax.md", tiny_model) == [
        "error: pages/01-yaml-syntax.md:3:16: "
        "YAML syntax error in front matter: mapping values are not allowed here"
    ]


def test_unknown_front_matter_field_suggests_the_right_one(tiny_model: Path) -> None:
    assert problems("lessons/unknown-field", tiny_model) == [
        "error: lessons/unknown-field/lesson.md:8:1: "
        "unknown field 'prerequisits' (did you mean 'prerequisites'?)"
    ]


def test_missing_required_field(tiny_model: Path) -> None:
    assert problems("lessons/missing-field", tiny_model) == [
        "error: lessons/missing-field/lesson.md:2:1: missing required field 'question'"
    ]


def test_wrong_type(tiny_model: Path) -> None:
    assert problems("lessons/wrong-type", tiny_model) == [
        "error: lessons/wrong-type/lesson.md:6:13: "
        "'objectives' should be a list, got '理解 embedding'"
    ]


def test_unknown_page_kind(tiny_model: Path) -> None:
    assert problems("pages/02-unknown-kind.md", tiny_model) == [
        "error: pages/02-unknown-kind.md:2:7: unknown page kind 'quizz' (did you mean 'quiz'?)"
    ]


def test_unknown_widget(tiny_model: Path) -> None:
    assert problems("pages/03-unknown-widget.md", tiny_model) == [
        "error: pages/03-unknown-widget.md:7:10: "
        "unknown widget 'neighbors' (did you mean 'neighbours'?)"
    ]


def test_widget_yaml_syntax_error_is_placed_inside_the_fence(tiny_model: Path) -> None:
    assert problems("pages/04-widget-yaml.md", tiny_model) == [
        "error: pages/04-widget-yaml.md:9:16: "
        "YAML syntax error in the lookup widget: expected ',' or ']', but got '<stream end>'"
    ]


def test_widget_fields_are_validated(tiny_model: Path) -> None:
    assert problems("pages/05-widget-fields.md", tiny_model) == [
        "error: pages/05-widget-fields.md:7:15: neighbours widget: 'schemes[1]' must be one of "
        "'id', 'onehot', 'before', 'after'; got 'onhot' (did you mean 'onehot'?)",
        "error: pages/05-widget-fields.md:8:4: neighbours widget: "
        "'k' should be a whole number, got 'five'",
        "error: pages/05-widget-fields.md:9:1: neighbours widget: unknown field 'colour'",
    ]


def test_unknown_fact_keys_in_prose_and_widget_text(tiny_model: Path) -> None:
    assert problems("pages/06-unknown-fact.md", tiny_model) == [
        "error: pages/06-unknown-fact.md:5:21: "
        "unknown fact key 'qwen38_vocab' (did you mean 'qwen38_vocab_size'?)",
        "error: pages/06-unknown-fact.md:12:18: unknown fact key 'codepoint_rows'",
    ]


def test_widget_token_that_splits_is_a_warning_naming_the_pieces(tiny_model: Path) -> None:
    assert problems("pages/07-split-token.md", tiny_model) == [
        "warning: pages/07-split-token.md:6:13: neighbours widget: "
        "'汽车猫' is not one token in project: it splits into '汽车' + '猫'",
        "warning: pages/07-split-token.md:12:4: analogy widget: "
        "'狗猫' is not one token in project: it splits into '狗' + '猫'",
    ]


def test_single_choice_needs_exactly_one_correct_answer(tiny_model: Path) -> None:
    assert problems("pages/08-single-choice.md", tiny_model) == [
        "error: pages/08-single-choice.md:8:5: "
        "single-choice question 'none-correct' has no correct choice; mark exactly one",
        "error: pages/08-single-choice.md:14:5: single-choice question 'two-correct' has "
        "2 correct choices (1, 2); exactly one may be correct",
    ]


def test_numeric_question_needs_a_tolerance(tiny_model: Path) -> None:
    assert problems("pages/09-numeric-tolerance.md", tiny_model) == [
        "error: pages/09-numeric-tolerance.md:5:5: "
        "numeric question 'onehot-distance' has no tolerance"
    ]


def test_duplicate_page_numbers(tiny_model: Path) -> None:
    assert problems("lessons/duplicate-pages", tiny_model) == [
        "error: lessons/duplicate-pages/01-goals.md:1:1: "
        "page number 1 is already used by 01-again.md"
    ]


def test_unknown_prerequisite_lesson_suggests_a_sibling(tiny_model: Path) -> None:
    assert problems("lessons/unknown-prerequisite", tiny_model) == [
        "error: lessons/unknown-prerequisite/lesson.md:10:13: "
        "unknown prerequisite lesson 'missing-feld' (did you mean 'missing-field'?)"
    ]


def test_unknown_next_lesson_suggests_a_sibling(tiny_model: Path) -> None:
    assert problems("lessons/unknown-next-lesson", tiny_model) == [
        "error: lessons/unknown-next-lesson/lesson.md:9:14: "
        "unknown next lesson 'missing-feld' (did you mean 'missing-field'?)"
    ]


def test_a_lesson_comes_after_the_lesson_that_names_it_as_next(
    tiny_model: Path, tmp_path: Path
) -> None:
    """The course's order is read from the cards: here against the folders' order."""
    for lesson, extra in (("alpha", ""), ("zeta", "next_lesson: alpha\n")):
        folder = tmp_path / lesson
        folder.mkdir()
        card = f"id: {lesson}\ntitle: {lesson}\nquestion: q\ntopic: t\n"
        card += f"objectives: [o]\noutcome: o\n{extra}"
        (folder / "lesson.md").write_text(f"---\n{card}---\n", encoding="utf-8")
        page = "---\nkind: objectives\ntitle: 目标\n---\n正文。\n"
        (folder / "01-goals.md").write_text(page, encoding="utf-8")
    lesson_set = load_lessons(tmp_path, model_dir=tiny_model, facts_dir=FACTS)
    assert lesson_set.problems == []
    assert [lesson.id for lesson in lesson_set.lessons] == ["zeta", "alpha"]


def test_file_that_is_not_utf8(tiny_model: Path) -> None:
    assert problems("pages/10-not-utf8.md", tiny_model) == [
        "error: pages/10-not-utf8.md:3:11: "
        "file is not UTF-8: byte 0xE9 (invalid continuation byte); save it as UTF-8"
    ]


def test_bad_byte_column_counts_characters_before_it(tiny_model: Path) -> None:
    assert problems("pages/11-bad-byte-mid-line.md", tiny_model) == [
        "error: pages/11-bad-byte-mid-line.md:5:8: "
        "file is not UTF-8: byte 0xE7 (invalid continuation byte); save it as UTF-8"
    ]


def test_lessons_load_after_their_prerequisites(tiny_model: Path) -> None:
    lesson_set = load_lessons(Path("course"), model_dir=tiny_model, facts_dir=FACTS)
    assert lesson_set.problems == []
    assert [lesson.id for lesson in lesson_set.lessons] == ["basics", "advanced"]
    advanced = lesson_set.lesson("advanced")
    assert advanced is not None
    assert advanced.card.prerequisites[0].lesson == "basics"
    assert [(page.number, page.kind) for page in advanced.pages] == [(1, "naive"), (2, "quiz")]
    naive = advanced.pages[0]
    assert naive.body_blocks[0].text == "词表有 {{fact:project_vocab_size}} 行。"
    widget = naive.body_blocks[1]
    assert (widget.widget, widget.line) == ("neighbours", 7)
    assert widget.config == NeighboursWidget(tokens=["猫", "狗", "汽车"], schemes=["id", "onehot"])
    basics_widget = lesson_set.lessons[0].pages[0].body_blocks[0]
    assert basics_widget.config == TokensWidget(
        text="小明把苹果给了小王", schemes=["byte-bpe-zh", "char"]
    )


def test_one_lesson_folder_resolves_prerequisites_among_its_siblings(tiny_model: Path) -> None:
    lesson_set = load_lessons(Path("course/advanced"), model_dir=tiny_model, facts_dir=FACTS)
    assert lesson_set.problems == []
    assert [lesson.id for lesson in lesson_set.lessons] == ["advanced"]


def test_rendered_problem_marks_the_spot_under_wide_characters() -> None:
    problem = Problem(
        Path("a/01-x.md"), 3, 5, "warning", "unknown fact key 'x'", "词表有 {{fact:x}} 行", 10
    )
    assert render_problem(problem) == (
        "a/01-x.md:3:5: unknown fact key 'x'\n"
        "  |\n"
        "3 | 词表有 {{fact:x}} 行\n"
        "  |        ^^^^^^^^^^ warning"
    )


def test_rendered_problem_at_a_width_cuts_the_line_and_keeps_the_caret_on_its_piece() -> None:
    excerpt = "标题: " + "很长的标题" * 6 + " {{fact:x}} 结束"
    problem = Problem(Path("a/01-x.md"), 3, excerpt.index("{") + 1, "error", "bad key", excerpt, 10)
    assert render_problem(problem, 24) == (
        "a/01-x.md:3:36: bad key\n"
        "  |\n"
        "3 | 标题: 很长的标题很长\n"
        "  | 的标题很长的标题很长\n"
        "  | 的标题很长的标题很长\n"
        "  | 的标题 {{fact:x}} 结\n"
        "  |        ^^^^^^^^^^\n"
        "  |        error\n"
        "  | 束"
    )
    assert render_problem(problem) == render_problem(problem, 200)  # fits: one line


def test_rendered_problem_near_the_right_edge_fits_the_width_and_keeps_every_character() -> None:
    """A marker near the end of a piece: its severity word moves left instead of running
    past the width (the error screen would wrap it and lose the line's last piece)."""
    excerpt = "x: " + "a" * 16 + "{{fact:x}} tail"
    problem = Problem(Path("a/01-x.md"), 3, excerpt.index("{") + 1, "error", "bad", excerpt, 10)
    assert render_problem(problem, 24).split("\n")[2:] == [
        "3 | x: aaaaaaaaaaaaaaaa{",
        "  |                    ^",
        "  |                error",
        "  | {fact:x}} tail",
    ]
    for width in range(12, 40):
        for col in range(1, len(excerpt) + 2):
            moved = Problem(problem.path, 3, col, "error", "bad", excerpt, 10)
            lines = render_problem(moved, width).split("\n")
            assert max(cell_len(line) for line in lines) <= width, (width, col)
            pieces = [line[4:] for line in lines if line.startswith(("  | ", "3 | "))]
            assert "".join(p for p in pieces if p.strip(" ^") not in ("", "error")) == excerpt


def test_check_command_reports_every_problem_and_fails_on_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = Namespace(path=Path("lessons"), content=None, model=None, lang="en")
    assert run(args) == 1
    out = capsys.readouterr().out
    assert "lessons/wrong-type/lesson.md:6:13: 'objectives' should be a list" in out
    assert "lessons/duplicate-pages/01-goals.md:1:1: page number 1" in out
    assert out.endswith("lessons: 4 lessons, 5 pages; 7 errors, 0 warnings\n")


def test_shipped_lessons_pass_check(capsys: pytest.CaptureFixture[str]) -> None:
    args = Namespace(path=None, content=None, model=None)
    assert run(args) == 0, capsys.readouterr().out


def test_text_question_rubric_names_claims_of_the_lessons_summary(tiny_model: Path) -> None:
    assert problems("lessons/unknown-rubric-claim", tiny_model) == [
        "error: lessons/unknown-rubric-claim/01-quiz.md:8:25: rubric claim 'onehot-is-lookup' "
        "is not in the lesson's summary rubric (did you mean 'onehot-lookup'?)"
    ]


def test_prerequisite_cycle_is_an_error_because_it_never_unlocks(tiny_model: Path) -> None:
    assert problems("cycle", tiny_model) == [
        "error: cycle/second/lesson.md:9:13: prerequisites form a cycle: first -> second -> first"
    ]


def test_only_a_numeric_question_lists_tempting_wrong_numbers(tiny_model: Path) -> None:
    assert problems("pages/12-mistakes-not-numeric.md", tiny_model) == [
        "error: pages/12-mistakes-not-numeric.md:14:5: only numeric questions take 'mistakes'"
    ]
