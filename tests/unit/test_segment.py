"""jieba is loaded in one place (tutor/core/segment.py), with two dictionaries: the whole
one for the word scheme and the grader's cue words, the same words whether cached or built
in memory, so that a grade never depends on which folders can be written."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import jieba

import tutor
from tutor.content import grade
from tutor.core import segment

PACKAGE = Path(tutor.__file__).parent


def test_only_the_segmenter_imports_jieba() -> None:
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name.split(".")[0] == "jieba" for name in names):
                importers.add(path.relative_to(PACKAGE.parent).as_posix())
    assert importers == {"tutor/core/segment.py"}


def _from_jieba_file(tmp_path: Path) -> tuple[dict[str, int], int]:
    """What jieba's own loader makes of the cue words written as a dictionary file."""
    source = Path(jieba.__file__).with_name("dict.txt").read_text(encoding="utf-8")
    kept = [line for line in source.splitlines() if grade._CUE_CHARS & set(line.split()[0])]
    assert 15_000 < len(kept) < 25_000  # the cue words, not the 349,000 of the whole
    words = tmp_path / "cue-words.txt"
    words.write_text("\n".join(kept) + "\n", encoding="utf-8")
    tokenizer = jieba.Tokenizer(dictionary=str(words))
    tokenizer.tmp_dir = str(tmp_path)
    tokenizer.initialize()
    return tokenizer.FREQ, tokenizer.total


def test_the_cue_words_are_jieba_s_whether_built_cached_or_nowhere_to_write(
    tmp_path: Path,
) -> None:
    expected = _from_jieba_file(tmp_path)
    assert (
        segment.segmenter(grade._CUE_CHARS).FREQ,
        segment.segmenter(grade._CUE_CHARS).total,
    ) == expected

    folder = tmp_path / "cache"
    folder.mkdir()
    assert segment._kept_words(grade._CUE_CHARS, folder) == expected  # built, then cached
    (cached,) = folder.iterdir()
    assert cached.name.startswith(f"jieba-{jieba.__version__}-")
    assert segment._kept_words(grade._CUE_CHARS, folder) == expected  # read back
    cached.write_bytes(cached.read_bytes()[:1000])  # cut short (a disk filled up)
    assert segment._kept_words(grade._CUE_CHARS, folder) == expected  # built again

    blocked = tmp_path / "a-file"
    blocked.write_text("")  # nothing can be written inside a file
    assert segment._kept_words(grade._CUE_CHARS, blocked / "cache") == expected
    assert blocked.read_text() == ""


def test_the_grader_cuts_with_the_cue_words_where_the_whole_dictionary_cuts_otherwise() -> None:
    text = "我不知道这是什么"
    cue_cuts = list(segment.segmenter(grade._CUE_CHARS).tokenize(text, HMM=False))
    assert grade._segment(text) == cue_cuts
    assert ("不知", 1, 3) in cue_cuts
    assert ("不", 1, 2) in list(segment.segmenter().tokenize(text, HMM=False))


PROBE = """
import json, sys
from tutor.content import load_lessons
from tutor.content.grade import grade, rubric_for
from tutor.core import segment
from tutor.core.paths import content_dir
rubric = rubric_for(load_lessons(content_dir()).lesson('embedding'), 'summary')
print(json.dumps(grade(rubric, 'ID 不是行号').model_dump()))
if sys.argv[1] == 'words':
    print(json.dumps(segment.words('训练让用法相近的词挨在一起')))
"""


def _probe(tmp_path: Path, cache: Path, *, words: bool) -> tuple[list[str], list[str], list[str]]:
    """The probe's output lines, jieba's files in the cache folder and the temp folder."""
    temp = tmp_path / "temp"
    temp.mkdir(exist_ok=True)
    env = dict(os.environ, TUTOR_CACHE_DIR=str(cache), TMPDIR=str(temp))
    args = [sys.executable, "-c", PROBE, "words" if words else "grade"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")  # jieba says nothing on the TUI's stderr
    left = sorted(p.name for p in cache.glob("jieba*"))
    return done.stdout.splitlines(), left, sorted(p.name for p in temp.iterdir())


def test_a_chinese_grade_is_the_same_wherever_jieba_s_cue_words_are_cached(
    tmp_path: Path,
) -> None:
    (graded,), left, temp = _probe(tmp_path, tmp_path / "cache", words=False)
    assert (len(left), temp) == (1, [])  # the cue words, in the tutor's cache folder
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # no cache folder can be made inside a file
    (graded_blocked,), _, temp = _probe(tmp_path, blocked / "cache", words=False)
    assert (graded_blocked, temp) == (graded, left)  # cached in the temp folder instead
    statuses = {c["id"]: c["status"] for c in json.loads(graded)["claims"]}
    assert statuses["id-is-row"] == "denied"  # 不是, found by jieba, negates the claim


def test_the_whole_dictionary_is_cached_in_the_tutor_s_cache_folder(tmp_path: Path) -> None:
    (_, cut), left, temp = _probe(tmp_path, tmp_path / "cache", words=True)
    assert json.loads(cut) == ["训练", "让", "用法", "相近", "的", "词", "挨", "在", "一起"]
    assert ("jieba.cache" in left, temp) == (True, [])
