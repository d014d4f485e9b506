"""`tutor tokenize | neighbours | similarity | facts`: the JSON contract and one-line errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

import tutor.core.facts as facts_module
from tests.unit.hf_fixture import CONVENTIONS, WORDS, random_table, write_hf_model
from tests.unit.model_fixture import build_model_dir, byte_bpe_json
from tests.unit.test_facts import write_assets
from tutor.cli import main
from tutor.core.model import open_model
from tutor.core.similarity import analogy, nearest

_HF = Tokenizer.from_str(byte_bpe_json())


def tid(word: str) -> int:
    (only,) = _HF.encode(word).ids
    return only


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(11)
    table = rng.standard_normal((400, 8), dtype=np.float32)
    table[tid("狗")] = 2 * table[tid("猫")]  # same direction: cosine 1
    return build_model_dir(tmp_path_factory.mktemp("m") / "model", after=table)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tokenize_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tokenize", "猫 a", "--scheme", "codepoint", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "scheme": "codepoint",
        "tokens": [
            {"piece": "猫", "id": 0x732B, "start": 0, "end": 1},
            {"piece": " ", "id": 32, "start": 1, "end": 2},
            {"piece": "a", "id": 97, "start": 2, "end": 3},
        ],
    }


def test_tokenize_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "en", "tokenize", "猫a", "--scheme", "codepoint")
    assert code == 0
    assert out.splitlines() == [
        "codepoint: 2 tokens",
        "#  id     span  piece",
        "0  29483  0:1   '猫'",
        "1  97     1:2   'a'",
    ]


def test_text_too_long(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--lang", "en", "tokenize", "x" * 100_001, "--scheme", "codepoint")
    assert (code, out) == (2, "")
    assert err == "tutor: error: text is 100,001 characters long; the limit is 100,000\n"


def test_neighbours_onehot_json_shows_the_tie(
    capsys: pytest.CaptureFixture[str], model_dir: Path
) -> None:
    argv = ("--model", str(model_dir), "neighbours", "猫", "--scheme", "onehot", "--k", "3")
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    assert json.loads(out) == {
        "token": "猫",
        "id": tid("猫"),
        "scheme": "onehot",
        "tie_count": 399,
        "neighbours": [
            {"token": piece, "id": i, "score": math.sqrt(2), "rank": 1}
            for i, piece in [(0, "<|endoftext|>"), (1, "!"), (2, '"')]
        ],
    }
    code, out, _ = run(capsys, "--lang", "en", *argv)
    assert out.splitlines()[-1] == (
        "Not listed: 396 more with the last row's score (raise --k to see all)"
    )


def test_neighbours_after_json_matches_the_core(
    capsys: pytest.CaptureFixture[str], model_dir: Path
) -> None:
    code, out, _ = run(capsys, "--model", str(model_dir), "neighbours", "猫", "--json")
    data = json.loads(out)
    expected = nearest(open_model(model_dir), "猫", "after", k=5)
    assert code == 0 and data["scheme"] == "after" and data["tie_count"] == 1
    assert data["neighbours"] == [
        {"token": n.piece, "id": n.id, "score": n.score, "rank": n.rank}
        for n in expected.neighbours
    ]
    assert data["neighbours"][0]["token"] == "狗"
    assert data["neighbours"][0]["score"] == pytest.approx(1.0, abs=1e-6)


def test_neighbours_table(capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    code, out, _ = run(
        capsys,
        "--lang",
        "en",
        "--model",
        str(model_dir),
        "neighbours",
        "猫",
        "--scheme",
        "id",
        "--k",
        "2",
    )
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == f"'猫' (id {tid('猫')}) by id: |id difference|, smaller is nearer"
    assert lines[1].split() == ["rank", "id", "score", "token"]
    assert [line.split()[:3] for line in lines[2:4]] == [
        ["1", str(tid("猫") - 1), "1"],
        ["1", str(tid("猫") + 1), "1"],
    ]
    assert len(lines) == 4  # both tokens of the tie are shown: no note below


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["neighbours", "汽车猫"],
            "'汽车猫' is not one token in byte-bpe-zh: it splits into '汽车' + '猫'",
        ),
        (
            ["similarity", "猫", "鼹"],
            "'鼹' is not one token in byte-bpe-zh: it splits into '<E9>' + '<BC>' + '<B9>'",
        ),
        (["neighbours", "猫", "--k", "0"], "k must be at least 1, got 0"),
    ],
)
def test_token_errors(
    capsys: pytest.CaptureFixture[str], model_dir: Path, argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "--lang", "en", "--model", str(model_dir), *argv)
    assert (code, out, err) == (2, "", f"tutor: error: {message}\n")


def test_missing_model_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--lang", "en", "--model", str(tmp_path / "nope"), "neighbours", "猫"
    )
    assert code == 2
    assert err == f"tutor: error: model directory not found: {tmp_path / 'nope'}\n"


def test_missing_before_stage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bare = build_model_dir(tmp_path / "bare", with_before=False)
    code, _, err = run(
        capsys, "--lang", "en", "--model", str(bare), "similarity", "猫", "狗", "--stage", "before"
    )
    assert code == 2 and err.startswith("tutor: error: ") and err.count("\n") == 1
    assert "only the 'after' stage is available" in err


def test_similarity_json(capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    code, out, _ = run(
        capsys, "--model", str(model_dir), "similarity", "猫", "狗", "汽车", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["tokens"] == ["猫", "狗", "汽车"]
    matrix = np.array(data["matrix"])
    assert matrix.shape == (3, 3)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    np.testing.assert_allclose(matrix, matrix.T)
    assert matrix[0, 1] == pytest.approx(1.0)


def test_similarity_table(capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    code, out, _ = run(capsys, "--lang", "en", "--model", str(model_dir), "similarity", "猫", "狗")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "cosine similarity, table after training"
    assert lines[1].split() == ["猫", "狗"]
    assert lines[2].split() == ["猫", "1.000", "1.000"]


@pytest.fixture
def shipped_facts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point the default assets folder at real facts files written for the test."""
    root = write_assets(tmp_path / "assets")
    monkeypatch.setattr(facts_module, "assets_dir", lambda: root)
    return root


