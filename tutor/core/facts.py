"""The registry of every figure the lesson quotes, each with its evidence and source.

Prose never types a number: it names a fact key, and the fact says whether the number is
proven, measured on our artifacts (source = the `tutor` command that reproduces it), or
cited (source = the paper, model card or config). Measured facts come from the assets
build (facts.json) or are measured on the shipped artifacts at run time (tutor.core.runfacts,
kept in the cache dir); proven and cited ones are kept by hand (cited_facts.yaml).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tutor.core.figures import carried_digits, significant
from tutor.core.paths import assets_dir
from tutor.core.refusal import Coded

MEASURED_FILE = "facts.json"
CITED_FILE = "cited_facts.yaml"
# the last cited file's parse, kept by its content: the YAML library is about 2 MB of a
# learner's memory, and the file changes only when an author edits it
PARSED_CITED = "cited-facts.json"
RUNTIME = "(run-time facts: tutor.core.runfacts)"  # where a run-time fact's problem is said

Evidence = Literal["proof", "measured", "cited"]
Lang = Literal["zh", "en"]

# Units whose values are labels, not quantities: "ID 115942", "2003", never "115,942".
_NO_SEPARATOR_UNITS = frozenset({"id", "year"})
_LIST_SEPARATORS: dict[str, str] = {"zh": "、", "en": ", "}
_BOOL_WORDS: dict[str, tuple[str, str]] = {"zh": ("是", "否"), "en": ("yes", "no")}


class FactsError(Coded, ValueError):
    """A facts file that is missing or wrong (the message names the file and the fact), or
    a fact asked for by a key no fact has (`unknown_fact`)."""


class Fact(BaseModel):
    """One figure: value, unit, how we know it, where to check it, and its label."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    value: bool | int | float | str | list[int]
    unit: str = ""
    evidence: Evidence
    source: str
    source_en: str | None = None  # `source` in English, when it is written in Chinese
    label_zh: str
    label_en: str

    def source_in(self, lang: Lang) -> str:
        """Where to check the figure, in `lang` where the fact has it so."""
        return self.source_en if lang == "en" and self.source_en is not None else self.source


def _load_list(path: Path) -> list[object]:
    if not path.is_file():
        raise FactsError(f"facts file not found: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else _parsed_yaml(text)
    except ValueError as exc:  # ruamel's YAMLError is not one: see _parsed_yaml
        raise FactsError(f"{path}: cannot be parsed: {exc}") from exc
    if not isinstance(data, list):
        raise FactsError(f"{path}: expected a list of facts, got {type(data).__name__}")
    return data


def _parsed_yaml(text: str) -> object:
    """The YAML `text` as data: from the cache dir when this very text was parsed before,
    else parsed now (and kept, when it is plain JSON data)."""
    from tutor.cachefile import read_cached, write_cached
    from tutor.core.paths import default_cache_dir

    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    kept = default_cache_dir() / PARSED_CITED
    data = read_cached(kept, key)
    if data is not None:
        return data
    from ruamel.yaml import YAML, YAMLError

    try:
        data = YAML(typ="safe").load(text)
    except YAMLError as exc:
        raise ValueError(str(exc)) from exc
    try:
        plain = json.loads(json.dumps(data)) == data
    except (TypeError, ValueError):  # a date or a set: nothing a fact holds; parse again
        plain = False
    if plain and data is not None:
        write_cached(kept, key, data)
    return data


def _parse(path: Path, items: list[object]) -> list[Fact]:
    facts = []
    for index, item in enumerate(items):
        try:
            facts.append(Fact.model_validate(item))
        except ValidationError as exc:
            where = item.get("key", f"#{index}") if isinstance(item, dict) else f"#{index}"
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'fact'}: {e['msg']}" for e in exc.errors()
            )
            raise FactsError(f"{path}: fact {where}: {problems}") from exc
    return facts


@cache
def _load(assets: Path) -> FactRegistry:
    registry: dict[str, Fact] = {}
    origin: dict[str, Path] = {}
    for path in (assets / MEASURED_FILE, assets / CITED_FILE):
        for fact in _parse(path, _load_list(path)):
            if fact.key in registry:
                raise FactsError(
                    f"{path}: fact {fact.key!r} is defined twice (also in {origin[fact.key]})"
                )
            registry[fact.key] = fact
            origin[fact.key] = path
    return FactRegistry(registry, assets)


