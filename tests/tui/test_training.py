"""The training-run scrubber on page 8: keys move through the recorded checkpoints and the
heatmap, neighbours, losses and contrast shown are the recorded run's own numbers."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.tui.conftest import LESSON, page_with
from tests.tui.live_runs import tiny_corpus, until
from tests.waits import settle
from tutor.core import live, trajectory
from tutor.core.figures import significant
from tutor.core.model import open_model
from tutor.core.paths import default_model_dir
from tutor.core.projection import run_map
from tutor.core.similarity import similarity
from tutor.tui.app import TutorApp
from tutor.tui.widgets.training import RunView, StepGrid, StepMap, StepPlot, TrainingRun
from tutor.words import i18n

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)


async def _focused_run(pilot) -> TrainingRun:
    await settle(pilot)
    run = pilot.app.screen.query_one(TrainingRun)
    run.focus()
    await settle(pilot)
    return run


async def test_keys_move_through_the_recorded_checkpoints(
    make_app: Callable[..., TutorApp],
) -> None:
    recorded = trajectory.load(default_model_dir())
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        assert widget.view.step == 0
        await pilot.press("left")  # already at the first checkpoint: stays
        assert widget.index == 0
        await pilot.press("right", "right")
        await settle(pilot)
        assert widget.view.step == recorded.steps[2]
        assert widget.view.val_loss == recorded.meta.val_loss[2]
        await pilot.press("end")
        await settle(pilot)
        assert widget.view.step == recorded.steps[-1]
        await pilot.press("right")
        assert widget.index == len(recorded.steps) - 1
        await pilot.press("home")
        await settle(pilot)
        assert widget.view.step == 0
        assert pilot.app.screen.query_one(StepPlot).index == 0


async def test_the_ends_show_the_shipped_tables_and_the_contrast_grows(
    make_app: Callable[..., TutorApp],
) -> None:
    model = open_model()
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(120, 40)) as pilot:
        widget = await _focused_run(pilot)
        tokens = list(widget.config.tokens)
        _, before = similarity(model, tokens, "before")
        assert np.allclose(widget.view.matrix, before)
        first = widget.view.contrast
        await pilot.press("end")
        await settle(pilot)
        _, after = similarity(model, tokens, "after")
        assert np.allclose(widget.view.matrix, after)
        assert widget.view.contrast > first + 0.2
        text = widget.plain_text()
        assert f"{widget.view.contrast:+.3f}" in text
        assert f"{first:+.3f}" in text  # the chance level stays beside it
        count = len(trajectory.load(default_model_dir()).tokens)
        assert f"记录下的 {count} 个 token" in text


async def test_a_model_without_a_recorded_run_says_so(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    model_dir = tmp_path / "model"
    shutil.copytree(default_model_dir(), model_dir)
    (model_dir / trajectory.META_FILE).unlink()
    app = make_app(model_dir=model_dir, start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        await pilot.press("right", "end", "home")
        await settle(pilot)
        assert widget.run is None
        assert "没有记录训练过程" in widget.plain_text()


async def test_a_live_run_streams_checkpoints_and_keeps_its_model(
    make_app: Callable[..., TutorApp], tmp_path: Path, monkeypatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv(live.CORPUS_ENV, str(tiny_corpus(tmp_path)))
    torch_before = "torch" in sys.modules
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        recorded = widget.run
        await pilot.press("w", "w", "w", "s", "s", "s")  # d = 8, 20 steps
        assert (live.WIDTHS[widget.width_choice], live.STEPS[widget.steps_choice]) == (8, 20)
        await pilot.press("enter")
        assert widget.live is not None
        await until(pilot, lambda: widget.live is None)
        await settle(pilot)
        assert "训练完成" in widget.live_note, widget.live_note
        assert widget.run is not recorded
        assert [v.step for v in widget.run.views] == trajectory.checkpoint_steps(20)
        assert widget.view.step == 20  # it followed the newest checkpoint
        await pilot.press("home")
        await settle(pilot)
        assert widget.view.step == 0
        out = Path(widget.live_note.split("保存在 ")[1].split("；")[0])
        kept = open_model(out)
        assert kept.table("after").dim == 8
        saved = trajectory.load(out)
        assert saved.rows.shape[1:] == (len(saved.tokens), 8)
        assert saved.meta.val_loss == [v.val_loss for v in widget.run.views]
        # the map followed the run: one plane refitted on all of its checkpoints
        mapped = widget.run.map
        assert mapped is not None and widget.query_one(StepMap).run is widget.run
        assert widget.run.pairs == [("男人", "女人")]
        refit = run_map(saved, mapped.tokens, widget.run.pairs)
        assert np.allclose(mapped.points, refit.points, atol=1e-5)
        await pilot.press("b")
        await settle(pilot)
        assert widget.run is recorded
    if not torch_before:
        assert "torch" not in sys.modules  # the run trained in its own process


async def test_cancel_ends_the_run_and_saves_nothing(
    make_app: Callable[..., TutorApp], tmp_path: Path, monkeypatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv(live.CORPUS_ENV, str(tiny_corpus(tmp_path)))
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        await pilot.press("w", "w", "w", "s", "s")  # d = 8, 1,000 steps
        await pilot.press("enter")
        run = widget.live
        assert run is not None
        await until(pilot, lambda: widget.run is not widget.recorded)
        await pilot.press("x")
        await settle(pilot)
        assert widget.live is None
        assert not run.running
        assert "已取消" in widget.live_note
        assert not run.out.exists()


async def test_served_sessions_train_only_when_the_admin_allows(
    make_app: Callable[..., TutorApp], monkeypatch
) -> None:
    monkeypatch.setenv(live.REMOTE_ENV, "1")
    monkeypatch.delenv(live.ENABLED_ENV, raising=False)
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert widget.live is None
        assert "--live-training" in widget.live_note
        assert "管理员" in widget.live_note  # said in the learner's language
        assert "is off on this server" not in widget.live_note


def test_without_torch_the_key_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.delenv(live.REMOTE_ENV, raising=False)
    monkeypatch.setattr(live.importlib.util, "find_spec", lambda name: None)
    reason = live.why_not()
    assert reason is not None and reason.code == "no_torch"
    assert "pip install 'embedding-tutor[train]'" in str(reason)
    said = i18n.t("train.why.no_torch", "zh")
    assert "pip install 'embedding-tutor[train]'" in said and "needs torch" not in said


def test_a_limit_that_is_not_a_number_means_off() -> None:
    served = {live.REMOTE_ENV: "1"}
    for limit in ("yes", "-3"):
        reason = live.why_not({**served, live.ENABLED_ENV: limit})
        assert reason is not None and reason.code == "off_here"
        assert "--live-training" in str(reason)
    assert live.why_not({**served, live.ENABLED_ENV: "2"}) is None


def test_a_server_runs_at_most_its_limit_at_once(tmp_path: Path) -> None:
    env = {live.REMOTE_ENV: "1", live.ENABLED_ENV: "2", live.SLOTS_ENV: str(tmp_path / "s")}
    first, second = live.Slot(env), live.Slot(env)
    with pytest.raises(live.SlotBusy, match="all 2 live training runs") as busy:
        live.Slot(env)
    assert (busy.value.code, busy.value.values) == ("slots_busy", {"limit": 2})
    assert (
        i18n.t("train.why.slots_busy", "zh", limit=2)
        == "这台服务器同时只能跑 2 次训练，现在都在跑；过几分钟再试。"
    )
    first.release()
    third = live.Slot(env)  # a finished run frees its slot
    second.release()
    third.release()


def test_a_run_whose_app_is_gone_ends_at_once(tmp_path: Path) -> None:
    """The run compares its parent with the pid the app gave, not with 1: an app may be the
    first process of its container (pid 1), and a run must still start under it."""
    command = [sys.executable, "-m", "tutor.commands.train_live", "--d", "8", "--steps", "20"]
    command += ["--out", str(tmp_path / "run"), "--model", str(tmp_path)]
    gone = subprocess.run([*command, "--parent", str(os.getpid() + 1)], capture_output=True)
    assert (gone.returncode, gone.stdout, gone.stderr) == (1, b"", b"")  # ended at once
    ours = subprocess.run([*command, "--parent", str(os.getpid())], capture_output=True)
    assert ours.stdout or ours.stderr  # went on, as far as the model that is not there


def test_a_run_given_no_model_ends_in_one_line_and_says_why(tmp_path: Path) -> None:
    """No traceback: one line on stderr, a non-zero status, and the reason as a message
    with its code, which the app says in the learner's language."""
    missing = tmp_path / "no-model"
    command = [sys.executable, "-m", "tutor.commands.train_live", "--d", "8", "--steps", "20"]
    command += ["--out", str(tmp_path / "run"), "--model", str(missing)]
    done = subprocess.run([*command, "--parent", str(os.getpid())], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr == f"train_live: error: model directory not found: {missing}\n"
    (line,) = done.stdout.splitlines()
    failed = live.Failed.model_validate_json(line)
    assert (failed.code, failed.values) == ("model_not_found", {"path": str(missing)})

    from tutor.tui.widgets.training import why_failed
    from tutor.words.i18n import Speaker

    assert why_failed(Speaker("zh"), failed) == f"模型打不开：找不到模型文件夹 {missing}"
    assert why_failed(Speaker("en"), live.Failed(message="the process ended (exit 9)")) == (
        "the process ended (exit 9)"
    )


def test_runs_are_kept_per_learner_beside_the_progress_file_a_guests_in_its_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tutor.progress.sqlite import SqliteStore
    from tutor.tui.context import TutorContext

    key = "SHA256:19YN/ab+cd"
    kept = TutorContext("zh", SqliteStore(key, tmp_path)).runs_dir()
    assert kept == tmp_path / "runs" / "SHA256:19YN_ab+cd"
    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path / "scratch"))
    guest = TutorContext("zh", SqliteStore("guest", guest=True)).runs_dir()
    assert guest == tmp_path / "scratch" / "runs" / "guest"


