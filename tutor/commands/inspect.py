"""`tutor tokenize | neighbours | similarity | analogy | facts`: the core's answers on the
command line, for the shipped model or any model opened with `--model`.

Authors and the acceptance checks read these (`--json` for scripts); a request the core
cannot answer is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tutor.cjk import table
from tutor.commands.output import columns, neighbour_table, print_json, shown, speaker_for

if TYPE_CHECKING:
    from tutor.core.model import ProjectModel
    from tutor.words.i18n import Speaker

EXIT_USAGE = 2


def _opened(args: argparse.Namespace) -> ProjectModel:
    """The model of `--model` (or the shipped one), refused as every command refuses a
    broken directory; a config.json that disagrees with the weights is a warning line."""
    from tutor.core.model import open_model

    model = open_model(args.model)
    if args.model is not None:
        speaker = speaker_for(args)
        from tutor.words.refusals import disagreement

        for differs in model.disagreements:
            line = disagreement(speaker, differs.field, differs.config, differs.weights)
            print(speaker.t("cli.warning", warning=line), file=sys.stderr)
    return model


def _tokenize(args: argparse.Namespace) -> int:
    from tutor.core.names import PROJECT
    from tutor.core.tokenize import get_scheme

    if args.scheme == PROJECT and args.model is not None:
        scheme = _opened(args).scheme  # a broken model directory is refused here
    else:
        scheme = get_scheme(args.scheme)
    tokens = scheme.encode(args.text)
    if args.json:
        print_json(
            {
                "scheme": args.scheme,
                "tokens": [
                    {"piece": t.piece, "id": t.id, "start": t.start, "end": t.end} for t in tokens
                ],
            }
        )
        return 0
    speaker = speaker_for(args)
    name = scheme.name if args.model is not None else args.scheme
    key = "inspect.tokens_one" if len(tokens) == 1 else "inspect.tokens"
    print(speaker.t(key, scheme=name, count=f"{len(tokens):,}"))
    rows = [[str(i), str(t.id), f"{t.start}:{t.end}", shown(t.piece)] for i, t in enumerate(tokens)]
    print(table(columns(speaker, "#", "id", "span", "piece"), rows))
    return 0


def _stage_note(speaker: Speaker, model: ProjectModel, stage: str) -> str:
    """Said beside every "before" figure of a model whose initial table was re-created."""
    from tutor.core.model import RECREATED_SEED

    init = model.config.initialisation
    if stage != "before" or model.before_kind != "recreated" or init is None:
        return ""
    return speaker.t(
        "inspect.recreated", std=f"{init.std:g}", source=init.source, seed=RECREATED_SEED
    )


def _neighbours(args: argparse.Namespace) -> int:
    if getattr(args, "step", None) is not None:
        from tutor.commands import steps

        return steps.neighbours(args)
    from tutor.core.similarity import nearest

    model = _opened(args)
    result = nearest(model, args.token, args.scheme, k=args.k, exact=args.piece)
    if args.json:
        print_json(
            {
                "token": result.piece,
                "id": result.id,
                "scheme": result.scheme,
                "tie_count": result.tie_count,
                "neighbours": [
                    {"token": n.piece, "id": n.id, "score": n.score, "rank": n.rank}
                    for n in result.neighbours
                ],
            }
        )
        return 0
    speaker = speaker_for(args)
    print(
        speaker.t(
            "inspect.neighbours",
            token=shown(result.piece),
            id=result.id,
            scheme=result.scheme,
            score=speaker.t(f"inspect.score.{args.scheme}"),
            note=_stage_note(speaker, model, args.scheme),
        )
    )
    print(neighbour_table(speaker, result.neighbours))
    if result.ties_left_out > 0:
        print(speaker.t("inspect.ties", count=f"{result.ties_left_out:,}"))
    return 0


def _similarity(args: argparse.Namespace) -> int:
    if getattr(args, "step", None) is not None:
        from tutor.commands import steps

        return steps.similarity(args)
    from tutor.core.similarity import similarity

    model = _opened(args)
    pieces, matrix = similarity(model, args.tokens, args.stage, exact=args.piece)
    if args.json:
        print_json({"tokens": pieces, "matrix": matrix.tolist()})
        return 0
    speaker = speaker_for(args)
    stage, note = speaker.t(f"inspect.table.{args.stage}"), _stage_note(speaker, model, args.stage)
    print(speaker.t("inspect.similarity", table=stage, note=note))
    rows = [[p, *(f"{v:.3f}" for v in row)] for p, row in zip(pieces, matrix, strict=True)]
    print(table(["", *pieces], rows))
    return 0


def _analogy(args: argparse.Namespace) -> int:
    from tutor.core.similarity import analogy

    model = _opened(args)
    a, b, c = args.a, args.b, args.c
    found = analogy(model, a, b, c, stage=args.stage, k=args.k, exact=args.piece)
    if args.json:
        print_json(
            {
                "query": [a, b, c],
                "neighbours": [{"token": n.piece, "id": n.id, "score": n.score} for n in found],
            }
        )
        return 0
    speaker = speaker_for(args)
    stage, note = speaker.t(f"inspect.table.{args.stage}"), _stage_note(speaker, model, args.stage)
    print(speaker.t("inspect.analogy", a=a, b=b, c=c, table=stage, note=note))
    print(neighbour_table(speaker, found))
    return 0


def _facts(args: argparse.Namespace) -> int:
    from tutor.core.facts import fact_named, format_value, load_facts

    registry = load_facts()
    facts = (
        [fact_named(registry, args.key)]
        if args.key is not None
        else list(registry.complete().values())
    )
    if args.json:
        print_json(
            [f.model_dump(include={"key", "value", "unit", "evidence", "source"}) for f in facts]
        )
        return 0
    from tutor.words.fact_words import unit_word

    speaker = speaker_for(args)
    rows = [
        [
            f.key,
            format_value(f, speaker.lang),
            unit_word(speaker, f),
            speaker.t(f"evidence.{f.evidence}"),
            f.source_in(speaker.lang),
        ]
        for f in facts
    ]
    print(table(columns(speaker, "key", "value", "unit", "evidence", "source"), rows))
    return 0


_COMMANDS = {
    "tokenize": _tokenize,
    "neighbours": _neighbours,
    "similarity": _similarity,
    "analogy": _analogy,
    "facts": _facts,
}


def run(args: argparse.Namespace) -> int:
    from tutor.core.facts import FactsError
    from tutor.core.model import ModelError
    from tutor.core.similarity import SimilarityError
    from tutor.core.table import TableError
    from tutor.core.tokenize import TokenizeError
    from tutor.core.trajectory import TrajectoryError

    try:
        return _COMMANDS[args.command](args)
    except (
        TokenizeError,
        ModelError,
        SimilarityError,
        TableError,
        FactsError,
        TrajectoryError,
    ) as exc:
        print(error_line(exc, args.lang or "zh"), file=sys.stderr)
        return EXIT_USAGE


def error_line(error: Exception, lang: str) -> str:
    """One line in the interface's language: a refusal by its code, a model that cannot be
    opened as the app says it; in English (and for an error with no sentence) the core's
    own message, as every `tutor` command prints its errors."""
    from tutor.core.model import ModelError
    from tutor.core.table import TableError
    from tutor.core.trajectory import TrajectoryError
    from tutor.words.i18n import Speaker, t
    from tutor.words.refusals import model_error, say, sentence_key

    message = str(error).strip().replace("\n", " ")
    if lang != "en":
        speaker = Speaker(lang)
        if isinstance(error, TrajectoryError):  # the model opened; its recorded run did not
            message = say(speaker, error)
            if error.code == "no_trajectory":
                message = speaker.t("train.missing", error=message)
        elif isinstance(error, ModelError | TableError):
            message = model_error(speaker, error)
        elif sentence_key(error) is not None:
            message = say(speaker, error)
    return t("cli.error", lang, error=message)
