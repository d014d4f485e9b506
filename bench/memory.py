"""Memory: peak RSS at the first screen, and after walking every page of the course,
against a bare app.

Each measurement is a fresh process (this script re-run with --child) that runs the app
headless at 80x24 with a Pilot auto-pilot: it waits until the first screen is settled
(messages handled, workers done) and reads VmHWM, the kernel's peak RSS; the tutor then
opens the first lesson and presses n through every page of every lesson (the last page's
n opens the next lesson), settling on each, without training,
and reads VmHWM again. The tutor runs on the shipped defaults with a fresh TUTOR_DATA_DIR;
torch must never be imported on the way.

Each page also has its own passing peak: VmHWM is started afresh (clear_refs) before the
key that turns to it and read once it settled, so a peak is found on the page whose build
or workers made it, not only as the walk's one highest figure (their maximum).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from _common import REPO, emit, machine, make_parser, mb, proc_status, reset_peak_rss

SIZE = (80, 24)
if TYPE_CHECKING:
    from textual.pilot import Pilot

HEAVY_MODULES = ("torch", "numpy", "tokenizers", "safetensors", "pydantic", "ruamel.yaml")


async def settle(pilot: Pilot[None]) -> None:
    """Messages handled and workers finished, twice: a worker's answer may start another."""
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def child(kind: str, pages: int | None) -> dict[str, object]:
    """Run one app in this process and measure it; `pages` None = the whole course."""
    out: dict[str, object] = {}

    async def walk(pilot: Pilot[None]) -> None:
        app = pilot.app
        await settle(pilot)
        status = proc_status()
        out["first_screen_peak_rss"] = status["VmHWM"]
        out["first_screen_rss"] = status["VmRSS"]
        if kind == "tutor":
            peak = status["VmHWM"]  # the walk's: the highest of every stretch's own
            reset_peak_rss()
            await pilot.press("enter")  # the first lesson of the course; n on a lesson's
            walked = []  # last page opens the next one, so the walk covers every lesson
            total = sum(len(lesson.pages) for lesson in app.lessons)
            for _ in range(total if pages is None else min(pages, total)):
                await settle(pilot)
                screen = app.screen
                where = {"lesson": screen.lesson.id, "page": screen.page.number}
                status = proc_status()
                walked.append({**where, "rss": status["VmRSS"], "peak": status["VmHWM"]})
                peak = max(peak, status["VmHWM"])
                reset_peak_rss()
                await pilot.press("n")
            await settle(pilot)
            status = proc_status()
            out["walk_peak_rss"] = max(peak, status["VmHWM"])
            out["walk_rss"] = status["VmRSS"]
            out["pages"] = walked
            out["lesson_pages"] = total
        app.exit()

    if kind == "bare":
        from bare_app import BareApp

        app = BareApp()
    else:
        from tutor.cli import build_parser
        from tutor.commands.app import build

        # exactly what `tutor` starts (gc off until after the first screen, the progress
        # file opened during the import); TUTOR_DATA_DIR is the fresh data dir
        app = build(build_parser().parse_args([]))
    app.run(headless=True, size=SIZE, auto_pilot=walk)
    out["modules_loaded"] = [name for name in HEAVY_MODULES if name in sys.modules]
    out["torch_imported"] = "torch" in sys.modules
    return out


def run_child(kind: str, pages: int | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as data_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "TUTOR_"))}
        env["TUTOR_DATA_DIR"] = data_dir
        argv = [sys.executable, __file__, "--child", kind]
        if pages is not None:
            argv += ["--pages", str(pages)]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main(argv: Sequence[str] | None = None) -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--child", choices=("bare", "tutor"), help=argparse.SUPPRESS)
    parser.add_argument("--pages", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        json.dump(child(args.child, args.pages), sys.stdout)
        return
    info = machine()
    runs = 1 if args.quick else 3
    pages = 2 if args.quick else None
    bare, tutor = [], []
    for _ in range(runs):
        bare.append(run_child("bare", None))
        tutor.append(run_child("tutor", pages))

    def median_mb(runs: list[dict[str, object]], key: str) -> float:
        return mb(statistics.median(int(r[key]) for r in runs))  # type: ignore[call-overload]

    bare_first = median_mb(bare, "first_screen_peak_rss")
    tutor_first = median_mb(tutor, "first_screen_peak_rss")
    walk_peak = median_mb(tutor, "walk_peak_rss")
    ratio = tutor_first / bare_first
    last = tutor[-1]
    emit(
        {
            "benchmark": "memory",
            "machine": info,
            "quick": args.quick,
            "method": "fresh process per run, headless 80x24, Pilot auto-pilot; VmHWM after "
            "the first screen settles and after pressing n through every lesson of the course",
            "runs_each": runs,
            "bare_first_screen_peak_mb": bare_first,
            "tutor_first_screen_peak_mb": tutor_first,
            "ratio_first_screen": round(ratio, 3),
            "tutor_walk_peak_mb": walk_peak,
            "tutor_walk_rss_mb": median_mb(tutor, "walk_rss"),
            "pages_walked": len(last["pages"]),  # type: ignore[arg-type]
            "lesson_pages": last["lesson_pages"],
            "rss_mb_per_page": {f"{p['lesson']}:{p['page']}": mb(p["rss"]) for p in last["pages"]},  # type: ignore[index]
            "peak_mb_per_page": {
                f"{p['lesson']}:{p['page']}": mb(p["peak"]) for p in last["pages"]
            },  # type: ignore[index]
            "modules_loaded": last["modules_loaded"],
            "torch_imported": any(r["torch_imported"] for r in tutor),
            "targets": {"ratio_first_screen": 1.5, "walk_peak_mb": 100},
            "target_met": {
                "ratio_first_screen": ratio <= 1.5,
                "walk_peak_mb": walk_peak <= 100,
                "torch_not_imported": not any(r["torch_imported"] for r in tutor),
            },
        }
    )


if __name__ == "__main__":
    main()