def test_a_learner_folder_never_leaves_the_runs_folder() -> None:
    for hostile in ("../../etc", "a/../../b", "", ".", "x" * 300, "名字", "a\x1b[2J"):
        name = live.learner_folder(hostile)
        assert "/" not in name and name not in ("", ".", "..") and len(name) <= 100
    assert live.learner_folder("a/..") != live.learner_folder("a_..")


def test_a_learners_runs_are_capped_oldest_removed_first(tmp_path: Path) -> None:
    for n in range(live.MAX_KEPT_RUNS + 2):
        live.make_room(tmp_path)
        run = tmp_path / f"run-{n}"
        run.mkdir()
        os.utime(run, (1_000_000 + n, 1_000_000 + n))
    kept = sorted(int(path.name.split("-")[1]) for path in tmp_path.iterdir())
    assert kept == list(range(2, live.MAX_KEPT_RUNS + 2))


async def test_the_plot_never_writes_minus_zero(make_app: Callable[..., TutorApp]) -> None:
    """At step 0 the contrast is about zero: plotext's own right-axis labels said -0.00."""
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        plot = widget.query_one(StepPlot)
        for index in (0, len(widget.run.steps) - 1):
            lines = plot.picture(widget.run, index, 70, 9).plain.splitlines()
            labels = [line.rsplit("├")[-1].strip() for line in lines if "├" in line]
            assert "0.0" in labels
            assert not [label for label in labels if label.startswith("-") and not float(label)]


