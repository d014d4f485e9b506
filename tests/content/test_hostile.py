"""Content written to hurt the tutor (or by mistake) ends in a located error, fast.

Each file is checked in a child process that cannot take the machine with it (CPU and
address-space limits), and the child reports the CPU time and peak memory the check took;
the bounds asserted are loose enough for a loaded machine (CPU time, not wall time), while
the fixed code needs a few hundredths of a second and no memory beyond the interpreter's.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tutor.content import load_lessons, render_problem

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = FIXTURES / "hostile"
FACTS = FIXTURES / "engine"
CPU_SECONDS_BOUND = 5.0  # the fixed checks take under 0.1 s; a page of list items, 1 s
PEAK_MB_BOUND = 300  # the interpreter with pydantic and ruamel: about 60 MB
# the limits in tutor.content.source, as an author reads them in the messages
MAX_FILE_BYTES = 100_000
MAX_YAML_ALIASES = 100
MAX_YAML_BRACKETS_PER_LINE = 64
MAX_YAML_DEPTH = 32

CHILD = """
import json, sys, time
from pathlib import Path
from tutor.content import load_lessons
started = time.process_time()
root, model, facts = (Path(arg) for arg in sys.argv[1:])
lesson_set = load_lessons(root, model_dir=model, facts_dir=facts)
cpu = time.process_time() - started
# this process's own high-water mark: ru_maxrss would carry over the parent's peak from
# before the exec (Linux keeps it across fork and exec), so a big test runner would count
peak_mb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
problems = [str(problem) for problem in lesson_set.problems]
print(json.dumps({"problems": problems, "cpu": cpu, "peak_mb": peak_mb}))
"""


def limit_child() -> None:
    """A check that regresses dies of its limits instead of taking the machine's memory."""
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def check_in_child(path: Path, tmp_path: Path) -> dict:
    """load_lessons(path) in a child process: its problems, CPU seconds and peak MB."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(tmp_path / "no-model"), str(FACTS)],
        capture_output=True,
        text=True,
        preexec_fn=limit_child,
        timeout=600,  # a hang guard, not a measurement
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report: dict = json.loads(done.stdout)
    assert report["cpu"] < CPU_SECONDS_BOUND
    assert report["peak_mb"] < PEAK_MB_BOUND
    return report


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("01-alias-bomb-front.md", "7:36: front matter"),  # 10^9 values
        ("02-alias-bomb-widget.md", "10:45: the path widget"),  # 10^6 values
    ],
)
def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_limit(
    tmp_path: Path, name: str, where: str
) -> None:
    page = HOSTILE / name
    report = check_in_child(page, tmp_path)
    assert report["problems"] == [
        f"{page}:{where} stands for more than 10,000 values once its aliases (*name) are expanded"
    ]


def test_an_unclosed_fact_reference_before_a_long_run_of_blanks_is_found_at_once(
    tmp_path: Path,
) -> None:
    """The reference pattern runs on every line of check and of every page shown; one
    that backtracks over a line of blanks would hang both."""
    page = HOSTILE / "05-fact-reference-spaces.md"
    report = check_in_child(page, tmp_path)
    assert report["problems"] == [
        f"{page}:6:3: a fact reference is written {{{{fact:key}}}} on one line; this one is not"
    ]


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("table rows", "|x|y|\n"),
        ("quotes", "> " * 40 + "x\n"),
        ("list items", "- x\n  - y\n"),
        ("HTML", "<div>\n"),
    ],
)
def test_a_widget_after_a_page_of_markdown_blocks_is_found_and_placed(
    tmp_path: Path, name: str, line: str
) -> None:
    """Widget fences are found by parsing the page's markdown, whose cost grows with its
    blocks: a page at the size limit made of one kind of block still takes a bounded time,
    and the widget after it is where its line says."""
    head = "---\nkind: fix\ntitle: t\n---\n|a|b|\n|-|-|\n"
    tail = "\n```tutor tokens\ntext: [猫\n```\n"
    count = (MAX_FILE_BYTES - len(head) - len(tail.encode())) // len(line.encode())
    page = tmp_path / "01-blocks.md"
    page.write_text(head + line * count + tail, encoding="utf-8")
    report = check_in_child(page, tmp_path)
    at = 6 + count * line.count("\n") + 3
    assert report["problems"] == [
        f"{page}:{at}:9: YAML syntax error in the tokens widget: expected ',' or ']', "
        "but got '<stream end>'"
    ]


def test_many_aliases_are_refused_even_when_each_is_small(tmp_path: Path) -> None:
    page = tmp_path / "01-aliases.md"
    aliases = ", ".join(["*a"] * (MAX_YAML_ALIASES + 1))
    page.write_text(f"---\nkind: fix\ntitle: t\na: &a x\nb: [{aliases}]\n---\n")
    (problem,) = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS).problems
    col = 5 + 4 * MAX_YAML_ALIASES
    assert str(problem) == (
        f"{page}:5:{col}: front matter uses more than {MAX_YAML_ALIASES} aliases (*name)"
    )


def test_an_anchor_defined_twice_is_a_located_error_not_a_yaml_warning(tmp_path: Path) -> None:
    """YAML lets a later `&name` replace an earlier one, and the YAML library printed a
    warning of its own (lines counted in the snippet, its source file named) on stderr."""
    page = tmp_path / "01-anchors.md"
    page.write_text(
        "---\nkind: fix\ntitle: t\n---\n\n```tutor tokens\ntext: &a 猫\nschemes: [&a char]\n```\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the YAML library's own warning would raise here
        (problem,) = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS).problems
    assert str(problem) == (
        f"{page}:8:11: the tokens widget defines the anchor &a a second time (first on line "
        "7); give each anchor its own name"
    )


@pytest.mark.parametrize(
    ("nesting", "where"),
    [
        # 10,000 levels of flow nesting on one line: refused before YAML reads it
        (
            "x: " + "[" * 10_000 + "]" * 10_000 + "\n",
            f"4:{4 + MAX_YAML_BRACKETS_PER_LINE}: more than {MAX_YAML_BRACKETS_PER_LINE} "
            f"'[' or '{{' on one line; YAML may nest at most {MAX_YAML_DEPTH} levels: "
            "split the line",
        ),
        # the same depth, one bracket per line
        (
            "x:\n" + " [\n" * 10_000 + " ]\n" * 10_000,
            f"{4 + MAX_YAML_DEPTH}:2: front matter nests deeper than {MAX_YAML_DEPTH} levels",
        ),
        # block mappings, one level per line (3,000 levels would pass the file size limit)
        (
            "".join(" " * level + f"k{level}:\n" for level in range(200)),
            f"{4 + MAX_YAML_DEPTH}:{MAX_YAML_DEPTH + 1}: "
            f"front matter nests deeper than {MAX_YAML_DEPTH} levels",
        ),
    ],
    ids=["flow-one-line", "flow-lines", "block"],
)
def test_deep_nesting_is_a_located_error_not_a_recursion_error(
    tmp_path: Path, nesting: str, where: str
) -> None:
    page = tmp_path / "01-deep.md"
    page.write_text("---\nkind: fix\ntitle: t\n" + nesting + "---\n")
    report = check_in_child(page, tmp_path)
    assert report["problems"] == [f"{page}:{where}"]


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    page = tmp_path / "01-huge.md"
    page.write_text("---\nkind: fix\ntitle: t\n---\n" + "长" * MAX_FILE_BYTES)
    (problem,) = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS).problems
    size = page.stat().st_size
    assert str(problem) == (
        f"{page}:1:1: file is {size:,} bytes; a lesson file may be at most "
        f"{MAX_FILE_BYTES:,} bytes: split it into several pages"
    )


def test_a_named_pipe_is_refused_instead_of_blocking(tmp_path: Path) -> None:
    page = tmp_path / "01-pipe.md"
    os.mkfifo(page)
    report = check_in_child(page, tmp_path)
    assert report["problems"] == [f"{page}:1:1: not a regular file; a lesson file is text"]


def _lesson(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "lesson.md").write_text(
        f"---\nid: {folder.name}\ntitle: t\nquestion: q\ntopic: x\nobjectives: [o]\n"
        "outcome: o\n---\n"
    )
    (folder / "01-goals.md").write_text("---\nkind: objectives\ntitle: 目标\n---\n正文\n")
    return folder


def test_links_out_of_the_content_folder_are_refused_and_never_read(tmp_path: Path) -> None:
    """A page linked to a secret file, and a whole lesson folder linked elsewhere: the
    problem names the link, never the target's name or a line of it."""
    secret = tmp_path / "private" / "credentials.txt"
    secret.parent.mkdir()
    secret.write_text("---\nkind: fix\ntitle: SECRET-TITLE\n---\nSECRET-BODY\n")
    root = tmp_path / "content"
    lesson = _lesson(root / "mine")
    (lesson / "02-leak.md").symlink_to(secret)
    outside = _lesson(tmp_path / "elsewhere" / "theirs")
    (root / "theirs").symlink_to(outside, target_is_directory=True)
    (lesson / "03-inside.md").symlink_to(lesson / "01-goals.md")  # inside: fine

    lesson_set = load_lessons(root, model_dir=tmp_path, facts_dir=FACTS)
    shown = "\n".join(render_problem(problem) for problem in lesson_set.errors)
    assert "SECRET" not in shown and "credentials" not in shown and "elsewhere" not in shown
    refused = {str(problem.path) for problem in lesson_set.errors}
    assert refused == {
        str(lesson / "02-leak.md"),
        str(root / "theirs" / "lesson.md"),
        str(root / "theirs" / "01-goals.md"),
    }
    assert str(lesson_set.errors[0]) == (
        f"{lesson / '02-leak.md'}:1:1: 02-leak.md is a link to a file outside the content "
        f"folder {root.resolve()}; the tutor reads only files inside it (copy the file in "
        "instead)"
    )
    assert [page.number for page in lesson_set.lesson("mine").pages] == [1, 3]

    check = subprocess.run(
        [sys.executable, "-m", "tutor", "check", str(lesson / "02-leak.md"), "--lang", "en"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 1
    assert "SECRET" not in check.stdout + check.stderr
    assert "is a link to a file outside the content folder" in check.stdout


def test_control_characters_are_errors_and_never_printed(tmp_path: Path) -> None:
    page = HOSTILE / "03-control-characters.md"
    lesson_set = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS)
    found = [(p.line, p.col, p.message) for p in lesson_set.problems]
    said = (
        "control character ESC (U+001B): a learner's terminal would act on it instead of "
        "showing it; delete it"
    )
    assert found == [
        (3, 8, f"{said} (written as an escape in 'title')"),
        (6, 19, said),
        (9, 7, f"tokens widget: {said} (written as an escape in 'text')"),
    ]
    check = subprocess.run(
        [sys.executable, "-m", "tutor", "check", str(page), "--model", str(tmp_path)],
        capture_output=True,
    )
    assert check.returncode == 1
    output = check.stdout.decode("utf-8")
    assert not [char for char in output if char in "\x1b\x07\x9b\x9d"]
    assert "Clear the screen: \u241b[2J" in output  # shown, harmless, caret still aligned
    assert "\u241b]0;owned\u2407, C1 CSI: \ufffd31m" in output


def test_a_control_character_yaml_refuses_is_reported_once(tmp_path: Path) -> None:
    page = tmp_path / "01-raw.md"
    page.write_text("---\nkind: fix\ntitle: a\x1b[2Jb\n---\n")
    (problem,) = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS).problems
    assert (problem.line, problem.col) == (3, 9)
    assert problem.message.startswith("control character ESC (U+001B)")
    assert "\x1b" not in render_problem(problem)


