"""The teacher's report: how long it takes for a class, and whether learners notice it.

A class of learners (every page visited, every question answered, a summary) is written
to a fresh SQLite progress file (or the PostgreSQL database given with --database). Then:
- the report's time (read the class, build it), median of several runs;
- one learner's write latency (a page visit: what every page turn costs) measured in
  rounds that alternate between "nobody reads" and "a report runs over and over in
  another process", so both sides see the same machine load.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, machine, make_parser, summary_ms

WRITER = """
import json, sys, time
from pathlib import Path
from tutor.progress.opening import open_store
where = json.loads(sys.argv[1])
if "data_dir" in where:
    where["data_dir"] = Path(where["data_dir"])
store = open_store("bench-writer", **where)
times = []
for n in range(int(sys.argv[2])):
    start = time.perf_counter()
    store.visit_page("embedding", n % 16 + 1)
    times.append(time.perf_counter() - start)
    time.sleep(0.005)
print(json.dumps(times))
"""

READER = """
import sys
from pathlib import Path
from tutor.progress.classview import read_class
where = {"data_dir": Path(sys.argv[1])} if sys.argv[2] == "-" else {"database": sys.argv[2]}
print("ready", flush=True)
while True:
    read_class(**where)
"""


def fill(where: dict[str, object], learners: int) -> None:
    from tutor.progress.opening import open_store

    for n in range(learners):
        store = open_store(f"SHA256:learner{n:04d}", **where)  # type: ignore[arg-type]
        for page in range(1, 17):
            store.visit_page("embedding", page)
        for question, answer in (("close-ids", 1), ("table-facts", [0, 1]), ("renumber", 2)):
            store.record_attempt("embedding", question, answer, n % 3 == 0)
        store.record_attempt("embedding", "onehot-distance", "1.41", True)
        store.record_attempt("embedding", "explain-embedding", "ID 只是行号，查表得到向量", True)
        store.submit_summary("embedding", {"understanding": "ID 只是行号" * 5})
        store.close()


def time_report(where: dict[str, object], runs: int) -> list[float]:
    from tutor.content import load_lessons
    from tutor.core.paths import content_dir
    from tutor.progress.classview import read_class
    from tutor.progress.report import class_report

    lessons = load_lessons(content_dir()).lessons
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        class_report(lessons, read_class(**where), {}, "bench")  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    return times


def writes(where: dict[str, object], count: int, reading: bool) -> list[float]:
    arguments = json.dumps({key: str(value) for key, value in where.items()})
    reader = None
    if reading:
        place = ["-", where["database"]] if "database" in where else [where["data_dir"], "-"]
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, *map(str, place)], stdout=subprocess.PIPE, text=True
        )
        assert reader.stdout is not None and reader.stdout.readline().strip() == "ready"
    try:
        done = subprocess.run(
            [sys.executable, "-c", WRITER, arguments, str(count)],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        if reader is not None:
            reader.kill()
            reader.wait()
    return json.loads(done.stdout)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--database", metavar="URL", help="a PostgreSQL database to fill")
    args = parser.parse_args()
    learners, rounds, per_round = (5, 2, 20) if args.quick else (200, 6, 100)
    with tempfile.TemporaryDirectory() as tmp:
        where: dict[str, object] = (
            {"database": args.database} if args.database else {"data_dir": Path(tmp)}
        )
        fill(where, learners)
        report_times = time_report(where, 3 if args.quick else 5)
        alone: list[float] = []
        beside: list[float] = []
        for n in range(rounds):  # alternate, so load drifts hit both sides alike
            first_reading = n % 2 == 1
            for reading in (first_reading, not first_reading):
                (beside if reading else alone).extend(writes(where, per_round, reading))
    emit(
        {
            "benchmark": "report",
            "quick": args.quick,
            "machine": machine(),
            "backend": "postgresql" if args.database else "sqlite",
            "learners": learners,
            "report": summary_ms(report_times),
            "page_visit_write_alone": summary_ms(alone),
            "page_visit_write_while_reports_run": summary_ms(beside),
            "p95_ratio_while_reports_run": round(
                summary_ms(beside)["p95_ms"] / summary_ms(alone)["p95_ms"], 2
            ),
        }
    )


if __name__ == "__main__":
    main()
