"""The facts registry: two files, one namespace, values formatted the way prose shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tutor.core.facts import Fact, FactsError, format_value, load_facts

MEASURED = [
    {
        "key": "corpus.once_share",
        "value": 94.8,
        "unit": "%",
        "evidence": "measured",
        "source": "tutor assets build",
        "label_zh": "只出现一次的片段占比",
        "label_en": "share of chunks seen once",
    },
    {
        "key": "corpus.chunk_types",
        "value": 70310,
        "evidence": "measured",
        "source": "tutor assets build",
        "label_zh": "片段种类",
        "label_en": "chunk types",
    },
]

CITED_YAML = """\
- key: qwen.vocab_size
  value: 248320
  evidence: cited
  source: Qwen3.8 config.json
  label_zh: Qwen3.8 词表大小
  label_en: Qwen3.8 vocabulary size
- key: qwen.example_ids
  value: [115942, 96373, 99203]
  unit: id
  evidence: cited
  source: Qwen3.8 tokenizer
  label_zh: 例句的 ID
  label_en: IDs of the example sentence
- key: qwen.untied_head
  value: true
  evidence: cited
  source: Qwen3.8 config.json
  label_zh: 输出头不共享
  label_en: untied output head
- key: onehot.distance
  value: "√2"
  evidence: proof
  source: "|e_i - e_j|² = 1 + 1"
  label_zh: one-hot 距离
  label_en: one-hot distance