def test_a_run_killed_from_outside_is_said_in_the_learners_language(tmp_path: Path) -> None:
    """A run that dies without a word (killed, out of memory) ends with a coded failure:
    its exit status in the learner's sentence, not the English one."""
    import queue
    import signal

    from tutor.tui.widgets.training import why_failed
    from tutor.words.i18n import Speaker

    messages: queue.Queue[object] = queue.Queue()
    run = live.LiveRun(8, 1000, tmp_path / "run", default_model_dir(), messages.put)
    assert isinstance(messages.get(timeout=120), live.Started)
    os.kill(run._process.pid, signal.SIGKILL)
    failed = messages.get(timeout=120)
    while not isinstance(failed, live.Failed):
        failed = messages.get(timeout=120)
    assert (failed.code, failed.values["exit"]) == ("child_ended", -9)
    said = why_failed(Speaker("zh"), failed)
    assert "-9" in said and "training process" not in said
    assert "-9" in why_failed(Speaker("en"), failed)


async def test_a_served_run_that_fails_names_no_server_path(
    make_app: Callable[..., TutorApp], data_dir: Path, monkeypatch
) -> None:
    """A run whose folder cannot be made fails with an OSError that names it; a served
    learner reads that it failed on the server, not the server's path."""
    pytest.importorskip("torch")
    monkeypatch.setenv(live.REMOTE_ENV, "1")
    monkeypatch.setenv(live.ENABLED_ENV, "1")
    monkeypatch.setenv(live.SLOTS_ENV, str(data_dir / "slots"))
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "runs").write_text("a file where the runs folder goes")
    app = make_app(start_lesson=LESSON, start_page=page_with("training"), remote=True)
    async with app.run_test(size=(80, 24)) as pilot:
        widget = await _focused_run(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: widget.live is None)
        await settle(pilot)
        assert "没能完成" in widget.live_note, widget.live_note
        assert str(data_dir) not in widget.live_note and "/" not in widget.live_note
        assert "告诉老师" in widget.live_note


