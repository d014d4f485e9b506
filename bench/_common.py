"""What every benchmark shares: the --quick flag, the machine record, statistics, memory.

The machine is shared and noisy, so every script records the load average it started
under next to its figures, and compares side by side in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyte

REPO = Path(__file__).resolve().parents[1]
MB = 1024 * 1024


def make_parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser with the --quick flag every benchmark takes; scripts may add their own."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the smoke test")
    return parser


def parse_args(doc: str | None, argv: Sequence[str] | None = None) -> argparse.Namespace:
    return make_parser(doc).parse_args(argv)


def machine() -> dict[str, object]:
    """Where, on what code and under what load the figures were taken."""
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "source": source(),
    }


def tutor_root() -> Path:
    """The checkout `import tutor` finds (PYTHONPATH may point at another one than REPO).

    Subprocesses that run `python -m tutor` start there, so they run the same tutor.
    """
    import tutor

    return Path(tutor.__file__).resolve().parents[1]


def source() -> dict[str, object]:
    """The checkout measured: its commit, and whether the product's files differ from it."""
    root = tutor_root()
    git = ["git", "-C", str(root)]
    try:
        commit = subprocess.run(
            [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            [*git, "status", "--porcelain", "--", "tutor", "content", "assets"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"path": str(root), "commit": None}
    return {"path": str(root), "commit": commit, "uncommitted_changes": bool(changed)}


def emit(result: dict[str, object]) -> None:
    """The one JSON object a benchmark prints on stdout."""
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def p95(values: Sequence[float]) -> float:
    """Nearest-rank 95th percentile: a value that was really measured."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def summary_ms(seconds: Sequence[float]) -> dict[str, float | int]:
    """Median, p95 and max in milliseconds, and how many samples they summarise."""
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(p95(ms), 2),
        "max_ms": round(max(ms), 2),
    }


def proc_status(pid: int | str = "self") -> dict[str, int]:
    """The kB fields of /proc/PID/status (VmRSS, VmHWM, RssAnon, RssFile, ...), in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        parts = value.split()
        if len(parts) == 2 and parts[1] == "kB":
            fields[name] = int(parts[0]) * 1024
    return fields


def reset_peak_rss() -> None:
    """Start a new VmHWM high-water mark here (Linux: write 5 to clear_refs)."""
    Path("/proc/self/clear_refs").write_text("5")


def screen_lines(screen: pyte.Screen) -> list[str]:
    """A pyte screen's rows as text; a wide character's second cell is "".

    Used instead of `Screen.display`, which raises IndexError on such an empty cell when
    it does not follow a wide character (pyte 0.8.2).
    """
    buffer = screen.buffer
    return ["".join(buffer[y][x].data for x in range(screen.columns)) for y in range(screen.lines)]


def mb(n_bytes: float) -> float:
    return round(n_bytes / MB, 1)
