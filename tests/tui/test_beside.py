"""A real model beside the lesson's (pages 8 and 13): the neighbours and analogy widgets that
say `beside: true` ask the lesson's model and a real one (`--model DIR` or
TUTOR_COMPARE_MODEL), and show the real one's answer with its shape; without one they say
how to open one."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import Input
from tokenizers import Tokenizer, models, pre_tokenizers

from tests.tui.conftest import LESSON, app_for
from tests.unit.hf_fixture import random_table, write_safetensors
from tests.waits import settle, wait_until
from tutor.core.model import open_model
from tutor.core.similarity import analogy, nearest
from tutor.tui.app import TutorApp
from tutor.tui.widgets.analogy import AnalogyDemo
from tutor.tui.widgets.neighbours import NeighboursPanel

WORDS = ["[UNK]", "猫", "狗", "汽车", "小明", "小红", "小李", "国王", "男人", "女人", "王后"]
MEANING, TRY = 8, 13  # the pages whose widgets show a real model beside


def write_chinese_model(path: Path, vocab: int = 40, dim: int = 6) -> Path:
    """A small "real" model whose vocabulary has the lesson's words (a WordLevel over
    whitespace), with a random table."""
    path.mkdir(parents=True)
    words = WORDS + [f"词{i}" for i in range(vocab - len(WORDS))]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(["[UNK]"])
    (path / "tokenizer.json").write_text(tok.to_str(), encoding="utf-8")
    table = random_table(vocab, dim, seed=7)
    write_safetensors(path / "model.safetensors", {"embeddings.word_embeddings.weight": table})
    (path / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")
    return path


def numpy_top(path: Path, query_words: list[str], signs: list[int], k: int) -> list[str]:
    """The k words nearest by cosine to the signed sum of the words' rows, by numpy."""
    words = WORDS + [f"词{i}" for i in range(40 - len(WORDS))]
    table = random_table(40, 6, seed=7)
    ids = [words.index(w) for w in query_words]
    query = sum(s * table[i] for s, i in zip(signs, ids, strict=True))
    scores = (table / np.linalg.norm(table, axis=1, keepdims=True)) @ query
    scores[[0, *ids]] = -np.inf
    return [words[i] for i in np.argsort(-scores, kind="stable")[:k]]