def _axis_ticks(picture: str) -> tuple[list[tuple[int, float]], list[tuple[int, float]], str]:
    """The (row, value) of every labelled tick on the plot's left and right axes, read
    back from its text, and the x axis's labels line."""
    left, right = [], []
    lines = picture.splitlines()
    for row, line in enumerate(lines):
        if "┤" in line and line.split("┤")[0].strip():
            left.append((row, float(line.split("┤")[0])))
        if "├" in line and line.rsplit("├")[-1].strip():
            right.append((row, float(line.rsplit("├")[-1])))
    return left, right, lines[-1]


def _evenly_spaced(ticks: list[tuple[int, float]]) -> bool:
    """Rows and values both in equal steps (within float error), at least three ticks."""
    rows = [r for r, _ in ticks]
    values = [v for _, v in ticks]
    row_steps = {b - a for a, b in itertools.pairwise(rows)}
    value_steps = [b - a for a, b in itertools.pairwise(values)]
    return (
        len(ticks) >= 3
        and len(row_steps) == 1
        and max(value_steps) - min(value_steps) < 1e-9 * max(1.0, abs(max(value_steps)))
    )


async def test_the_plot_axes_tick_at_true_evenly_spaced_values(
    make_app: Callable[..., TutorApp],
) -> None:
    """The left axis skipped a value (8.5 7.4 6.2 4.0), the right one was not linear and
    read 0.00 on every tick early in a run, and the last step had no label."""
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=(120, 40)) as pilot:
        widget = await _focused_run(pilot)
        run = widget.run
        plot = widget.query_one(StepPlot)
        early = RunView(run.views[:3], run.total_steps, run.uniform_loss, run.recorded_tokens, [])
        for shown, index in ((run, 0), (run, len(run.views) - 1), (early, 2)):
            left, right, xs = _axis_ticks(plot.picture(shown, index, 70, 9).plain)
            assert _evenly_spaced(left), left
            assert _evenly_spaced(right), right
            values = [v.val_loss for v in shown.views]
            contrasts = [v.contrast for v in shown.views]
            assert left[-1][1] <= min(values) and left[0][1] >= max(values)
            assert right[-1][1] <= min(contrasts) and right[0][1] >= max(contrasts)
            assert f"{run.total_steps:,}" in xs.split()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_map_follows_the_scrubber_beside_or_below_the_heatmap(
    make_app: Callable[..., TutorApp], size: tuple[int, int]
) -> None:
    """The map shows the checkpoint the scrubber is on, on the run's one plane: beside
    the heatmap at 120 columns, below it at 80; the names' 他→她 cosine with 男人→女人 is
    said beside its chance level and grows from noise to well beyond it."""
    app = make_app(start_lesson=LESSON, start_page=page_with("training"))
    async with app.run_test(size=size) as pilot:
        widget = await _focused_run(pilot)
        grid, picture = widget.query_one(StepGrid), widget.query_one(StepMap)
        beside = picture.region.x >= grid.region.right
        assert beside == (size[0] == 120)
        assert beside or picture.region.y >= grid.region.bottom
        first = picture.lines(picture.size.width, picture.size.height)
        await pilot.press("end")
        await settle(pilot)
        assert picture.index == widget.index == len(widget.run.views) - 1
        last = picture.lines(picture.size.width, picture.size.height)
        assert [s.text for s in first] != [s.text for s in last]
        text = "\n".join(s.text for s in last)
        for mark in ("男人", "女人", "明", "红", "李"):
            assert mark in text
        start, end = widget.run.views[0].agreement, widget.view.agreement
        assert abs(start.cosine) < 3 * start.chance_sd < end.cosine / 3
        assert f"{significant(end.cosine, 2)}" in widget.plain_text()


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_served_page_names_the_model_it_opened_by_its_folder_not_its_path(
    make_app: Callable[..., TutorApp], tmp_path: Path, lang: str
) -> None:
    """A class served with `--model DIR` whose model has no recorded run: the learner read
    the server's path to it (`/srv/… has no trajectory.json …`); locally the path stays."""
    from tests.unit.hf_fixture import write_word_start_model

    model_dir = write_word_start_model(tmp_path / "on-the-server" / "gpt2-small", "byte")
    for remote in (True, False):
        app = make_app(
            start_lesson=LESSON,
            start_page=page_with("training"),
            model_dir=model_dir,
            lang=lang,
            remote=remote,
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            said = app.screen.query_one(TrainingRun).plain_text()
        assert "gpt2-small" in said and "trajectory.json" in said
        assert ("on-the-server" in said) is not remote, said
