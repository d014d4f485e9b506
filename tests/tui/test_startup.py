"""What the first screen costs: which modules a start imports (in a fresh interpreter).

The home screen is drawn from the content cache with json alone; pydantic, ruamel.yaml,
the tokenizers, numpy and the page screens load when a lesson page first opens. No wall
clock here: the benchmarks in bench/ measure time, these tests keep the imports honest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HEAVY = ("numpy", "tokenizers", "safetensors", "torch", "pydantic", "ruamel.yaml")
LATER = ("markdown_it", "tutor.tui.screens.page", "tutor.content.models", "tutor.content.loader")
TUI = Path(__file__).resolve().parents[2] / "tutor" / "tui"

# these tests are about the cache and a first start: they begin with an empty cache dir
pytestmark = pytest.mark.cold_cache


def run(code: str, cache_dir: Path, data_dir: Path) -> dict[str, object]:
    env = {**os.environ, "TUTOR_CACHE_DIR": str(cache_dir), "TUTOR_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_app_loads_no_engine_and_no_page() -> None:
    loaded = run(
        f"""
        import json, sys
        import tutor.tui.app
        print(json.dumps([m for m in {HEAVY + LATER!r} if m in sys.modules]))
        """,
        Path("unused"),
        Path("unused"),
    )
    assert loaded == []


def test_no_tui_module_imports_numpy_or_tokenizers() -> None:
    modules = sorted(
        ".".join(path.relative_to(TUI.parents[1]).with_suffix("").parts)
        for path in TUI.rglob("*.py")
        if path.name != "__init__.py"
    )
    loaded = run(
        f"""
        import importlib, json, sys
        for name in {modules!r}:
            importlib.import_module(name)
        print(json.dumps([m for m in ("numpy", "tokenizers", "torch") if m in sys.modules]))
        """,
        Path("unused"),
        Path("unused"),
    )
    assert loaded == []


HOME = """
    import json, sys
    from pathlib import Path
    from tutor.core.paths import content_dir
    from tutor.tui.app import TutorApp

    seen = {}

    async def look(pilot):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        seen["screen"] = type(screen).__name__
        seen["text"] = screen.plain_text()
        seen["loaded"] = [m for m in %r if m in sys.modules]
        pilot.app.exit()

    TutorApp(content_dir(), learner="ada", animate=False).run(
        headless=True, size=(80, 24), auto_pilot=look
    )
    print(json.dumps(seen))
"""


def test_the_home_screen_lists_the_lessons_from_a_warm_cache_alone(tmp_path: Path) -> None:
    from tests.tui.conftest import shipped_lesson

    title = shipped_lesson().card.title
    code = HOME % (HEAVY + LATER,)
    cold = run(code, tmp_path / "cache", tmp_path / "data")  # fills the cache
    assert cold["screen"] == "HomeScreen"
    assert title in str(cold["text"])
    warm = run(code, tmp_path / "cache", tmp_path / "data")
    assert warm["screen"] == "HomeScreen"
    assert warm["text"] == cold["text"]
    assert warm["loaded"] == []


COMMAND = """
    import gc, json
    from tutor.cli import main
    from tutor.tui.app import TutorApp

    seen = {}

    async def look(pilot):
        await pilot.pause()
        seen["collecting_at_first_screen"] = gc.isenabled()
        while not gc.get_freeze_count():  # frozen FREEZE_AFTER_S after the first screen
            await pilot.pause(0.05)
        seen["collecting_later"] = gc.isenabled()
        seen["frozen"] = gc.get_freeze_count()
        seen["learner"] = pilot.app.ctx.store.learner
        pilot.app.exit()

    run = TutorApp.run
    TutorApp.run = lambda app: run(app, headless=True, size=(80, 24), auto_pilot=look)
    main(["--learner", "ada"])
    print(json.dumps(seen))
