"""One content pipeline: what `tutor check` reads is what the tutor renders.

Fact references are found by one parser for both, and the names of schemes and stages
that widgets, the command line and the core accept are one set of names.
"""

from __future__ import annotations

import shutil
import typing
from pathlib import Path

from tutor.cli import build_parser
from tutor.content import load_lessons
from tutor.content.loader import ParsedFiles
from tutor.content.prose import fact_keys, fill_fact_refs, find_fact_refs
from tutor.content.widgets import HeatmapWidget, NeighboursWidget, TokensWidget
from tutor.core import model, similarity, tokenize
from tutor.core.facts import format_value, load_facts
from tutor.core.names import (
    NEIGHBOUR_SCHEMES,
    PROJECT,
    STAGES,
    TOKEN_SCHEMES,
)
from tutor.core.paths import content_dir, tokenizers_dir

FIXTURES = Path(__file__).parent / "fixtures"


def test_spaced_fact_references_are_checked_and_rendered_alike() -> None:
    """`{{ fact : key }}` used to pass check and then show raw on the page."""
    page = FIXTURES / "spaced" / "01-goals.md"
    lesson_set = load_lessons(page)
    assert lesson_set.problems == []
    text = page.read_text(encoding="utf-8").splitlines()[-1]
    assert [ref.key for ref in find_fact_refs(text)] == ["sentence.tokens"] * 3
    assert fact_keys(text) == ["sentence.tokens"]
    value = format_value(load_facts()["sentence.tokens"], "zh")
    rendered = fill_fact_refs(text, lambda key: format_value(load_facts()[key], "zh"))
    assert "{{" not in rendered and "fact" not in rendered
    assert rendered == f"紧凑：{value}；带空格：{value}；制表符：{value}。"


def test_a_spaced_unknown_key_is_an_error_like_a_compact_one(tmp_path: Path) -> None:
    page = tmp_path / "01-page.md"
    page.write_text("---\nkind: fix\ntitle: t\n---\n\n{{ fact : no.such.key }}\n")
    (problem,) = load_lessons(page, model_dir=tmp_path).problems
    assert (problem.line, problem.col) == (6, 1)
    assert problem.message.startswith("unknown fact key 'no.such.key'")


def test_a_reference_broken_over_lines_or_unclosed_is_an_error(tmp_path: Path) -> None:
    """The page would show it as typed, so check says so."""
    page = tmp_path / "01-page.md"
    body = "见 {{fact:\nsentence.tokens}}，{{ fact 缺了\n"
    page.write_text("---\nkind: fix\ntitle: t\n---\n\n" + body)
    found = [(p.line, p.col, p.message) for p in load_lessons(page, model_dir=tmp_path).problems]
    said = "a fact reference is written {{fact:key}} on one line; this one is not"
    assert found == [(6, 3, said), (7, 19, said)]


def _args(annotation: object) -> tuple[object, ...]:
    """The Literal's names inside list[...] or Literal[...] itself."""
    inner = typing.get_args(annotation)
    return typing.get_args(inner[0]) if typing.get_origin(annotation) is list else inner


def test_scheme_and_stage_names_are_one_set_everywhere() -> None:
    assert _args(TokensWidget.model_fields["schemes"].annotation) == TOKEN_SCHEMES
    assert _args(NeighboursWidget.model_fields["schemes"].annotation) == NEIGHBOUR_SCHEMES
    assert _args(HeatmapWidget.model_fields["stage"].annotation) == STAGES
    assert tokenize.SCHEMES == TOKEN_SCHEMES and tokenize.PROJECT == PROJECT
    assert similarity.NEIGHBOUR_SCHEMES == NEIGHBOUR_SCHEMES
    assert model.STAGES == STAGES
    # the stages a neighbour scheme can name are the table's stages
    assert set(STAGES) <= set(NEIGHBOUR_SCHEMES)

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    choices = {
        (command, action.dest): tuple(action.choices)
        for command in ("tokenize", "neighbours", "similarity")
        for action in commands[command]._actions
        if action.choices is not None
    }
    assert choices[("tokenize", "scheme")] == (PROJECT, *TOKEN_SCHEMES)
    assert choices[("neighbours", "scheme")] == NEIGHBOUR_SCHEMES
    assert choices[("similarity", "stage")] == STAGES


def test_every_token_scheme_name_has_a_shipped_tokenizer() -> None:
    """A name every layer accepts must also open: codepoint is computed, the rest are
    files in assets/tokenizers."""
    shipped = {path.stem for path in tokenizers_dir().glob("*.json")}
    assert set(TOKEN_SCHEMES) - {"codepoint"} <= shipped
    for name in TOKEN_SCHEMES:
        assert tokenize.get_scheme(name).encode("猫猫")


def test_a_load_that_reuses_earlier_parses_equals_a_fresh_one(tmp_path: Path) -> None:
    """tutor preview re-parses only the files a save changed; the result must not differ."""
    root = Path(shutil.copytree(content_dir(), tmp_path / "content"))
    earlier = ParsedFiles()
    assert load_lessons(root, earlier=earlier) == load_lessons(root)
    page = sorted((root / "embedding").glob("0*.md"))[2]
    text = page.read_text(encoding="utf-8")
    for edited in (text.replace("title: ", "title: 改", 1), text.replace("title:", "x: 1\ntitle:")):
        page.write_text(edited, encoding="utf-8")
        again = load_lessons(root, earlier=earlier)
        assert again == load_lessons(root)
        assert again.problems == load_lessons(root, earlier=earlier).problems  # not doubled
