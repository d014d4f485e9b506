"""What every inspecting command prints with: neighbour tables (lined up by tutor.cjk.table),
pieces shown with their spaces and control characters visible, JSON for scripts, and the
interface's language."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tutor.cjk import table

if TYPE_CHECKING:
    from tutor.core.similarity import Neighbour
    from tutor.words.i18n import Speaker


def shown(piece: str) -> str:
    """A piece quoted so that spaces and control characters are visible."""
    return repr(piece)


def print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def speaker_for(args: argparse.Namespace) -> Speaker:
    """The interface's language: Chinese unless `--lang en`."""
    from tutor.words.i18n import Speaker

    return Speaker("en" if args.lang == "en" else "zh")


def columns(speaker: Speaker, *names: str) -> list[str]:
    """Column names in the interface's language (`#` and `id` as they are)."""
    return [name if name in ("#", "id") else speaker.t(f"inspect.col.{name}") for name in names]


def neighbour_table(speaker: Speaker, found: Sequence[Neighbour]) -> str:
    mark = " " + speaker.t("explore.reserved")
    rows = [
        [str(n.rank), str(n.id), f"{n.score:.4g}", shown(n.piece) + (mark if n.reserved else "")]
        for n in found
    ]
    return table(columns(speaker, "rank", "id", "score", "token"), rows)