"""


def test_tutor_starts_without_collecting_and_collects_once_the_screen_is_up(
    tmp_path: Path,
) -> None:
    """`tutor` turns collection off while Textual loads; the app turns it back on, after
    freezing what lives as long as it does. A start that left it off would grow forever."""
    seen = run(COMMAND, tmp_path / "cache", tmp_path / "data")
    assert seen["learner"] == "ada"  # the store opened on a thread reached the app
    assert seen["collecting_at_first_screen"] is False
    assert seen["collecting_later"] is True
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000


def test_a_session_that_has_everything_imported_opens_its_store_without_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store opens on a thread so that its disk wait overlaps Textual's import; a
    served session forked from its template has nothing left to import, and the thread
    only cost it CPU as ten learners connected at once."""
    import threading

    from tutor.cli import build_parser
    from tutor.commands.app import build

    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path))
    before = {thread.name for thread in threading.enumerate()}
    started: list[str] = []
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name))
    app = build(build_parser().parse_args(["--learner", "ada"]))
    assert started == [] and {t.name for t in threading.enumerate()} == before
    assert app.opening_store.result(timeout=0).learner == "ada"


def test_the_platform_cache_folder_is_looked_up_once_per_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without HOME (a served session's environment) the lookup reads the password
    database: a served session found it already looked up in its template."""
    import platformdirs

    from tutor.core import paths

    looked_up: list[str] = []
    real = platformdirs.user_cache_dir

    def user_cache_dir(*args: object, **options: object) -> str:
        looked_up.append("once")
        return real(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(platformdirs, "user_cache_dir", user_cache_dir)
    monkeypatch.delenv("TUTOR_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    first, second = paths.default_cache_dir(), paths.default_cache_dir()
    assert first == second == tmp_path / ".cache" / "embedding-tutor"
    monkeypatch.setenv("HOME", str(tmp_path / "other"))
    assert paths.default_cache_dir() == tmp_path / "other" / ".cache" / "embedding-tutor"
    assert len(looked_up) == 2


FIRST_PAGE = """
    import json, sys
    import tutor.commands.app as command
    from tutor.cli import main

    seen = {}

    async def look(pilot):
        await pilot.pause()
        await pilot.press("enter")  # the first lesson's first page: facts, hashed content
        for _ in range(3):
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
        seen["screen"] = type(pilot.app.screen).__name__
        import hashlib  # loaded already (the facts' cache key); without OpenSSL here

        seen["sha256"] = hashlib.sha256(b"tutor").hexdigest()
        seen["openssl_modules"] = [m for m in ("ssl", "_ssl", "_hashlib") if sys.modules.get(m)]
        with open("/proc/self/maps") as maps:
            seen["libcrypto_mapped"] = "libcrypto" in maps.read()
        seen["metadata_modules"] = [m for m in ("importlib.metadata", "email") if m in sys.modules]
        pilot.app.exit()

    build = command.build  # the app as `tutor` builds it, nothing imported before

    def headless(args):
        app = build(args)
        run = app.run
        app.run = lambda: run(headless=True, size=(80, 24), auto_pilot=look)
        return app

    command.build = headless
    main(["--learner", "ada"])
    print(json.dumps(seen))
"""


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps")
def test_a_learners_app_never_loads_openssl(tmp_path: Path) -> None:
    """About 4 MB of every learner's memory (tutor.tuning.without_openssl): the lesson
    page opens, asyncio runs without ssl, and SHA-256 (Python's own) gives the same digest."""
    import hashlib  # this test run's, with OpenSSL

    seen = run(FIRST_PAGE, tmp_path / "cache", tmp_path / "data")
    assert seen["screen"] == "ObjectivesScreen"
    assert seen["sha256"] == hashlib.sha256(b"tutor").hexdigest()  # Python's own, the same
    assert seen["openssl_modules"] == []
    assert seen["libcrypto_mapped"] is False


def test_a_learners_app_never_reads_the_installed_packages_for_pydantic_plugins(
    tmp_path: Path,
) -> None:
    """1.1-1.5 MB of the course walk (tutor.tuning.without_plugin_discovery): the lesson
    page opens, its models validated, and importlib.metadata was never imported."""
    seen = run(FIRST_PAGE, tmp_path / "cache", tmp_path / "data")
    assert seen["screen"] == "ObjectivesScreen"
    assert seen["metadata_modules"] == []