@pytest.mark.parametrize("how", ["--model", "TUTOR_COMPARE_MODEL"])
async def test_the_real_model_answers_beside_the_lesson_s(
    make_app: Callable[..., TutorApp],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    real = write_chinese_model(tmp_path / "real-zh")
    options: dict[str, object] = {"start_lesson": LESSON, "start_page": MEANING, "lang": "en"}
    if how == "--model":
        options["model_dir"] = real
    else:
        monkeypatch.setenv("TUTOR_COMPARE_MODEL", str(real))
    app = make_app(**options)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shipped = open_model()
        panel = app.screen.query_one(NeighboursPanel)
        # the lesson's columns stay on the lesson's own model
        lesson_after = next(a for a in panel.answers if a.scheme == "after").result
        assert lesson_after == nearest(shipped, "小明", "after", 5)
        assert panel.beside is not None and panel.beside.shape == (40, 6)
        assert [n.piece for n in panel.beside.found] == numpy_top(real, ["小明"], [1], 5)
        said = panel.plain_text()
        assert "The real model real-zh (V = 40, d = 6, its trained table) answers:" in said
        demo = app.screen.query(AnalogyDemo).first()
        assert demo.found == analogy(shipped, "国王", "男人", "女人", k=5)
        assert demo.beside is not None
        top = numpy_top(real, ["国王", "男人", "女人"], [1, -1, 1], 5)
        assert [n.piece for n in demo.beside.found] == top


async def test_without_a_real_model_the_widgets_say_how_to_open_one(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TUTOR_COMPARE_MODEL", raising=False)
    app = make_app(start_lesson=LESSON, start_page=TRY, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panels = list(app.screen.query(NeighboursPanel))
        assert [p.config.beside for p in panels] == [True, True]
        hint = "open a Hugging Face model directory (tokenizer.json + model.safetensors) with"
        for panel in panels:
            assert hint in panel.plain_text() and "tutor --model DIR" in panel.plain_text()


async def test_without_a_real_model_a_question_asks_the_lesson_s_model_alone(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no real model there is nothing to ask beside: each question started a second
    worker that answered "none" and redrew the hint, and the lesson's own answer waited
    behind it (a new token's neighbours took a median 7 ms before, 20-30 ms after)."""
    import tutor.tui.widgets.analogy as analogy_widget
    import tutor.tui.widgets.neighbours as neighbours_widget

    monkeypatch.delenv("TUTOR_COMPARE_MODEL", raising=False)
    asked: list[str] = []
    for module in (neighbours_widget, analogy_widget):
        real = module.ask_beside
        monkeypatch.setattr(
            module,
            "ask_beside",
            lambda ctx, q, real=real: (asked.append("beside"), real(ctx, q))[1],
        )
    app = make_app(start_lesson=LESSON, start_page=TRY, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query(NeighboursPanel).first()
        field = panel.query_one("#other", Input)
        field.focus()
        field.value = "小红"
        await pilot.press("enter")
        await settle(pilot)
        assert panel.token == "小红"
        assert asked == []
        hint = "open a Hugging Face model directory (tokenizer.json + model.safetensors) with"
        assert hint in panel.plain_text()
        assert hint in str(panel.query_one("#beside").render())


async def test_a_real_model_that_cannot_read_the_word_says_so_beside(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    from tests.unit.hf_fixture import write_word_start_model

    english = write_word_start_model(tmp_path / "english", "byte")
    app = make_app(start_lesson=LESSON, start_page=TRY, model_dir=english, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query(NeighboursPanel).first()
        assert panel.answers[0].result is not None  # the lesson's model knows 猫
        assert panel.beside is not None and panel.beside.found == []
        assert "is not one token in english" in panel.beside.error
        assert panel.beside.shape == (len(vocab_of_english(english)), 8)  # still said


@pytest.fixture
def fixed_real_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """The real model at a fixed path (its folder names it on screen), and a data dir."""
    for name in ("NO_COLOR", "TEXTUAL_THEME", "TUTOR_GUEST", "TUTOR_COMPARE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    root = Path(tempfile.gettempdir()) / "tutor-snapshot-beside"
    shutil.rmtree(root, ignore_errors=True)
    yield write_chinese_model(root / "real-zh"), root / "data"
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("page", [MEANING, TRY], ids=["page08", "page13"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_beside_snapshot(
    snap_compare: Callable[..., bool],
    fixed_real_model: tuple[Path, Path],
    page: int,
    size: tuple[int, int],
) -> None:
    # The real model's answer under the lesson's, scrolled into view.
    model_dir, data_dir = fixed_real_model
    app = app_for(data_dir, start_lesson=LESSON, start_page=page, model_dir=model_dir)

    async def shown(pilot) -> None:
        await settle(pilot)
        app.screen.query("#beside").first().scroll_visible(animate=False, top=False)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=shown)


async def test_the_page_note_says_which_parts_stay_on_the_lesson_s_model(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    real = write_chinese_model(tmp_path / "real-zh")
    app = make_app(start_lesson=LESSON, start_page=TRY, model_dir=real, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        note = str(app.screen.query_one(".model-note").render())
        assert "the interactive parts use the model you opened, real-zh" in note
        assert "The neighbours and analogy parts are the exception: they answer on the " in note
        assert "project model and show real-zh's answer below." in note


def vocab_of_english(folder: Path) -> dict[str, int]:
    return Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab(with_added_tokens=True)


@pytest.mark.parametrize("kind", ["metaspace", "byte"])
async def test_a_word_typed_into_the_lesson_s_widgets_means_its_word_start_piece(
    make_app: Callable[..., TutorApp], tmp_path: Path, kind: str
) -> None:
    """A real model with "▁cat"/"Ġcat" beside a mid-word "cat": the word a learner types into
    the page's neighbours and analogy fields is the word-start piece, as on the command
    line and in explore (numpy on the same table decides which rows are nearest)."""
    from tests.unit.hf_fixture import write_word_start_model
    from tests.unit.test_real_models import MARK, reference, reserved

    real = write_word_start_model(tmp_path / kind, kind)
    vocab = vocab_of_english(real)
    table = random_table(len(vocab), 8, seed=3)
    app = make_app(start_lesson=LESSON, start_page=MEANING, model_dir=real, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query(NeighboursPanel).first()
        panel.beside = None
        panel.query_one("#other", Input).value = "cat"
        await panel.query_one("#other", Input).action_submit()
        cat = vocab[MARK[kind] + "cat"]
        expected = reference(table, table[cat], [cat, *reserved(vocab)], panel.config.k)
        await wait_until(lambda: panel.beside is not None, "the real model's answer")
        assert panel.beside is not None and panel.beside.error == ""
        assert [n.id for n in panel.beside.found] == expected
        demo = app.screen.query(AnalogyDemo).first()
        for name, word in zip("abc", ("king", "man", "woman"), strict=True):
            demo.query_one(f"#{name}", Input).value = word
        demo.beside = None
        demo.compute()
        ids = [vocab[MARK[kind] + w] for w in ("king", "man", "woman")]
        query = table[ids[0]] - table[ids[1]] + table[ids[2]]
        await wait_until(lambda: demo.beside is not None, "the real model's analogy")
        assert demo.beside is not None and demo.beside.found
        assert [n.id for n in demo.beside.found] == reference(
            table, query, ids + reserved(vocab), len(demo.beside.found)
        )
