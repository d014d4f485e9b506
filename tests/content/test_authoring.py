"""What authors get besides `tutor check`: a schema their editor reads, a field reference
that matches the models, and a scaffolded lesson that passes check as written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from tutor.content import load_lessons
from tutor.content.models import PAGE_FRONTS, WidgetBlock
from tutor.content.scaffold import PAGES, ScaffoldError, new_lesson
from tutor.content.schema import BEGIN, END, PARTS, with_reference
from tutor.content.source import SourceFile, split_front_matter
from tutor.content.widgets import WIDGETS
from tutor.core.paths import content_dir

README = Path(__file__).parents[2] / "content" / "README.md"


def front_matter(path: Path) -> dict:
    source = SourceFile(path, path.read_text(encoding="utf-8").splitlines())
    split, _ = split_front_matter(source)
    assert split.front is not None
    return YAML(typ="safe", pure=True).load(split.front)


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The schema as `tutor check --schema --out FILE` writes it."""
    out = tmp_path_factory.mktemp("schema") / "tutor.schema.json"
    done = subprocess.run(
        [sys.executable, "-m", "tutor", "check", "--schema", "--out", str(out), "--lang", "en"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    data: dict = json.loads(out.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(data)
    return data


def test_every_field_of_every_model_is_described(schema: dict) -> None:
    undescribed = [
        f"{name}.{field}"
        for name, definition in schema["$defs"].items()
        for field, prop in definition.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undescribed == []
    assert set(schema["x-tutor-widgets"]) == set(WIDGETS)
    kinds = {ref["$ref"].rsplit("/", 1)[-1] for ref in schema["$defs"]["Page"]["oneOf"]}
    assert kinds == {front.__name__ for front in PAGE_FRONTS.values()}


def test_the_schema_accepts_the_shipped_lessons_and_refuses_mistakes(schema: dict) -> None:
    validator = Draft202012Validator(schema)
    files = sorted(content_dir().glob("*/*.md"))
    assert len(files) > 10
    for path in files:
        errors = [error.message for error in validator.iter_errors(front_matter(path))]
        assert errors == [], path

    card = front_matter(content_dir() / "embedding" / "lesson.md")
    assert not validator.is_valid({**card, "prerequisits": []})  # misspelt field
    page = front_matter(next(content_dir().glob("*/01-*.md")))
    assert not validator.is_valid({**page, "kind": "objectivs"})
    assert not validator.is_valid({"kind": "quiz", "title": "t", "questions": [{"id": "q"}]})

    blocks = [
        block
        for lesson in load_lessons(content_dir()).lessons
        for page in lesson.pages
        for block in page.body_blocks
        if isinstance(block, WidgetBlock)
    ]
    assert {block.widget for block in blocks} >= {"tokens", "neighbours", "heatmap"}
    for block in blocks:
        widget = {**schema["x-tutor-widgets"][block.widget], "$defs": schema["$defs"]}
        assert Draft202012Validator(widget).is_valid(block.config.model_dump(mode="json"))
    neighbours = {**schema["x-tutor-widgets"]["neighbours"], "$defs": schema["$defs"]}
    assert not Draft202012Validator(neighbours).is_valid({"tokens": ["猫"], "k": 500})


def test_the_readme_field_reference_is_the_generated_one() -> None:
    readme = README.read_text(encoding="utf-8")
    assert BEGIN in readme and END in readme
    assert readme == with_reference(readme), (
        "content/README.md is out of date: python -m tutor.content.schema content/README.md"
    )
    for kind in PAGE_FRONTS:
        assert f"`kind: {kind}`" in readme
    for name in WIDGETS:
        assert f"```tutor {name}" in readme


def test_every_model_the_schema_names_has_its_table_in_the_readme(schema: dict) -> None:
    """A part model added to a field (a new `$ref`) is documented too: the hand-kept list
    of parts in tutor.content.schema cannot leave one out."""
    documented = {"LessonCard", "Page", *(part.__name__ for part in PARTS)}
    documented |= {model.__name__ for model in (*PAGE_FRONTS.values(), *WIDGETS.values())}
    assert set(schema["$defs"]) == documented
    readme = README.read_text(encoding="utf-8")
    for part in PARTS:
        assert f"\n#### {part.__name__}\n" in readme


def test_a_new_lesson_has_one_page_of_each_kind_and_passes_check(tmp_path: Path) -> None:
    assert list(PAGES) == list(PAGE_FRONTS)
    done = subprocess.run(
        [sys.executable, "-m", "tutor", "new", "lesson", "my-lesson", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    lesson_set = load_lessons(tmp_path)
    assert lesson_set.problems == []
    (lesson,) = lesson_set.lessons
    assert lesson.id == "my-lesson"
    assert [page.kind for page in lesson.pages] == list(PAGE_FRONTS)
    widgets = {b.widget for p in lesson.pages for b in p.body_blocks if isinstance(b, WidgetBlock)}
    assert widgets and widgets <= set(WIDGETS)

    check = subprocess.run(
        [sys.executable, "-m", "tutor", "check", str(tmp_path / "my-lesson"), "--lang", "en"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0
    assert check.stdout.endswith("1 lesson, 6 pages; 0 errors, 0 warnings\n")


def test_new_refuses_a_bad_id_and_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="lowercase letters"):
        new_lesson("My Lesson", tmp_path)
    new_lesson("taken", tmp_path)
    before = (tmp_path / "taken" / "lesson.md").read_text(encoding="utf-8")
    with pytest.raises(ScaffoldError, match="already exists"):
        new_lesson("taken", tmp_path)
    assert (tmp_path / "taken" / "lesson.md").read_text(encoding="utf-8") == before


def test_new_says_its_refusals_and_next_step_in_the_interfaces_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tutor.cli import main

    assert main(["new", "lesson", "My Lesson", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        "tutor new：课的 id「My Lesson」只能用小写字母、数字和 -（`tutor lesson ID` 里要输入它）\n"
    )
    assert main(["--lang", "en", "new", "lesson", "My Lesson", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        "tutor new: lesson id 'My Lesson' must be lowercase letters, digits and '-' "
        "(it is typed in `tutor lesson ID`)\n"
    )
    assert main(["new", "lesson", "taken", str(tmp_path)]) == 0
    folder = tmp_path / "taken"
    assert capsys.readouterr().out.endswith(
        f"下一步：tutor check {folder}   然后   tutor preview {tmp_path}\n"
    )
    assert main(["new", "lesson", "taken", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"tutor new：{folder} 已经存在；请换一个 id 或文件夹\n"
    assert main(["--lang", "en", "new", "lesson", "taken", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        f"tutor new: {folder} already exists; choose another id or folder\n"
    )
    (tmp_path / "file").write_text("")
    assert main(["new", "lesson", "x", str(tmp_path / "file")]) == 1
    assert (
        capsys.readouterr().err
        == f"tutor new：无法在 {tmp_path / 'file'} 里写入：路径上有一处不是文件夹\n"
    )
