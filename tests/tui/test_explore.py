"""`tutor explore`: any model's tokens, neighbours, analogy, heatmap and shapes, by keyboard,
checked against the core's own answers; pictures at 80x24 and 120x40."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, Static

import tutor.tui.screens.explore as explore_module
from tests.tui.conftest import app_for
from tests.unit.hf_fixture import (
    CONVENTIONS,
    WORDS,
    byte_fallback_tokenizer_json,
    random_table,
    write_hf_model,
)
from tests.waits import settle
from tutor.core.model import open_model
from tutor.core.similarity import analogy, nearest
from tutor.tui.app import TutorApp
from tutor.tui.screens.explore import HEATMAP_LIMIT, ExploreScreen
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.heatmap import Heatmap

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

BERT = next(c for c in CONVENTIONS if c.name == "bert")


def text_of(app: TutorApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def type_into(pilot, selector: str, text: str) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = ""
    await pilot.press(*text)
    await settle(pilot)


@pytest.fixture
def hf_dir(tmp_path: Path) -> Path:
    table = random_table(64, 8)
    ids = {w: 2 + i for i, w in enumerate(WORDS)}
    table[ids["queen"]] = table[ids["king"]] - table[ids["man"]] + table[ids["woman"]]
    return write_hf_model(tmp_path / "tiny-bert", BERT, table=table, pad_to=128)


async def test_the_shipped_model_by_keyboard(make_app: Callable[..., TutorApp]) -> None:
    app = make_app(start_explore=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ExploreScreen)
        model = open_model()
        shapes = text_of(app, "#shapes")
        assert f"V = {model.table_shape[0]:,}" in shapes and f"d = {model.table_shape[1]}" in shapes
        assert "32.0%" in shapes or f"{model.embedding_parameters:,}" in shapes

        await type_into(pilot, "#text", "猫和狗")
        tokens = text_of(app, "#tokens")
        for token in model.scheme.encode("猫和狗"):
            assert f"{token.id}" in tokens and repr(token.piece) in tokens
        assert "E7 8C AB" in tokens  # 猫's three UTF-8 bytes

        pick = app.screen.query_one("#pick", ChoiceBar)
        pick.focus()
        await pilot.press("right", "right")  # 猫 -> 和 -> 狗
        await settle(pilot)
        assert pick.value == "狗"
        shown = text_of(app, "#neighbours")
        for neighbour in nearest(model, "狗", "after", 6).neighbours:
            assert f"{neighbour.piece!r} {neighbour.id} {neighbour.score:.3f}" in shown
        for neighbour in nearest(model, "狗", "id", 6).neighbours:
            assert f"{neighbour.piece!r} {neighbour.id}" in shown

        await type_into(pilot, "#analogy", "猫 狗 汽车")
        shown = text_of(app, "#analogy-out")
        for neighbour in analogy(model, "猫", "狗", "汽车", k=6):
            assert f"{neighbour.piece!r}" in shown and f"{neighbour.score:.3f}" in shown
        await type_into(pilot, "#analogy", "猫 狗")
        assert "exactly three" in text_of(app, "#analogy-out") or "正好三个" in text_of(
            app, "#analogy-out"
        )

        heatmap = app.screen.query_one(Heatmap)
        assert heatmap.pieces == ["猫", "和", "狗"] and heatmap.stage == "after"
        heatmap.focus()
        await settle(pilot)
        assert app.screen.query_one("#explore-body").scroll_y > 0  # it scrolls to the focus
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExploreScreen)


async def test_an_hf_encoder_with_a_padding_tokenizer(
    make_app: Callable[..., TutorApp], hf_dir: Path
) -> None:
    app = make_app(start_explore=True, model_dir=hf_dir, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shapes = text_of(app, "#shapes")
        assert "V = 64 rows × d = 8" in shapes and "F32" in shapes
        assert "output layer: no output layer in this directory" in shapes
        assert "re-created from config (not the real initial table)" in shapes
        assert "not this model's real initial table" in text_of(app, "#heat-note")
        await type_into(pilot, "#text", "king man woman")
        assert "3 tokens" in text_of(app, "#tokens")  # not padded to 128
        await type_into(pilot, "#text", "king zebra")
        assert "'[UNK]'" in text_of(app, "#tokens")  # shown as text, never read as markup
        await type_into(pilot, "#text", "supercalifragilistic")  # [UNK] for 20 bytes
        row = text_of(app, "#tokens").splitlines()[2]
        assert row.endswith("'[UNK]' (special)  73 75 70 65 72 63 61 6C 69 66 72 61 …+8"), row
        await type_into(pilot, "#analogy", "king man woman")
        first = text_of(app, "#analogy-out").splitlines()[1]
        assert first.split()[:2] == ["1", "'queen'"] and first.endswith("1.000")


async def test_only_the_newest_text_is_shown(
    make_app: Callable[..., TutorApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(start_explore=True, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        asked: list[str] = []
        token_view = explore_module.token_view

        def counted(model, text: str):
            asked.append(text)
            return token_view(model, text)

        monkeypatch.setattr(explore_module, "token_view", counted)
        field = app.screen.query_one("#text", Input)
        for text in ("猫", "猫和狗", "狗和猫", "汽车和自行车"):
            field.value = text  # four questions before any answer lands
        await settle(pilot)
        assert asked[0] == "猫" and asked[-1] == "汽车和自行车" and len(asked) <= 2
        model = open_model()
        expected = model.scheme.encode("汽车和自行车")
        assert text_of(app, "#tokens").startswith(f"{len(expected)} tokens")
        assert app.screen.query_one(Heatmap).pieces == list(
            dict.fromkeys(t.piece for t in expected)
        )


async def test_the_heatmap_takes_at_most_20_tokens(
    make_app: Callable[..., TutorApp], hf_dir: Path
) -> None:
    app = make_app(start_explore=True, model_dir=hf_dir, lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        words = " ".join(f"w{i}" for i in range(50))
        app.screen.query_one("#text", Input).value = words
        await settle(pilot)
        assert app.screen.query_one("#pick", ChoiceBar).values == [f"w{i}" for i in range(40)]
        assert app.screen.query_one(Heatmap).pieces == [f"w{i}" for i in range(HEATMAP_LIMIT)]
        assert "The text has 50 distinct tokens; the heatmap draws the first 20" in text_of(
            app, "#heat-note"
        )
        app.screen.query_one("#text", Input).value = "cat"
        await settle(pilot)
        assert not app.screen.query(Heatmap)
        assert "at least two distinct tokens" in text_of(app, "#heat-note")


@pytest.fixture
def snapshot_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fixed folder for a snapshot's model and data dir: the header names the model's
    folder, so its path must not change between runs."""
    for name in ("NO_COLOR", "TEXTUAL_THEME", "TUTOR_GUEST"):
        monkeypatch.delenv(name, raising=False)
    root = Path(tempfile.gettempdir()) / "tutor-snapshot-explore"
    shutil.rmtree(root, ignore_errors=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def snapshot_model(snapshot_root: Path) -> tuple[Path, Path]:
    gpt2 = next(c for c in CONVENTIONS if c.name == "gpt2")
    return write_hf_model(snapshot_root / "tiny-gpt2", gpt2), snapshot_root / "data"


@pytest.mark.parametrize(
    ("size", "lang"),
    [
        pytest.param((80, 24), "en", id="80x24-en"),
        pytest.param((120, 40), "en", id="120x40-en"),
        pytest.param((80, 24), "zh", id="80x24-zh"),
    ],
)
def test_explore_snapshot(
    snap_compare: Callable[..., bool],
    snapshot_model: tuple[Path, Path],
    size: tuple[int, int],
    lang: str,
) -> None:
    model_dir, data_dir = snapshot_model
    app = app_for(data_dir, start_explore=True, model_dir=model_dir, lang=lang)

    async def typed(pilot) -> None:
        await settle(pilot)
        app.screen.query_one("#text", Input).value = "the cat and the dog saw a king"
        app.screen.query_one("#analogy", Input).value = "king man woman"
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=typed)


