"""Every interface string exists in both languages and every key the code names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from textual.binding import Binding

from tutor.tui.app import TutorApp
from tutor.tui.screens import help, home, page, reading
from tutor.tui.widgets import choice, facts, heatmap, lookup
from tutor.words import fact_words, i18n

TUI = Path(i18n.__file__).parent


def test_every_string_has_both_languages() -> None:
    for key, texts in i18n.strings().items():
        assert set(texts) == {"zh", "en"}, key
        assert all(texts[lang].strip() for lang in i18n.LANGS), key
        # `{name}`, and `{name!r}` or `{name:,}` with a conversion or a format
        fields = {
            lang: set(re.findall(r"\{(\w+)(?:[!:][^{}]*)?\}", texts[lang])) for lang in i18n.LANGS
        }
        assert fields["zh"] == fields["en"], key


def test_every_literal_key_in_the_code_exists() -> None:
    code = "\n".join(p.read_text(encoding="utf-8") for p in TUI.rglob("*.py"))
    literal = set(re.findall(r"""\.t\(\s*["']([a-z_]+\.[a-z_.]+)["']""", code))
    assert literal, "no keys found: the pattern is stale"
    assert sorted(key for key in literal if not i18n.has(key)) == []


def test_every_binding_description_is_translated() -> None:
    classes = [
        TutorApp,
        page.PageScreen,
        home.HomeScreen,
        help.HelpScreen,
        reading.ReadingScreen,
        choice.ChoiceBar,
        facts.FactStrip,
        heatmap.Heatmap,
        lookup.LookupDemo,
    ]
    for cls in classes:
        for binding in cls.BINDINGS:
            assert isinstance(binding, Binding)
            assert i18n.has(binding.description), (cls.__name__, binding.description)


def refusal_codes() -> set[str]:
    """Every code the core gives a refusal: the second argument of `raise XError(message,
    "code", ...)` anywhere in tutor/core, and both codes of `invalid_json(...)`."""
    codes = set()
    for path in (TUI.parent / "core").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "invalid_json":
                codes |= {arg.value for arg in node.args[4:] if isinstance(arg, ast.Constant)}
            if (
                isinstance(node, ast.Raise)
                and isinstance(node.exc, ast.Call)
                and len(node.exc.args) >= 2
                and isinstance(node.exc.args[1], ast.Constant)
                and isinstance(node.exc.args[1].value, str)
            ):
                codes.add(node.exc.args[1].value)
    return codes


def test_every_refusal_of_the_core_is_said_in_both_languages() -> None:
    codes = refusal_codes()
    assert {"splits", "empty_token", "k_too_small", "unknown_scheme"} <= codes
    # live training's reasons are said on the training widget, under their own prefix
    missing = sorted(
        code for code in codes if not (i18n.has(f"core.{code}") or i18n.has(f"train.why.{code}"))
    )
    assert missing == []


def test_a_similarity_refusal_reads_in_chinese() -> None:
    from tutor.core.similarity import SimilarityError
    from tutor.progress.sqlite import SqliteStore
    from tutor.tui.context import TutorContext
    from tutor.words.refusals import say

    ctx = TutorContext("zh", SqliteStore("guest", guest=True))
    refusal = SimilarityError("k must be at least 1, got 0", "k_too_small", k=0)
    said = say(ctx, refusal)
    assert "0" in said and not re.search(r"[A-Za-z]{2,}", said), said
    unknown = SimilarityError("unknown scheme", "unknown_scheme", scheme="x", choices="id")
    assert "「x」" in say(ctx, unknown) and "id" in say(ctx, unknown)


def test_every_reason_a_store_fails_is_said_in_both_languages() -> None:
    from tutor.progress.trouble import TROUBLES

    assert sorted(code for code in TROUBLES if not i18n.has(f"store.why.{code}")) == []


def test_a_facts_unit_and_source_are_said_in_the_interface_language() -> None:
    from tutor.core.facts import load_facts

    shipped = load_facts()
    said = {
        lang: [
            fact_words.detail_line(i18n.Speaker(lang), shipped[key], value)
            for key, value in (("qwen38.sentence_tokens", "5"), ("codepoint.over_qwen38", "4.5"))
        ]
        for lang in i18n.LANGS
    }
    assert said["zh"] == [
        "贯穿例句在 Qwen3.8 里的 token 数：5 个 · 证据：引用 · 出处：Qwen3.8 仓库 tokenizer.json",
        "码点表比 Qwen3.8 词表多出的倍数：4.5 倍 · 证据：数学可证明 · 出处：1,114,112 ÷ 248,320 ≈ "
        "4.49 (两项见 codepoint.vocab 与 qwen38.vocab_size)",
    ]
    assert said["en"] == [
        "tokens of the running sentence in Qwen3.8: 5 · evidence: cited · source: Qwen3.8 "
        "repository tokenizer.json",
        "code-point table over Qwen3.8's vocabulary: 4.5× · evidence: proof · source: "
        "1,114,112 ÷ 248,320 ≈ 4.49 (both in codepoint.vocab and qwen38.vocab_size)",
    ]


def test_every_unit_of_a_shipped_fact_is_said_in_both_languages() -> None:
    from tutor.core.facts import load_facts

    units = {fact.unit for fact in load_facts().values()} - fact_words.UNITS_IN_VALUE
    assert units and sorted(unit for unit in units if not i18n.has(f"unit.{unit}")) == []