def test_facts_json(capsys: pytest.CaptureFixture[str], shipped_facts: Path) -> None:
    code, out, _ = run(capsys, "facts", "--key", "qwen.vocab_size", "--json")
    assert code == 0
    assert json.loads(out) == [
        {
            "key": "qwen.vocab_size",
            "value": 248320,
            "unit": "",
            "evidence": "cited",
            "source": "Qwen3.8 config.json",
        }
    ]
    code, out, _ = run(capsys, "facts", "--json")
    assert [f["key"] for f in json.loads(out)][:2] == ["corpus.once_share", "corpus.chunk_types"]


def test_facts_table(capsys: pytest.CaptureFixture[str], shipped_facts: Path) -> None:
    code, out, _ = run(capsys, "--lang", "en", "facts")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["key", "value", "unit", "evidence", "source"]
    assert lines[1].split() == [
        "corpus.once_share",
        "94.8%",
        "%",
        "measured",
        "tutor",
        "assets",
        "build",
    ]
    assert "115942, 96373, 99203" in out


def test_unknown_fact(capsys: pytest.CaptureFixture[str], shipped_facts: Path) -> None:
    code, _, err = run(capsys, "--lang", "en", "facts", "--key", "nope")
    assert (code, err) == (2, "tutor: error: no fact 'nope'; `tutor facts` lists them all\n")


def test_real_process_exit_code_and_stderr(model_dir: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tutor",
            "--lang",
            "en",
            "--model",
            str(model_dir),
            "neighbours",
            "汽车猫",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "tutor: error: '汽车猫' is not one token in byte-bpe-zh: it splits into '汽车' + '猫'\n"
    )


def test_invalid_utf8_argument_is_a_one_line_error() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tutor",
            "--lang",
            "en",
            "tokenize",
            b"a\xff",
            "--scheme",
            "codepoint",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "tutor: error: text is not valid Unicode: lone surrogate U+DCFF at character 1 "
        "(was the input valid UTF-8?)\n"
    )