def test_an_unquoted_fact_reference_in_widget_yaml_says_to_quote_it(tmp_path: Path) -> None:
    page = HOSTILE / "04-unquoted-fact.md"
    lesson_set = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS)
    assert [str(problem) for problem in lesson_set.problems] == [
        f"{page}:7:7: tokens widget: 'text' starts with '{{{{', which YAML reads as a "
        'mapping: put the value in quotes, "{{fact:project_vocab_size}}"'
    ]
    rendered = render_problem(lesson_set.problems[0])
    marked = "7 | text: {{fact:project_vocab_size}}\n  |       " + "^" * 27 + " error"
    assert rendered.endswith(marked)


def test_an_unquoted_fact_reference_followed_by_text_says_to_quote_it(tmp_path: Path) -> None:
    """YAML cannot even parse this one; the syntax error says why, at the value."""
    page = tmp_path / "01-page.md"
    page.write_text(
        "---\nkind: fix\ntitle: t\n---\n\n```tutor tokens\n"
        "text: {{fact:project_vocab_size}} 个词\n```\n",
        encoding="utf-8",
    )
    (problem,) = load_lessons(page, model_dir=tmp_path, facts_dir=FACTS).problems
    assert str(problem) == (
        f"{page}:7:7: YAML syntax error in the tokens widget: a value that starts with "
        """'{{' must be in quotes, or YAML reads a mapping: "{{fact:project_vocab_size}} 个词\""""
    )
    assert problem.width == len("{{fact:project_vocab_size}} 个词")
