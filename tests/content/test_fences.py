"""Where `tutor check` finds a widget block, and the `line:col` of each problem in one.

A page's body is cut into prose and ```tutor <widget> fences; each case below is a page body
(after four lines of front matter, so the body starts on line 5) and what an author reads
back: the problems as `line:col: message`, then, when the page loads, its blocks in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tutor.content import load_lessons
from tutor.content.models import WidgetBlock

FACTS = Path(__file__).parent / "fixtures" / "engine"
CARD = "---\nid: l\ntitle: t\nquestion: q\ntopic: t\nobjectives: [o]\noutcome: o\n---\n"
FRONT = "---\nkind: fix\ntitle: t\n---\n"
NO_END = "YAML syntax error in the tokens widget: expected ',' or ']', but got '<stream end>'"
AS_PROSE = (
    "this line looks like a ```tutor widget block, but markdown reads it as text (a ` in "
    "its first line, or an HTML block around it): the page shows it as it is written"
)
BACKTICK = "YAML syntax error in the tokens widget: found character '`' that cannot start any token"


def read_back(body: str, tmp_path: Path, *, newline: str = "\n", bom: str = "") -> list[str]:
    folder = tmp_path / "l"
    folder.mkdir()
    (folder / "lesson.md").write_text(CARD, encoding="utf-8")
    text = bom + (FRONT + body).replace("\n", newline)
    (folder / "01-page.md").write_bytes(text.encode("utf-8"))
    lesson_set = load_lessons(folder, model_dir=tmp_path / "no-model", facts_dir=FACTS)
    said = [f"{p.line}:{p.col}: {p.message}" for p in lesson_set.problems]
    for lesson in lesson_set.lessons:
        for block in lesson.pages[0].body_blocks:
            if isinstance(block, WidgetBlock):
                said.append(f"{block.line}: widget {block.widget}")
            else:
                said.append(f"{block.line}: prose {block.text!r}")
    return said


CASES = {
    "backticks": (
        "\n```tutor tokens\ntext: 猫\n```\n后文\n",
        ["6: widget tokens", "9: prose '后文'"],
    ),
    "tildes": ("\n~~~tutor tokens\ntext: 猫\n~~~\n后文\n", ["6: widget tokens", "9: prose '后文'"]),
    "tildes are not closed by backticks": (
        "~~~tutor tokens\ntext: 猫\n```\n~~~\n",
        [f"7:1: {BACKTICK}"],
    ),
    "a longer fence is not closed by a shorter one": (
        "````tutor tokens\ntext: 猫\n```\n````\n",
        [f"7:1: {BACKTICK}"],
    ),
    "a closing fence may be longer": (
        "```tutor tokens\ntext: 猫\n`````\n后文\n",
        ["5: widget tokens", "8: prose '后文'"],
    ),
    "unclosed widget": (
        "前文\n\n```tutor tokens\ntext: 猫\n\n后文\n",
        ["7:1: widget block is never closed with ```", "5: prose '前文'"],
    ),
    "an unclosed code fence holds a widget fence as code": (
        "```python\nx = 1\n```tutor tokens\ntext: 猫\n",
        ["5: prose '```python\\nx = 1\\n```tutor tokens\\ntext: 猫'"],
    ),
    "a widget fence shown inside a longer code fence stays code": (
        "````markdown\n```tutor tokens\ntext: [猫\n```\n````\n",
        ["5: prose '````markdown\\n```tutor tokens\\ntext: [猫\\n```\\n````'"],
    ),
    "indented three spaces, columns counted from the margin": (
        "   ```tutor tokens\n   text: [猫\n   ```\n",
        [f"6:12: {NO_END}"],
    ),
    "indented four spaces is code": (
        "    ```tutor tokens\n    text: 猫\n    ```\n",
        ["5: prose '    ```tutor tokens\\n    text: 猫\\n    ```'"],
    ),
    "in a list item": (
        "- 一项\n\n  ```tutor tokens\n  text: [猫\n  ```\n- 二项\n",
        [f"8:11: {NO_END}", "5: prose '- 一项'", "10: prose '- 二项'"],
    ),
    "a widget in a list item splits the list": (
        "- 一项\n\n  ```tutor tokens\n  text: 猫\n  ```\n- 二项\n",
        ["5: prose '- 一项'", "7: widget tokens", "10: prose '- 二项'"],
    ),
    "on a list item's first line it is code": (
        "- ```tutor tokens\n  text: 猫\n  ```\n",
        ["5: prose '- ```tutor tokens\\n  text: 猫\\n  ```'"],
    ),
    "in a quote it is code": (
        "> ```tutor tokens\n> text: 猫\n> ```\n",
        ["5: prose '> ```tutor tokens\\n> text: 猫\\n> ```'"],
    ),
    "right after a paragraph": (
        "一段话\n```tutor tokens\ntext: 猫\n```\n",
        ["5: prose '一段话'", "6: widget tokens"],
    ),
    "unknown widget, indented, two spaces before its name": (
        "  ```tutor  tokenz\ntext: 猫\n  ```\n",
        ["5:13: unknown widget 'tokenz' (did you mean 'tokens'?)"],
    ),
    "no widget name": (
        " ```tutor\ntext: 猫\n```\n",
        [
            "5:5: widget block needs a widget name: tokens, neighbours, lookup, heatmap, "
            "pipeline, path, rows, analogy, training, merges, unseen, one-step, inputs, width, "
            "renumber"
        ],
    ),
    "words after the widget name": (
        "```tutor tokens  extra words\ntext: 猫\n```\n",
        ["5:18: unexpected 'extra words' after the widget name"],
    ),
    "a full-width space before the widget name": (
        "```tutor\u3000tokens\ntext: [猫\n```\n",
        [f"6:9: {NO_END}"],
    ),
    "a full-width space after the closing fence": (
        "```tutor tokens\ntext: 猫\n```\u3000\n后文\n",
        ["5: widget tokens", "8: prose '后文'"],
    ),
    "spaces after the closing fence": (
        "```tutor tokens\ntext: 猫\n```   \n后文\n",
        ["5: widget tokens", "8: prose '后文'"],
    ),
    "a closing fence indented four spaces is content": (
        "```tutor tokens\ntext: 猫\n    ```\n```\n",
        ["5: widget tokens"],
    ),
    "a closing fence with words is content": (
        "```tutor tokens\ntext: 猫\n``` x\n```\n",
        [f"7:1: {BACKTICK}"],
    ),
    "a line separator in prose counts as a line": (
        "一\u2028二\n\n```tutor tokens\ntext: [猫\n```\n",
        [f"9:9: {NO_END}", "5: prose '一\\n二'"],
    ),
    "a form feed in prose counts as a line": (
        "一\x0c二\n\n```tutor tokens\ntext: [猫\n```\n",
        [f"9:9: {NO_END}", "5: prose '一\\n二'"],
    ),
    "wide characters count one column each": (
        "```tutor tokens\ntext: 猫猫猫\nschemes: [猫, x\n```\n",
        [f"7:15: {NO_END}"],
    ),
    "a control character inside a widget": (
        "```tutor tokens\ntext: 猫\x00\n```\n",
        [
            "6:8: control character U+0000: a learner's terminal would act on it instead of "
            "showing it; delete it"
        ],
    ),
    "a tab-indented fence in a list item is code": (
        "- 一项\n\n\t```tutor tokens\n\ttext: 猫\n\t```\n",
        ["5: prose '- 一项\\n\\n\\t```tutor tokens\\n\\ttext: 猫\\n\\t```'"],
    ),
    # Read as CommonMark reads them (and the page renders them), where the line scanner
    # before markdown-it took a widget: a backtick in a backtick fence's info string makes it
    # no fence; an HTML block runs to the next blank line; a list item's code block ends at
    # the first line less indented than the item, and that line opens a fence of its own.
    "a backtick after the widget name makes it no fence": (
        "```tutor tokens`\ntext: 猫\n```\n",
        [f"5:1: {AS_PROSE}", "5: prose '```tutor tokens`\\ntext: 猫\\n```'"],
    ),
    "an HTML block holds a fence until a blank line": (
        "<div>\n```tutor tokens\ntext: 猫\n```\n</div>\n",
        [f"6:1: {AS_PROSE}", "5: prose '<div>\\n```tutor tokens\\ntext: 猫\\n```\\n</div>'"],
    ),
    "a list item's code ends at a line less indented": (
        "- 一项\n\n  ```python\n  x = 1\n```\n```tutor tokens\ntext: 猫\n```\n",
        ["5: prose '- 一项\\n\\n  ```python\\n  x = 1\\n```\\n```tutor tokens\\ntext: 猫\\n```'"],
    ),
    "a less indented line ends a list item's widget, said there": (
        "- 一项\n\n  ```tutor tokens\ntext: 猫\n  ```\n",
        [
            "8:1: the widget block ends here, with its list item: this line is less indented "
            "than the block's opening ```; indent it as far",
            "5: prose '- 一项'",
        ],
    ),
}


@pytest.mark.parametrize(("body", "expected"), CASES.values(), ids=CASES)
def test_fences_and_positions(body: str, expected: list[str], tmp_path: Path) -> None:
    assert read_back(body, tmp_path) == expected


@pytest.mark.parametrize(
    ("newline", "bom"), [("\r\n", ""), ("\r", ""), ("\n", "\ufeff"), ("\r\n", "\ufeff")]
)
@pytest.mark.parametrize(
    "case", ["unclosed widget", "in a list item", "a widget in a list item splits the list"]
)
def test_line_ends_and_a_byte_order_mark_move_nothing(
    case: str, newline: str, bom: str, tmp_path: Path
) -> None:
    body, expected = CASES[case]
    assert read_back(body, tmp_path, newline=newline, bom=bom) == expected
