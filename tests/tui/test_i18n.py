"""Every interface string exists in both languages and every key the code names exists."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding

from tutor.tui import i18n
from tutor.tui.app import TutorApp
from tutor.tui.screens import help, home, page, reading
from tutor.tui.widgets import choice, facts, heatmap, lookup

TUI = Path(i18n.__file__).parent


def test_every_string_has_both_languages() -> None:
    for key, texts in i18n.strings().items():
        assert set(texts) == {"zh", "en"}, key
        assert all(texts[lang].strip() for lang in i18n.LANGS), key
        fields = {lang: set(re.findall(r"\{(\w+)\}", texts[lang])) for lang in i18n.LANGS}
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
