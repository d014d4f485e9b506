"""Lesson pages under `--model DIR`: they say which model their prose describes, and the
lookup's real-scale view measures the opened model instead of quoting Qwen3.8."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import LESSON, page_with
from tests.unit.hf_fixture import CONVENTIONS, write_hf_model
from tests.waits import settle
from tutor.tui.app import TutorApp
from tutor.tui.widgets.lookup import LookupDemo

GPT2 = next(c for c in CONVENTIONS if c.name == "gpt2")


@pytest.fixture
def hf_dir(tmp_path: Path) -> Path:
    return write_hf_model(tmp_path / "tiny-gpt2", GPT2, vocab=300, dim=12)


async def test_pages_say_their_prose_is_about_the_shipped_model(
    make_app: Callable[..., TutorApp], hf_dir: Path
) -> None:
    app = make_app(model_dir=hf_dir, start_lesson=LESSON, start_page=page_with("lookup"), lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        note = str(app.screen.query_one(".model-note").render())
        vocab, dim = app.ctx.fact_text("model.vocab_size"), app.ctx.fact_text("model.d")
        assert f"shipped project model (V = {vocab}, d = {dim})" in note
        assert "the model you opened, tiny-gpt2" in note
        assert "Its “before training” table is re-created from config" in note

        demo = app.screen.query_one(LookupDemo)
        demo.query_one("#scale").focus()
        await pilot.press("s")
        await settle(pilot)
        reading = demo.plain_text()
        assert "The shapes of the model you opened, tiny-gpt2 (measured on it)" in reading
        tokens = demo.table.model_shape[0]
        assert f"E [300 × 12] = vectors [{tokens} × 12]" in reading
        assert "Qwen3.8" not in reading


async def test_without_model_the_real_scale_is_qwen_s_and_no_note(
    make_app: Callable[..., TutorApp],
) -> None:
    app = make_app(start_lesson=LESSON, start_page=page_with("lookup"), lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query(".model-note")
        demo = app.screen.query_one(LookupDemo)
        demo.query_one("#scale").focus()
        await pilot.press("s")
        await settle(pilot)
        assert "Qwen3.8's real shapes (cited figures)" in demo.plain_text()