def test_analogy_json_on_the_shipped_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analogy", "猫", "狗", "汽车", "--k", "4", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["query"] == ["猫", "狗", "汽车"] and len(data["neighbours"]) == 4
    assert list(data["neighbours"][0]) == ["token", "id", "score"]
    model = open_model(None)
    expected = analogy(model, "猫", "狗", "汽车", k=4)
    assert [(n["token"], n["id"]) for n in data["neighbours"]] == [
        (n.piece, n.id) for n in expected
    ]
    assert {"猫", "狗", "汽车"}.isdisjoint(n["token"] for n in data["neighbours"])
    scores = [n["score"] for n in data["neighbours"]]
    assert scores == sorted(scores, reverse=True)


@pytest.fixture(scope="module")
def hf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = random_table(64, 8)
    ids = {w: 2 + i for i, w in enumerate(WORDS)}
    table[ids["queen"]] = table[ids["king"]] - table[ids["man"]] + table[ids["woman"]]
    bert = next(c for c in CONVENTIONS if c.name == "bert")
    return write_hf_model(tmp_path_factory.mktemp("hf") / "bert", bert, table=table, pad_to=128)


def test_every_command_works_on_an_hf_model(
    capsys: pytest.CaptureFixture[str], hf_dir: Path
) -> None:
    model = ["--model", str(hf_dir)]
    code, out, _ = run(capsys, *model, "analogy", "king", "man", "woman", "--json")
    assert code == 0
    top = json.loads(out)["neighbours"][0]
    assert (top["token"], top["id"]) == ("queen", 2 + WORDS.index("queen"))
    assert top["score"] == pytest.approx(1.0, abs=1e-5)
    code, out, _ = run(capsys, *model, "tokenize", "cat  dog", "--scheme", "project", "--json")
    assert code == 0
    assert [(t["piece"], t["id"], t["start"]) for t in json.loads(out)["tokens"]] == [
        ("cat", 2, 0),
        ("dog", 3, 5),
    ]  # no padding to 128 and the spans are the text's
    code, out, _ = run(capsys, *model, "neighbours", "cat", "--json")
    assert code == 0 and json.loads(out)["id"] == 2
    code, out, _ = run(capsys, *model, "similarity", "cat", "dog", "--json")
    assert code == 0 and json.loads(out)["matrix"][0][0] == pytest.approx(1.0)


def test_a_re_created_before_table_says_so(
    capsys: pytest.CaptureFixture[str], hf_dir: Path
) -> None:
    for argv in (
        ["similarity", "cat", "dog", "--stage", "before"],
        ["neighbours", "cat", "--scheme", "before"],
        ["analogy", "king", "man", "woman", "--stage", "before"],
    ):
        code, out, err = run(capsys, "--lang", "en", "--model", str(hf_dir), *argv)
        assert (code, err) == (0, "")
        first = out.splitlines()[0]
        assert "re-created: normal(0, 0.02)" in first and "not this model's real" in first
        code, out, err = run(capsys, "--model", str(hf_dir), *argv)
        first = out.splitlines()[0]
        assert "重新生成：normal(0, 0.02)" in first and "不是这个模型真正的初始表" in first


def test_errors_are_said_in_the_interface_language(
    capsys: pytest.CaptureFixture[str], model_dir: Path, tmp_path: Path
) -> None:
    """Chinese by default, as the app: a refusal by its code, a missing model as the app
    says it."""
    code, out, err = run(capsys, "--model", str(model_dir), "neighbours", "汽车猫")
    assert (code, out) == (2, "")
    assert err == "tutor：「汽车猫」在 byte-bpe-zh 里不是一个 token：它会切成 「汽车」 + 「猫」\n"
    missing = tmp_path / "nope"
    code, _, err = run(capsys, "--model", str(missing), "neighbours", "猫")
    assert (code, err) == (2, f"tutor：模型打不开：找不到模型文件夹 {missing}\n")


