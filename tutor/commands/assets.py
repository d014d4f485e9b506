"""`tutor assets build|verify`."""

from __future__ import annotations

import argparse
import sys

from tutor.core.paths import assets_dir, content_dir


def lesson_tokens() -> list[str]:
    """Every token a shipped lesson's widget looks up as one token, in lesson order: the
    rows the recorded training run must hold for the lesson to show them at every step.
    The training map's arrows (`pairs`) come last: they only draw rows already named, and
    the order decides the recording's bytes."""
    from tutor.content.loader import load_lessons
    from tutor.content.models import WidgetBlock

    tokens: list[str] = []
    arrows: list[str] = []
    for lesson in load_lessons(content_dir()).lessons:
        for page in lesson.pages:
            for block in page.body_blocks:
                if isinstance(block, WidgetBlock):
                    for where, token in block.config.single_tokens():
                        (arrows if where[0] == "pairs" else tokens).append(token)
    return list(dict.fromkeys(tokens + arrows))


def run(args: argparse.Namespace) -> int:
    from tutor.core import build

    out = args.out or assets_dir()
    if args.action == "verify":
        problems = build.verify(out)
        for problem in problems:
            print(f"{out}: {problem}", file=sys.stderr)
        if not problems:
            print(f"{out}: every file matches MANIFEST.json")
        return 1 if problems else 0
    try:
        import tutor.core.train  # noqa: F401  (pins torch's kernels before it loads)
    except ImportError:
        print(
            "tutor: error: building assets trains a model; install the train extra: "
            "pip install 'embedding-tutor[train]'",
            file=sys.stderr,
        )
        return 2
    out.mkdir(parents=True, exist_ok=True)
    build.build(out, say=lambda line: print(line, file=sys.stderr), lesson_tokens=lesson_tokens())
    return 0