class FactRegistry(dict[str, Fact]):
    """Every fact by key. The run-time facts (tutor.core.runfacts) are known by key from the
    start but measured the first time one is read: measuring takes seconds and a few hundred
    MB in a child process, and most pages never ask for them."""

    def __init__(self, facts: dict[str, Fact], assets: Path) -> None:
        from tutor.core import runfacts

        super().__init__(facts)
        self._assets = assets
        self._pending = set(runfacts.keys_for(assets)) - facts.keys()
        self._measuring = threading.Lock()  # one measurement, whoever asks first
        self._prefetched = False

    def __missing__(self, key: str) -> Fact:
        if key not in self._pending:
            raise KeyError(key)
        self.complete()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self._pending

    def get(self, key: str, default: Fact | None = None) -> Fact | None:  # type: ignore[override]
        try:
            return self[key]
        except KeyError:
            return default

    def known_keys(self) -> set[str]:
        """Every key, the run-time ones included, without measuring them."""
        return set(self) | self._pending

    @property
    def pending(self) -> frozenset[str]:
        """The run-time keys not measured yet."""
        return frozenset(self._pending)

    def complete(self) -> FactRegistry:
        """The registry with its run-time facts measured (from the cache dir when kept).
        A measurement that fails leaves them out: a page names them as unknown facts."""
        from tutor.core.runfacts import MeasureError, runtime_facts

        with self._measuring:
            if self._pending:
                try:
                    measured = list(runtime_facts(self._assets))
                except (MeasureError, OSError, subprocess.SubprocessError):
                    measured = []
                for fact in _parse(self._assets / RUNTIME, measured):
                    self.setdefault(fact.key, fact)
                self._pending = set()
        return self

    def prefetch(self) -> None:
        """Measure the run-time facts in a thread, so that the page that shows them does
        not wait (the first time: seconds, in a child process)."""
        if self._pending and not self._prefetched:
            self._prefetched = True
            threading.Thread(target=self.complete, name="run-facts", daemon=True).start()


def load_facts(assets: Path | None = None) -> FactRegistry:
    """Every fact by key, from facts.json and cited_facts.yaml in `assets` (default: shipped).

    Cached per folder; the dict is shared, so callers must not modify it.
    """
    return _load((assets or assets_dir()).resolve())


def fact_named(registry: dict[str, Fact], key: str) -> Fact:
    """The fact `key` of `registry`; FactsError `unknown_fact` if it has none."""
    fact = registry.get(key)
    if fact is None:
        raise FactsError(f"no fact {key!r}; `tutor facts` lists them all", "unknown_fact", fact=key)
    return fact


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _number(value: int | float, unit: str) -> str:
    """A float to the digits it was measured to: 0.026% is not 0.0%, 669.0 rows read 669;
    a float below 10⁻⁴ (float rounding: 6×10⁻¹⁶) with its power of ten, not fifteen zeros."""
    if unit in _NO_SEPARATOR_UNITS:
        return str(value)
    if isinstance(value, float) and 0 < abs(value) < 1e-4:
        mantissa, power = f"{value:.{carried_digits(value) - 1}e}".split("e")
        return f"{mantissa}×10{str(int(power)).translate(_SUPERSCRIPT)}"
    text = significant(value, carried_digits(value)) if isinstance(value, float) else f"{value:,}"
    return text + "%" if unit == "%" else text


def format_value(fact: Fact, lang: Lang = "zh") -> str:
    """The value as prose shows it: "248,320", "94.8%" (unit "%": value is in percent), a
    float to the significant digits it carries, lists joined with "、" (zh) or ", " (en).
    Other units are left to the sentence."""
    value = fact.value
    if isinstance(value, bool):
        yes, no = _BOOL_WORDS[lang]
        return yes if value else no
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return _LIST_SEPARATORS[lang].join(_number(v, fact.unit) for v in value)
    return _number(value, fact.unit)