def test_an_unknown_fact_key_is_said_in_the_interface_language(
    capsys: pytest.CaptureFixture[str], shipped_facts: Path
) -> None:
    code, out, err = run(capsys, "facts", "--key", "NOPE")
    assert (code, out) == (2, "")
    assert err == "tutor：没有「NOPE」这个事实；`tutor facts` 会列出全部事实\n"
    code, out, err = run(capsys, "--lang", "en", "facts", "--key", "NOPE")
    assert (code, err) == (2, "tutor: error: no fact 'NOPE'; `tutor facts` lists them all\n")


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh",
            [
                "'猫'（id {cat}）按 after：训练后的表里的余弦，越大越近",
                "名次 id 分数 token",
                "余弦相似度，训练后的表",
                "与 猫 - 狗 + 汽车 的余弦，训练后的表；不算 猫、狗、汽车 和特殊 token",
                "codepoint：1 个 token",
                "# id 位置 片段",
            ],
        ),
        (
            "en",
            [
                "'猫' (id {cat}) by after: cosine in the table after training, bigger is nearer",
                "rank id score token",
                "cosine similarity, table after training",
                "cosine to 猫 - 狗 + 汽车, table after training; 猫, 狗, 汽车 and special tokens "
                "left out",
                "codepoint: 1 token",
                "# id span piece",
            ],
        ),
    ],
)
def test_headings_are_said_in_the_interface_language(
    capsys: pytest.CaptureFixture[str], model_dir: Path, lang: str, expected: list[str]
) -> None:
    model = ["--lang", lang, "--model", str(model_dir)]
    _, out, _ = run(capsys, *model, "neighbours", "猫", "--k", "2")
    neighbours = out.splitlines()
    _, out, _ = run(capsys, *model, "similarity", "猫", "狗")
    similarity = out.splitlines()
    _, out, _ = run(capsys, *model, "analogy", "猫", "狗", "汽车")
    analogy = out.splitlines()
    _, out, _ = run(capsys, *model, "tokenize", "猫", "--scheme", "codepoint")
    tokenize = out.splitlines()
    said = [neighbours[0], neighbours[1], similarity[0], analogy[0], *tokenize[:2]]
    said = [" ".join(line.split()) if line.startswith(("名", "r", "#")) else line for line in said]
    assert said == [line.format(cat=tid("猫")) for line in expected]


def test_ties_and_the_facts_table_are_said_in_chinese(
    capsys: pytest.CaptureFixture[str], model_dir: Path, shipped_facts: Path
) -> None:
    _, out, _ = run(capsys, "--model", str(model_dir), "neighbours", "猫", "--scheme", "id")
    assert out.splitlines()[-1] == "没有列出：另有 1 个 token 和最后一行同分（加大 --k 可以都看到）"
    _, out, _ = run(capsys, "facts")
    assert out.splitlines()[0].split() == ["键", "值", "单位", "证据", "出处"]
    assert out.splitlines()[1].split()[:4] == ["corpus.once_share", "94.8%", "%", "实验验证"]


def test_facts_units_and_sources_are_said_in_the_interface_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = {}
    for lang in ("zh", "en"):
        _, out, _ = run(capsys, "--lang", lang, "facts", "--key", "qwen38.sentence_tokens")
        said[lang] = out.splitlines()[1].split()
    assert said["zh"] == [
        "qwen38.sentence_tokens",
        "5",
        "个",
        "引用",
        "Qwen3.8",
        "仓库",
        "tokenizer.json",
    ]
    assert said["en"] == [
        "qwen38.sentence_tokens",
        "5",
        "cited",
        "Qwen3.8",
        "repository",
        "tokenizer.json",
    ]


@pytest.mark.parametrize(
    ("k", "last_line"),
    [
        # ids ±1 and ±2 of 猫, four tokens, all shown: no tie runs past the list
        ("4", None),
        # one of ±3 is shown, the other is left out
        ("5", "Not listed: 1 more with the last row's score (raise --k to see all)"),
        ("7", "Not listed: 1 more with the last row's score (raise --k to see all)"),
    ],
)
def test_ties_are_mentioned_only_when_some_are_left_out(
    capsys: pytest.CaptureFixture[str], model_dir: Path, k: str, last_line: str | None
) -> None:
    argv = ["--lang", "en", "--model", str(model_dir), "neighbours", "猫", "--scheme", "id"]
    _, out, _ = run(capsys, *argv, "--k", k)
    assert [line.split()[0] for line in out.splitlines()[2 : 2 + int(k)]] == [
        str(rank) for rank in (1, 1, 3, 3, 5, 5, 7)[: int(k)]
    ]
    below_the_table = out.splitlines()[2 + int(k) :]
    assert below_the_table == ([last_line] if last_line else [])
