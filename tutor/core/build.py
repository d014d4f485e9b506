"""`tutor assets build`: corpus -> tokenizers -> project model -> width sweep ->
experiments -> facts.

Deterministic from the code in tutor/core (corpus, segment, vocab, train, measure, build):
training runs on one thread with deterministic kernels pinned to AVX2 (kernels.py) and no
file records a clock, so two builds on one machine write identical bytes, and so should two
x86-64 CPUs with AVX2 (checked on one machine with both kernel sets, not on a second CPU).
The MANIFEST records each file's sha256 and a fingerprint of those inputs, so a test can
tell committed assets that no longer match.
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
    "kernels.py",
    "corpus.py",
    "segment.py",
    "vocab.py",
    "train.py",
    "trajectory.py",
    "measure.py",
    "experiments.py",
    "experiment_record.py",
    "build.py",
)
HAND_KEPT = ("cited_facts.yaml", "README.md")
MANIFEST = "MANIFEST.json"
PROJECT_TOKENIZER = "byte-bpe-zh"
# Wide enough that the random table's category gaps stay near zero (their chance SD is
# about 0.34 / sqrt(d)); eval every 200 steps, as each evaluation costs ~20 steps.
PROJECT_TRAINING = {"hidden_size": 256, "mlp_ratio": 2, "steps": 800, "batch": 1024}
PROJECT_EVAL_EVERY = 200
SWEEP_STEPS = 400
# Clock readings differ run to run; the build prints them instead of writing them.
CLOCK_FIELDS = ("wall_time_s", "tokens_per_s")


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


def _drop_clock(train_log: Path) -> None:
    log = json.loads(train_log.read_text(encoding="utf-8"))
    kept = {k: v for k, v in log.items() if k not in CLOCK_FIELDS}
    train_log.write_text(json.dumps(kept, indent=2) + "\n", encoding="utf-8")


def build(out: Path, say: Callable[[str], None] = print, lesson_tokens: Sequence[str] = ()) -> None:
    """Rebuild every generated file under `out`; hand-kept files are left as they are.

    The project model's run is recorded (tutor/core/trajectory.py) for `lesson_tokens`,
    the tokens the lesson's widgets show, plus the category words and frequent tokens.
    """
    from tokenizers import Tokenizer

    from tutor.core import experiments, kernels, trajectory
    from tutor.core.measure import SWEEP_SEEDS, SWEEP_WIDTHS, measure
    from tutor.core.train import TrainConfig, print_progress, save_model_dir, train

    if not kernels.pinned():
        say(
            f"warning: torch runs {kernels.capability()} kernels here, not the pinned AVX2: "
            "the trained tables may differ from the shipped ones in their last bits"
        )
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

    project = TrainConfig(**PROJECT_TRAINING, eval_every=PROJECT_EVAL_EVERY)
    recording = trajectory.start_recording(tokenizer, corpus.zh_train, lesson_tokens)
    say(f"model d={project.hidden_size} ...")
    model, before, log = train(
        tokenizer,
        corpus.zh_train,
        corpus.zh_valid,
        project,
        progress=print_progress(project.steps),
        **recording.train_kwargs(project.steps),
    )
    say(f"  {log.wall_time_s} s, {log.tokens_per_s:,.0f} tokens/s")
    model_dir = out / "models" / "project"
    save_model_dir(
        model_dir,
        tokenizer,
        model,
        before,
        log,
        project,
        PROJECT_TOKENIZER,
        recording.trajectory(),
    )
    _drop_clock(model_dir / "train_log.json")
    runs = []
    for d in SWEEP_WIDTHS:
        for seed in SWEEP_SEEDS:
            cfg = replace(
                project, hidden_size=d, seed=seed, steps=SWEEP_STEPS, eval_every=SWEEP_STEPS
            )
            say(f"width sweep d={d} seed={seed} ...")
            _, _, log = train(tokenizer, corpus.zh_train, corpus.zh_valid, cfg)
            say(f"  {log.wall_time_s} s, validation loss {log.val_loss[-1]}")
            tables = log.embedding_parameters + log.head_parameters
            runs.append(
                {
                    "d": d,
                    "seed": seed,
                    "parameters": log.parameters,
                    "embedding_parameters": log.embedding_parameters,
                    "embedding_share": round(100 * tables / log.parameters, 1),
                    "val_loss": log.val_loss[-1],
                }
            )
    sweep = {"steps": SWEEP_STEPS, "seeds": list(SWEEP_SEEDS), "runs": runs}
    (out / "models" / "sweep.json").write_text(json.dumps(sweep, indent=2) + "\n", encoding="utf-8")
    experiments.write(
        out / "models", experiments.record(tokenizer, corpus.zh_train, corpus.zh_valid, say)
    )
    say("facts ...")
    facts = measure(out)
    (out / "facts.json").write_text(
        json.dumps(facts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    write_manifest(out)
    say(f"assets written to {out}")
