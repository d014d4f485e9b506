"""A learner's live training run: peak memory, wall time and folder size of one run.

Runs the process the app starts on Enter (`python -m tutor.commands.train_live`) on the
project corpus and model, once per (d, steps) asked for, one after another, and reads its
peak RSS from the kernel (the run's own process; torch is imported there). What a teacher
needs to size `tutor serve --live-training N`. `--quick`: only d = 8, 20 steps.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import emit, machine, make_parser, mb

from tutor.core.live import STEPS, WIDTHS
from tutor.core.paths import default_model_dir

RUN_TIMEOUT_S = 1800


def one_run(d: int, steps: int) -> dict[str, object]:
    """One run in a fresh process; its own peak RSS, as the kernel reports it on reaping."""
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as folder:
        out = Path(folder) / "run"
        begin = time.perf_counter()
        run = subprocess.Popen(
            [sys.executable, "-m", "tutor.commands.train_live", "--d", str(d),
             "--steps", str(steps), "--out", str(out), "--model", str(default_model_dir()),
             "--parent", str(os.getpid())],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        pid, status, usage = os.wait4(run.pid, os.WNOHANG)
        while pid == 0:
            if time.perf_counter() - begin > RUN_TIMEOUT_S:
                run.kill()
            time.sleep(0.1)
            pid, status, usage = os.wait4(run.pid, os.WNOHANG)
        run.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        seconds = time.perf_counter() - begin
        size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    return {
        "d": d,
        "steps": steps,
        "exit": run.returncode,
        "seconds": round(seconds, 1),
        "peak_rss_mb": mb(usage.ru_maxrss * 1024),
        "run_folder_mb": mb(size),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--d", type=int, nargs="+", choices=WIDTHS, default=[8, 64])
    parser.add_argument("--steps", type=int, nargs="+", choices=STEPS, default=[20, 1000])
    args = parser.parse_args(argv)
    info = machine()
    runs = [(8, 20)] if args.quick else list(zip(args.d, args.steps, strict=True))
    emit(
        {
            "benchmark": "live_run",
            "machine": info,
            "quick": args.quick,
            "runs": [one_run(*run) for run in runs],
        }
    )


if __name__ == "__main__":
    main()
