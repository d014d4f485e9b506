"""Whatever an author types, the loader answers with problems, never with a traceback.

The TUI shows broken content as an error screen built from these problems, so an
exception here would be a crash in front of a learner.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.content import load_lessons

FACTS = Path(__file__).parent / "fixtures" / "engine"
FRONT_LINES = st.sampled_from(
    [
        "kind: quiz\n",
        "kind: [fix]\n",
        "kind: fix\n",
        "title: 小测\n",
        "title: a: b\n",
        "questions:\n  - id: q\n    type: single\n    choices: 3\n",
        "summary: {sections: []}\n",
        "? [a]\n: b\n",
        "x: &a [*a]\n",
        "k: !!binary aGk=\n",
        "x: " + "[" * 70 + "\n",
        "a: &a [x, x]\nb: [*a, *a, *a]\n",
        'title: "\\e]0;t\\a"\n',
        "text: {{fact:x}} y\n",
        "\ufeff",
        "\x01",
    ]
)
BODY_LINES = st.sampled_from(
    [
        "```tutor neighbours\n",
        "```tutor\n",
        "```tutor path x\n",
        "~~~\n",
        "```\n",
        "tokens: [猫\n",
        "- a\n",
        "stages: [{name: a}]\n",
        "{{fact:\n",
        "{{fact:x}}\n",
        "\x00\n",
        "\x1b[2J\x9b31m\n",
        "{{ fact :\n",
    ]
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    front=st.lists(st.one_of(FRONT_LINES, st.text(max_size=8)), max_size=6),
    body=st.lists(st.one_of(BODY_LINES, st.text(max_size=8)), max_size=8),
    closed=st.booleans(),
)
def test_any_page_text_gives_problems_not_exceptions(
    tmp_path: Path, front: list[str], body: list[str], closed: bool
) -> None:
    page = tmp_path / "01-page.md"
    text = "---\n" + "".join(front) + ("---\n" if closed else "") + "".join(body)
    page.write_bytes(text.encode("utf-8", "surrogatepass"))
    lesson_set = load_lessons(page, model_dir=tmp_path / "no-model", facts_dir=FACTS)
    for problem in lesson_set.problems:
        assert problem.line >= 1 and problem.col >= 1
        assert str(problem).startswith(f"{page}:{problem.line}:{problem.col}: ")
