"""The learner's path stays light: the core never pulls textual or torch, `--help` nothing."""

import json
import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_core_and_content_import_neither_textual_nor_torch():
    loaded = _modules_after("import tutor.core, tutor.content")
    assert "textual" not in loaded
    assert "torch" not in loaded


def test_help_imports_nothing_heavy():
    code = (
        "import sys\nfrom tutor.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
    )
    loaded = _modules_after(code)
    for heavy in ("textual", "torch", "numpy", "tokenizers", "safetensors"):
        assert heavy not in loaded, heavy


def test_the_progress_layer_imports_neither_textual_nor_postgresql_for_sqlite():
    code = (
        "import tempfile, pathlib\nfrom tutor.progress.opening import open_store\n"
        "open_store('ada', pathlib.Path(tempfile.mkdtemp())).visit_page('embedding', 1)"
    )
    loaded = _modules_after(code)
    for heavy in ("textual", "psycopg", "torch"):
        assert heavy not in loaded, heavy
