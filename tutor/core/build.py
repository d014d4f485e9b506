"""`tutor assets build`: corpus -> tokenizers -> project model -> width sweep -> facts.

Deterministic from the code in tutor/core (corpus, vocab, train, measure, build); the
MANIFEST records each file's sha256 and a fingerprint of those inputs, so a test can tell
committed assets that no longer match their inputs.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from tutor.core import corpus as corpus_mod
from tutor.core.vocab import build_all

INPUT_MODULES = (
    "corpus.py",
    "vocab.py",
    "train.py",
    "trajectory.py",
    "measure.py",
    "build.py",
)
HAND_KEPT = ("cited_facts.yaml", "README.md")
MANIFEST = "MANIFEST.json"
PROJECT_TOKENIZER = "byte-bpe-zh"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs_fingerprint() -> str:
    """sha256 over the source of every module that decides the built bytes."""
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in INPUT_MODULES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes() + b"\0")
    return digest.hexdigest()


def manifest_files(assets: Path) -> dict[str, str]:
    """Every built file's sha256; hand-kept files are inputs, edited without a rebuild."""
    return {
        str(p.relative_to(assets)): sha256(p)
        for p in sorted(assets.rglob("*"))
        if p.is_file() and p.name != MANIFEST and str(p.relative_to(assets)) not in HAND_KEPT
    }


def write_manifest(assets: Path) -> dict[str, object]:
    manifest = {"inputs": inputs_fingerprint(), "files": manifest_files(assets)}
    (assets / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def verify(assets: Path) -> list[str]:
    """Human-readable differences between the assets and their manifest; empty if fresh."""
    path = assets / MANIFEST
    if not path.is_file():
        return [f"{path} is missing: run `tutor assets build`"]
    manifest = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    if manifest.get("inputs") != inputs_fingerprint():
        problems.append("the code that builds the assets changed since they were built")
    recorded, actual = manifest.get("files", {}), manifest_files(assets)
    for name in sorted(recorded.keys() | actual.keys()):
        if name not in actual:
            problems.append(f"{name}: listed in the manifest but missing")
        elif name not in recorded:
            problems.append(f"{name}: not in the manifest")
        elif recorded[name] != actual[name]:
            problems.append(f"{name}: content differs from the manifest")
    return problems


def build(out: Path, say: Callable[[str], None] = print, lesson_tokens: Sequence[str] = ()) -> None:
    """Rebuild every generated file under `out`; hand-kept files are left as they are.

    The project model's run is recorded (tutor/core/trajectory.py) for `lesson_tokens`,
    the tokens the lesson's widgets show, plus the category words and frequent tokens.
    """
    from tokenizers import Tokenizer

    from tutor.core import trajectory
    from tutor.core.measure import SWEEP_WIDTHS, measure
    from tutor.core.train import TrainConfig, print_progress, save_model_dir, train

    for name in ("corpus", "tokenizers", "models"):
        shutil.rmtree(out / name, ignore_errors=True)
    say("corpus ...")
    corpus = corpus_mod.generate()
    corpus_mod.write(out / "corpus", corpus)
    say("tokenizers ...")
    (out / "tokenizers").mkdir(parents=True)
    for name, tokenizer in build_all(corpus).items():
        tokenizer.save(str(out / "tokenizers" / f"{name}.json"))
    tokenizer = Tokenizer.from_file(str(out / "tokenizers" / f"{PROJECT_TOKENIZER}.json"))

    base = TrainConfig()
    recording = trajectory.start_recording(tokenizer, corpus.zh_train, lesson_tokens)
    sweep = []
    for d in sorted({base.hidden_size, *SWEEP_WIDTHS}):
        cfg = replace(base, hidden_size=d)
        say(f"model d={d} ...")
        model, before, log = train(
            tokenizer,
            corpus.zh_train,
            corpus.zh_valid,
            cfg,
            progress=print_progress(cfg.steps),
            **(recording.train_kwargs(cfg.steps) if d == base.hidden_size else {}),
        )
        tables = log.embedding_parameters + log.head_parameters
        sweep.append(
            {
                "d": d,
                "parameters": log.parameters,
                "embedding_parameters": log.embedding_parameters,
                "embedding_share": round(100 * tables / log.parameters, 1),
                "val_loss": log.val_loss[-1],
                "wall_time_s": log.wall_time_s,
            }
        )
        if d == base.hidden_size:
            save_model_dir(
                out / "models" / "project",
                tokenizer,
                model,
                before,
                log,
                cfg,
                PROJECT_TOKENIZER,
                recording.trajectory(),
            )
    (out / "models" / "sweep.json").write_text(json.dumps(sweep, indent=2) + "\n", encoding="utf-8")
    say("facts ...")
    facts = measure(out)
    (out / "facts.json").write_text(
        json.dumps(facts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    write_manifest(out)
    say(f"assets written to {out}")
