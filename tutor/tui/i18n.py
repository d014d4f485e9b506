"""Interface text in Chinese and English; the lesson content itself is written in Chinese.

Chrome strings live in strings.toml, not in widgets, so `--lang en` changes every label at
once, translators edit one data file, and a missing key fails loudly instead of showing it.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Literal

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")


@cache
def strings() -> dict[str, dict[str, str]]:
    text = resources.files("tutor.tui").joinpath("strings.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def t(key: str, lang: Lang = "zh", **values: object) -> str:
    """The interface string `key` in `lang`, with `{name}` fields filled from `values`."""
    text = strings()[key][lang]
    return text.format(**values) if values else text


def has(key: str) -> bool:
    return key in strings()