@pytest.fixture
def snapshot_static_model(snapshot_root: Path) -> tuple[Path, Path]:
    """A static embedding model (int8 rows, scales, a mapping)."""
    from tests.unit.hf_fixture import write_static_model

    return write_static_model(snapshot_root / "potion-tiny").path, snapshot_root / "data"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_static_model_explore_snapshot(
    snap_compare: Callable[..., bool],
    snapshot_static_model: tuple[Path, Path],
    size: tuple[int, int],
) -> None:
    # The header says "static embedding model"; the shapes panel, the rows it stores; the
    # typed words are their word-start pieces.
    model_dir, data_dir = snapshot_static_model
    app = app_for(data_dir, start_explore=True, model_dir=model_dir, lang="en")

    async def typed(pilot) -> None:
        await settle(pilot)
        app.screen.query_one("#analogy", Input).value = "king man woman"
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=typed)


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.name)
async def test_every_convention_opens_in_explore(
    make_app: Callable[..., TutorApp], tmp_path: Path, convention
) -> None:
    model_dir = write_hf_model(tmp_path / convention.name, convention)
    app = make_app(start_explore=True, model_dir=model_dir, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "V = 64 rows × d = 8" in text_of(app, "#shapes")
        app.screen.query_one("#text", Input).value = "cat dog king"
        await settle(pilot)
        assert app.screen.query_one(Heatmap).matrix is not None
        assert text_of(app, "#neighbours").startswith("Neighbours of 'cat' (ID 2)\n")


async def test_a_refused_analogy_reads_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_explore=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_into(pilot, "#analogy", "qwertyuiop 猫 狗")
        shown = text_of(app, "#analogy-out")
        assert "「qwertyuiop」在 byte-bpe-zh 里不是一个 token" in shown, shown
        assert "is not one token" not in shown and "splits into" not in shown


async def test_bytes_are_those_each_token_stands_for(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    llama = next(c for c in CONVENTIONS if c.name == "llama")
    model_dir = write_hf_model(tmp_path / "llama2", llama, vocab=272)
    (model_dir / "tokenizer.json").write_text(byte_fallback_tokenizer_json(), encoding="utf-8")
    app = make_app(start_explore=True, model_dir=model_dir, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_into(pilot, "#text", "the cat 龙")
        rows = [line.split("  ") for line in text_of(app, "#tokens").splitlines()[2:]]
        shown = [
            (cells[2].strip(), cells[-1].strip())
            for cells in ([c for c in row if c] for row in rows)
        ]
        assert shown == [
            ("'▁the'", "20 74 68 65"),
            ("'▁cat'", "20 63 61 74"),
            ("'▁'", "20"),
            ("'<0xE9>'", "E9"),
            ("'<0xBE>'", "BE"),
            ("'<0x99>'", "99"),
        ]


async def test_esc_in_a_field_leaves_the_field_and_the_title_is_in_the_learners_language(
    make_app: Callable[..., TutorApp],
) -> None:
    """As on a lesson page: esc in a text field leaves it (the key line then shows the
    screen's keys), a second esc goes back; the neighbours' title is said in zh or en."""
    for lang, title in [("zh", "「猫」（ID {id}）的邻居"), ("en", "Neighbours of '猫' (ID {id})")]:
        app = make_app(start_explore=True, lang=lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_into(pilot, "#text", "猫")
            assert isinstance(app.focused, Input)
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, ExploreScreen) and not isinstance(app.focused, Input)
            cat = open_model().scheme.encode("猫")[0]
            assert text_of(app, "#neighbours").splitlines()[0] == title.format(id=cat.id)
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, ExploreScreen)


@pytest.mark.parametrize(
    ("lang", "model"), [("zh", "english"), ("zh", "shipped"), ("en", "shipped")]
)
async def test_the_example_text_follows_the_model_s_vocabulary(
    make_app: Callable[..., TutorApp], hf_dir: Path, lang: str, model: str
) -> None:
    # The English-only model reads 猫和狗都喜欢吃鱼 as [UNK]s: it gets the English example;
    # the shipped model reads both, and each interface keeps its own.
    from tutor.tui.screens.explore import DEFAULT_TEXT

    app = make_app(start_explore=True, model_dir=hf_dir if model == "english" else None, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = app.screen.query_one("#text", Input).value
        assert shown == (DEFAULT_TEXT["en"] if model == "english" else DEFAULT_TEXT[lang])
        if model == "english":  # the tokens shown are the example's
            assert "'cat'" in text_of(app, "#tokens") and "'dog'" in text_of(app, "#tokens")
