"""Learner text shown on a teacher's terminal: every character a terminal would act on
(or draw as nothing) is shown by a visible stand-in; ordinary text is left as it is."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from tutor.core.printable import printable, spreadsheet_cell

HOSTILE = "a\x1b[2J\x9b31m\u202eevil\u200b\u2066\x7f\x00\u2028b"


def test_controls_bidi_and_zero_width_characters_are_shown_visibly() -> None:
    assert printable(HOSTILE) == ("a␛[2J⟨U+009B⟩31m⟨U+202E⟩evil⟨U+200B⟩⟨U+2066⟩␡␀⟨U+2028⟩b")


def test_ordinary_text_in_both_languages_is_left_alone() -> None:
    text = "ID 只是行号。One-hot × E = lookup; 「门牌号」 café ½ — ok!"
    assert printable(text) is text or printable(text) == text


def test_line_breaks_stay_only_when_asked() -> None:
    assert printable("一\n二\r") == "一␊二␍"
    assert printable("一\n二\r", keep_newlines=True) == "一\n二␍"


@given(st.text())
def test_nothing_hidden_is_left_in_any_text(text: str) -> None:
    shown = printable(text)
    hidden = {"Cc", "Cf", "Zl", "Zp", "Cs"}
    assert not [c for c in shown if unicodedata.category(c) in hidden]
    shown.encode("utf-8")  # a lone surrogate would not even print


def test_a_cell_that_starts_like_a_formula_is_text() -> None:
    assert spreadsheet_cell('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    for start in "=+-@":
        assert spreadsheet_cell(start + "1") == "'" + start + "1"
    assert spreadsheet_cell("\t=1") == "␉=1"  # a tab cannot hide the formula's start
    assert spreadsheet_cell("ada") == "ada"
