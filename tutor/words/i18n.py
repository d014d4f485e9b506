"""Interface text in Chinese and English; the lesson content itself is written in Chinese.

Chrome strings live in strings.toml, not in widgets, so `--lang en` changes every label at
once, translators edit one data file, and a missing key fails loudly instead of showing it.
Parsing TOML costs a few milliseconds of every start, so the parsed strings are kept as
JSON in the cache dir, keyed by the file's size and modification time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, TypeGuard

from tutor.cachefile import read_cached, write_cached
from tutor.core.paths import default_cache_dir

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")


@cache
def strings() -> dict[str, dict[str, str]]:
    source = Path(__file__).with_name("strings.toml")
    status = source.stat()
    key = [str(source), status.st_size, status.st_mtime_ns]
    cached = default_cache_dir() / "strings.json"
    parsed = read_cached(cached, key)
    if _is_strings(parsed):
        return parsed
    import tomllib

    parsed = tomllib.loads(source.read_text(encoding="utf-8"))
    write_cached(cached, key, parsed)
    return parsed


def _is_strings(data: object) -> TypeGuard[dict[str, dict[str, str]]]:
    return isinstance(data, dict) and all(
        isinstance(texts, dict) and all(isinstance(text, str) for text in texts.values())
        for texts in data.values()
    )


def t(key: str, lang: Lang = "zh", **values: object) -> str:
    """The interface string `key` in `lang`, with `{name}` fields filled from `values`."""
    text = strings()[key][lang]
    return text.format(**values) if values else text


@dataclass(frozen=True, slots=True)
class Speaker:
    """Says interface strings in one language (as a TutorContext does, without one)."""

    lang: Lang

    def t(self, key: str, **values: object) -> str:
        return t(key, self.lang, **values)


def has(key: str) -> bool:
    return key in strings()


def lang_of_argv(argv: Sequence[str]) -> Lang:
    """The interface language argv asks for (`--lang en`, `--lang=en`, `--la en`): Chinese
    unless English; known before parsing, so that parsing's errors are said in it."""
    for n, arg in enumerate(argv):
        name, _, value = arg.partition("=")
        if len(name) >= 4 and "--lang".startswith(name):
            value = value or (argv[n + 1] if n + 1 < len(argv) else "")
            return "en" if value == "en" else "zh"
    return "zh"