"""


def write_assets(root: Path, measured: list[dict] | None = None, cited: str = CITED_YAML) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "facts.json").write_text(json.dumps(measured if measured is not None else MEASURED))
    (root / "cited_facts.yaml").write_text(cited, encoding="utf-8")
    return root


def test_load_both_files(tmp_path: Path) -> None:
    facts = load_facts(write_assets(tmp_path / "a"))
    assert list(facts) == [
        "corpus.once_share",
        "corpus.chunk_types",
        "qwen.vocab_size",
        "qwen.example_ids",
        "qwen.untied_head",
        "onehot.distance",
    ]
    assert facts["qwen.vocab_size"].value == 248320
    assert type(facts["qwen.vocab_size"].value) is int
    assert type(facts["corpus.once_share"].value) is float
    assert facts["qwen.untied_head"].value is True
    assert facts["qwen.example_ids"].value == [115942, 96373, 99203]
    assert facts["corpus.chunk_types"].unit == ""
    assert facts["onehot.distance"].evidence == "proof"
    assert load_facts(tmp_path / "a") is facts  # cached per folder


def test_duplicate_key_names_both_files(tmp_path: Path) -> None:
    root = write_assets(tmp_path / "a", measured=[{**MEASURED[0], "key": "qwen.vocab_size"}])
    with pytest.raises(FactsError) as err:
        load_facts(root)
    message = str(err.value)
    assert "cited_facts.yaml: fact 'qwen.vocab_size' is defined twice" in message
    assert str(root / "facts.json") in message


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    root = write_assets(tmp_path / "a")
    (root / "facts.json").unlink()
    with pytest.raises(FactsError, match="facts file not found"):
        load_facts(root)


def test_invalid_fact_names_its_key(tmp_path: Path) -> None:
    root = write_assets(tmp_path / "a", measured=[{**MEASURED[0], "evidence": "hearsay"}])
    with pytest.raises(FactsError) as err:
        load_facts(root)
    assert str(err.value).endswith(
        "facts.json: fact corpus.once_share: evidence: Input should be 'proof', 'measured' "
        "or 'cited'"
    )


def test_unparseable_or_wrong_shape(tmp_path: Path) -> None:
    root = write_assets(tmp_path / "a", cited="key: [unclosed")
    with pytest.raises(FactsError, match="cannot be parsed"):
        load_facts(root)
    root = write_assets(tmp_path / "b", cited="key: value\n")
    with pytest.raises(FactsError, match="expected a list of facts, got dict"):
        load_facts(root)


def fact(value: object, unit: str = "") -> Fact:
    return Fact(
        key="k", value=value, unit=unit, evidence="proof", source="s", label_zh="z", label_en="e"
    )


@pytest.mark.parametrize(
    ("value", "unit", "lang", "shown"),
    [
        (248320, "", "zh", "248,320"),
        (1114112, "", "en", "1,114,112"),
        (94.8, "%", "zh", "94.8%"),
        (42.0, "%", "zh", "42%"),
        (0.026, "%", "zh", "0.026%"),
        (100.0, "%", "en", "100%"),
        (669.0, "行", "zh", "669"),
        (1.7275, "", "zh", "1.7275"),
        (-0.12, "", "zh", "-0.12"),
        (100, "%", "en", "100%"),
        (4.776, "", "zh", "4.776"),
        (3688704, "parameters", "zh", "3,688,704"),
        ([115942, 96373, 99203], "id", "zh", "115942、96373、99203"),
        ([115942, 96373], "id", "en", "115942, 96373"),
        ([1066112, 3688704], "", "zh", "1,066,112、3,688,704"),
        (2003, "year", "en", "2003"),
        (True, "", "zh", "是"),
        (False, "", "en", "no"),
        ("√2", "", "zh", "√2"),
        (6e-16, "", "en", "6×10⁻¹⁶"),  # float rounding, not 0.0000000000000006
        (-2.5e-7, "", "zh", "-2.5×10⁻⁷"),
        (0.0007, "", "zh", "0.0007"),
    ],
)
def test_format_value(value: object, unit: str, lang: str, shown: str) -> None:
    assert format_value(fact(value, unit), lang) == shown


def _load_in_fresh_process(root: Path, cache: Path) -> dict[str, object]:
    """load_facts(root) in a new interpreter: its facts and whether YAML was imported."""
    import os
    import subprocess
    import sys

    code = (
        "import json, sys\nfrom pathlib import Path\nfrom tutor.core.facts import load_facts\n"
        f"facts = load_facts(Path({str(root)!r}))\n"
        "print(json.dumps({'facts': {k: f.model_dump() for k, f in facts.items()},"
        " 'yaml': 'ruamel.yaml' in sys.modules}))"
    )
    env = {**os.environ, "TUTOR_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout)


def test_the_cited_facts_are_parsed_once_per_edit(tmp_path: Path) -> None:
    """A learner's page of prose needs the cited facts; parsing their YAML imported the
    YAML library (about 2 MB of a learner's memory) on every start. The parse is kept in
    the cache dir under the file's content, so only an edited file is parsed again."""
    root, cache = write_assets(tmp_path / "a"), tmp_path / "cache"
    first = _load_in_fresh_process(root, cache)
    again = _load_in_fresh_process(root, cache)
    assert (first["yaml"], again["yaml"]) == (True, False)
    assert again["facts"] == first["facts"]
    assert again["facts"]["qwen.example_ids"]["value"] == [115942, 96373, 99203]
    assert again["facts"]["qwen.untied_head"]["value"] is True
    write_assets(root, cited=CITED_YAML.replace("248320", "151936"))
    edited = _load_in_fresh_process(root, cache)
    assert edited["yaml"] is True
    assert edited["facts"]["qwen.vocab_size"]["value"] == 151936


def _chinese_outside_quotes(text: str) -> list[str]:
    """Chinese characters in `text` other than those of a quoted example (“猫”, 「猫」)."""
    import re

    bare = re.sub(r"“[^”]*”|「[^」]*」", "", text)
    return re.findall(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", bare)


def test_every_shipped_source_can_be_said_in_english() -> None:
    """A cited or proven fact's source in Chinese has an English form (quoted examples are
    the only Chinese it keeps); a measured one's is the command that measures it."""
    for fact in load_facts().values():
        if fact.evidence == "measured":
            assert fact.source.startswith("tutor "), fact.key
            continue
        said = fact.source_in("en")
        assert not _chinese_outside_quotes(said), (fact.key, said)
        assert fact.source_in("zh") == fact.source


def test_an_english_source_is_optional_and_checked(tmp_path: Path) -> None:
    cited = CITED_YAML + '  source_en: "proof: two positions differ by 1"\n'
    facts = load_facts(write_assets(tmp_path / "a", cited=cited))
    assert facts["onehot.distance"].source_in("en") == "proof: two positions differ by 1"
    assert facts["qwen.vocab_size"].source_in("en") == "Qwen3.8 config.json"
    with pytest.raises(FactsError, match="source_en"):
        load_facts(write_assets(tmp_path / "b", cited=CITED_YAML + "  source_en: 3\n"))


def test_the_loss_at_a_random_start_is_ln_of_the_shipped_vocabulary() -> None:
    """loss.uniform is kept by hand: it must follow the vocabulary the build measures."""
    import math

    from tutor.core.tokenize import get_scheme

    facts = load_facts()
    vocabulary = facts["vocab.byte_bpe_zh"].value
    assert vocabulary == get_scheme("project").vocab_size
    assert facts["loss.uniform"].value == round(math.log(vocabulary), 2)
