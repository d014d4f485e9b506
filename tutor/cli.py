"""`tutor ...`: argument parsing only; every subcommand is imported when it runs.

Nothing here imports textual, numpy or torch, so `tutor --help` answers at once.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from functools import cache, partial
from pathlib import Path
from typing import Literal, NoReturn

from tutor import cjk
from tutor.core.names import (
    NEIGHBOUR_SCHEMES,
    PROJECT,
    RECORDED_EXPERIMENTS,
    STAGES,
    TOKEN_SCHEMES,
)

SCHEMES = (PROJECT, *TOKEN_SCHEMES)

# subcommand -> module in tutor.commands that has `run(args) -> int`
_HANDLERS = {
    None: "app",
    "lesson": "app",
    "explore": "app",
    "check": "check",
    "grade": "grade",
    "new": "new",
    "preview": "preview",
    "tokenize": "inspect",
    "neighbours": "inspect",
    "similarity": "inspect",
    "analogy": "inspect",
    "facts": "inspect",
    "experiment": "experiment",
    "train": "train",
    "assets": "assets",
    "serve": "serve",
    "report": "report",
    "review": "review",
}


Lang = Literal["zh", "en"]


def _said(lang: Lang) -> Callable[[str], str]:
    from tutor.words.i18n import t

    return lambda key: t(key, lang)


def _add_globals(
    parser: argparse.ArgumentParser, say: Callable[[str], str], default: object = None
) -> None:
    """Global options; subcommands repeat them (default SUPPRESS) so they may follow too."""
    parser.add_argument(
        "--model", type=Path, default=default, metavar="DIR", help=say("cli.opt.model")
    )
    parser.add_argument(
        "--content", type=Path, default=default, metavar="DIR", help=say("cli.opt.content")
    )
    parser.add_argument("--lang", choices=("zh", "en"), default=default, help=say("cli.opt.lang"))
    parser.add_argument("--learner", default=default, metavar="NAME", help=say("cli.opt.learner"))


class _Formatter(argparse.HelpFormatter):
    """argparse's help, its "usage: " said in the interface's language (the private parts
    of argparse it relies on: tutor/argparse_compat.py)."""

    def __init__(self, prog: str, usage: str = "usage: ") -> None:
        super().__init__(prog)
        self._usage = usage
        self._width -= cjk.columns(usage) - len(usage)  # argparse counts 用法： as 3 columns

    def add_usage(self, usage, actions, groups, prefix=None):  # type: ignore[no-untyped-def]
        super().add_usage(usage, actions, groups, self._usage if prefix is None else prefix)

    def _split_lines(self, text: str, width: int) -> list[str]:
        """Lines of at most `width` terminal columns: a Chinese character takes two (argparse
        counts one), and a line may break between any two of them."""
        if not cjk.has_cjk(text):
            return super()._split_lines(text, width)
        return cjk.split_lines(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in self._split_lines(text, width - len(indent)))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that says its headings and its usage errors in the interface's
    language (argparse's own words are English)."""

    def __init__(self, *args: object, lang: Lang = "zh", **kwargs: object) -> None:
        self.lang: Lang = lang
        say = _said(lang)
        kwargs["formatter_class"] = partial(_Formatter, usage=say("cli.usage"))
        super().__init__(*args, add_help=False, **kwargs)  # type: ignore[arg-type]
        self._positionals.title = say("cli.positionals")
        self._optionals.title = say("cli.options")
        self.add_argument("-h", "--help", action="help", help=say("cli.help"))

    def error(self, message: str) -> NoReturn:
        from tutor.words.i18n import t

        self.print_usage(sys.stderr)
        said = t(
            "cli.usage_error", self.lang, prog=self.prog, error=_usage_error(message, self.lang)
        )
        self.exit(2, said + "\n")


def _quoted(text: str) -> str:
    """A value argparse quoted with repr(), unquoted."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def _usage_error(message: str, lang: Lang) -> str:
    """argparse's English `message` in `lang`, for the errors a person commonly meets."""
    from tutor.words.i18n import has, t

    if lang == "en":
        return message
    comma = "、"
    if m := re.fullmatch(r"the following arguments are required: (.*)", message):
        return t("cli.arg.required", lang, names=m[1].replace(", ", comma))
    if m := re.fullmatch(r"argument (\S+): invalid (\w+) value: (.*)", message):
        kind = t(f"cli.type.{m[2]}", lang) if has(f"cli.type.{m[2]}") else m[2]
        return t("cli.arg.invalid_value", lang, argument=m[1], type=kind, value=_quoted(m[3]))
    if m := re.fullmatch(r"argument (\S+): invalid choice: (.*) \(choose from (.*)\)", message):
        choices = comma.join(_quoted(c) for c in m[3].split(", "))
        return t(
            "cli.arg.invalid_choice", lang, argument=m[1], value=_quoted(m[2]), choices=choices
        )
    if m := re.fullmatch(r"unrecognized arguments: (.*)", message):
        return t("cli.arg.unrecognized", lang, args=m[1])
    if m := re.fullmatch(r"argument (\S+): expected one argument", message):
        return t("cli.arg.expected_one", lang, argument=m[1])
    if m := re.fullmatch(r"argument (\S+): not allowed with argument (\S+)", message):
        return t("cli.arg.not_allowed", lang, argument=m[1], other=m[2])
    if m := re.fullmatch(r"one of the arguments (.*) is required", message):
        return t("cli.arg.one_required", lang, names=comma.join(m[1].split()))
    return t("cli.arg.other", lang, message=message)


def build_parser(lang: Lang = "zh") -> argparse.ArgumentParser:
    say = _said(lang)
    parser = Parser(prog="tutor", description=say("cli.about"), lang=lang)
    _add_globals(parser, say=say)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=partial(Parser, lang=lang)
    )

    lesson = sub.add_parser("lesson", help=say("cli.cmd.lesson"))
    lesson.add_argument("lesson_id", metavar="LESSON", help=say("cli.arg.lesson"))
    lesson.add_argument("--page", type=int, metavar="N", help=say("cli.opt.lesson.page"))

    sub.add_parser("explore", help=say("cli.cmd.explore"))

    check = sub.add_parser("check", help=say("cli.cmd.check"))
    check.add_argument("path", nargs="?", type=Path, metavar="PATH", help=say("cli.arg.check.path"))
    check.add_argument(
        "--schema",
        action="store_true",
        help=say("cli.opt.check.schema"),
    )
    check.add_argument("--out", type=Path, metavar="FILE", help=say("cli.opt.check.out"))

    new = sub.add_parser("new", help=say("cli.cmd.new"))
    new.add_argument("what", choices=("lesson",), help=say("cli.arg.new.what"))
    new.add_argument("lesson_id", metavar="ID", help=say("cli.arg.new.id"))
    new.add_argument(
        "folder",
        nargs="?",
        type=Path,
        default=Path(),
        metavar="DIR",
        help=say("cli.opt.new.folder"),
    )

    preview = sub.add_parser("preview", help=say("cli.cmd.preview"))
    preview.add_argument(
        "folder", nargs="?", type=Path, metavar="DIR", help=say("cli.arg.preview.folder")
    )
    preview.add_argument("--lesson", metavar="ID", help=say("cli.opt.preview.lesson"))
    preview.add_argument("--page", type=int, metavar="N", help=say("cli.opt.preview.page"))

    grade = sub.add_parser("grade", help=say("cli.cmd.grade"))
    grade.add_argument("lesson_id", nargs="?", metavar="LESSON", help=say("cli.arg.lesson"))
    grade.add_argument("item", nargs="?", metavar="ITEM", help=say("cli.opt.grade.item"))
    answer = grade.add_mutually_exclusive_group(required=True)
    answer.add_argument("--text", metavar="TEXT", help=say("cli.opt.grade.text"))
    answer.add_argument("--file", type=Path, metavar="FILE", help=say("cli.opt.grade.file"))
    answer.add_argument("--eval", type=Path, metavar="FILE", help=say("cli.opt.grade.eval"))
    grade.add_argument(
        "--part",
        choices=("tuning", "held-out", "all"),
        default="tuning",
        help=say("cli.opt.grade.part"),
    )
    grade.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    tok = sub.add_parser("tokenize", help=say("cli.cmd.tokenize"))
    tok.add_argument("text", metavar="TEXT", help=say("cli.arg.tokenize.text"))
    tok.add_argument(
        "--scheme",
        choices=SCHEMES,
        default="project",
        help=say("cli.opt.tokenize.scheme"),
    )
    tok.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    nb = sub.add_parser("neighbours", help=say("cli.cmd.neighbours"))
    nb.add_argument("token", metavar="TOKEN", help=say("cli.arg.token"))
    nb.add_argument(
        "--scheme",
        choices=NEIGHBOUR_SCHEMES,
        default="after",
        help=say("cli.opt.neighbours.scheme"),
    )
    nb.add_argument("--k", type=int, default=5, metavar="N", help=say("cli.opt.k"))
    nb.add_argument(
        "--step",
        type=int,
        metavar="N",
        help=say("cli.opt.neighbours.step"),
    )
    nb.add_argument("--piece", action="store_true", help=say("cli.opt.piece"))
    nb.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    sim = sub.add_parser("similarity", help=say("cli.cmd.similarity"))
    sim.add_argument("tokens", nargs="+", metavar="TOKEN", help=say("cli.arg.token"))
    sim.add_argument("--stage", choices=STAGES, default="after", help=say("cli.opt.stage"))
    sim.add_argument(
        "--step",
        type=int,
        metavar="N",
        help=say("cli.opt.similarity.step"),
    )
    sim.add_argument("--piece", action="store_true", help=say("cli.opt.piece"))
    sim.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    ana = sub.add_parser("analogy", help=say("cli.cmd.analogy"))
    ana.add_argument("a", metavar="A", help=say("cli.arg.analogy.a"))
    ana.add_argument("b", metavar="B", help=say("cli.arg.analogy.b"))
    ana.add_argument("c", metavar="C", help=say("cli.arg.analogy.c"))
    ana.add_argument("--k", type=int, default=5, metavar="N", help=say("cli.opt.k"))
    ana.add_argument("--stage", choices=STAGES, default="after", help=say("cli.opt.stage"))
    ana.add_argument("--piece", action="store_true", help=say("cli.opt.piece"))
    ana.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    facts = sub.add_parser("facts", help=say("cli.cmd.facts"))
    facts.add_argument("--key", metavar="K", help=say("cli.opt.facts.key"))
    facts.add_argument("--json", action="store_true", help=say("cli.opt.json"))

    experiment = sub.add_parser("experiment", help=say("cli.cmd.experiment"))
    which = experiment.add_subparsers(
        dest="experiment",
        metavar="NAME",
        required=True,
        help=say("cli.arg.experiment.name"),
        parser_class=partial(Parser, lang=lang),
    )
    for name in RECORDED_EXPERIMENTS:
        recorded = which.add_parser(name, help=say(f"cli.cmd.experiment.{name}"))
        recorded.add_argument("--json", action="store_true", help=say("cli.opt.json"))
        _add_globals(recorded, default=argparse.SUPPRESS, say=say)
    renumber = which.add_parser("renumber", help=say("cli.cmd.experiment.renumber"))
    renumber.add_argument("--seed", type=int, default=1, metavar="N", help=say("cli.opt.seed"))
    renumber.add_argument(
        "--sentence", default="小明把苹果给了", metavar="TEXT", help=say("cli.opt.sentence")
    )
    renumber.add_argument("--json", action="store_true", help=say("cli.opt.json"))
    _add_globals(renumber, default=argparse.SUPPRESS, say=say)

    train = sub.add_parser("train", help=say("cli.cmd.train"))
    train.add_argument("--corpus", type=Path, metavar="FILE", help=say("cli.opt.train.corpus"))
    train.add_argument("--d", type=int, default=64, metavar="N", help=say("cli.opt.train.d"))
    train.add_argument(
        "--steps", type=int, default=1500, metavar="N", help=say("cli.opt.train.steps")
    )
    train.add_argument("--seed", type=int, default=0, metavar="N", help=say("cli.opt.train.seed"))
    train.add_argument(
        "--out",
        type=Path,
        default=Path("runs/model"),
        metavar="DIR",
        help=say("cli.opt.train.out"),
    )

    assets = sub.add_parser("assets", help=say("cli.cmd.assets"))
    assets.add_argument("action", choices=("build", "verify"), help=say("cli.arg.assets.action"))
    assets.add_argument("--out", type=Path, metavar="DIR", help=say("cli.opt.assets.out"))

    _add_serve_options(sub.add_parser("serve", help=say("cli.cmd.serve")), say)
    report = sub.add_parser("report", help=say("cli.cmd.report"))
    where = report.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, metavar="DIR", help=say("cli.opt.report.data_dir"))
    where.add_argument("--database", metavar="URL", help=say("cli.opt.report.database"))
    report.add_argument("--lesson", metavar="ID", help=say("cli.opt.report.lesson"))
    report.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help=say("cli.opt.report.keys"),
    )
    review = sub.add_parser("review", help=say("cli.cmd.review"))
    where = review.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, metavar="DIR", help=say("cli.opt.report.data_dir"))
    where.add_argument("--database", metavar="URL", help=say("cli.opt.report.database"))
    review.add_argument("--lesson", metavar="ID", help=say("cli.opt.review.lesson"))
    review.add_argument(
        "--authorized-keys", type=Path, metavar="FILE", help=say("cli.opt.report.keys")
    )
    form = report.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help=say("cli.opt.report.csv"))
    form.add_argument("--json", action="store_true", help=say("cli.opt.json"))
    for subparser in sub.choices.values():
        _add_globals(subparser, default=argparse.SUPPRESS, say=say)
    return parser


def _add_serve_options(serve: argparse.ArgumentParser, say: Callable[[str], str]) -> None:
    """`tutor serve`'s options: ServeConfig's fields that say they are one."""
    from tutor.serve.config import options

    for option in options():
        how: dict[str, object] = {"dest": option.name, "default": option.default}
        if option.kind is bool:
            how["action"] = "store_true"
        else:
            how |= {"metavar": option.option.metavar, "choices": option.option.choices}
            if option.kind is not str:
                how["type"] = option.kind
        serve.add_argument(option.flag, help=say(option.option.help), **how)  # type: ignore[arg-type]


@cache
def globals_parser() -> argparse.ArgumentParser:
    """The global options' parser, built once per process: a served session finds it in
    its template (tutor.commands.session.preload). Parsing does not change it."""
    parser = argparse.ArgumentParser(prog="tutor", add_help=False, exit_on_error=False)
    _add_globals(parser, say=str)  # no help here: its keys stand in for the sentences
    return parser


def _globals_only(argv: Sequence[str]) -> argparse.Namespace | None:
    """`tutor` alone, or with global options only: the common start, parsed without
    building every subcommand's parser (~6 ms of each start). None when argv may hold more
    (a command, help, a typo): the full parser then answers, errors included."""
    if any(arg in _HANDLERS or arg in ("-h", "--help") for arg in argv):
        return None
    try:
        args, rest = globals_parser().parse_known_args(argv)
    except argparse.ArgumentError:
        return None
    if rest:
        return None
    args.command = None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    from tutor.words.i18n import lang_of_argv

    argv = sys.argv[1:] if argv is None else list(argv)
    args = _globals_only(argv) or build_parser(lang_of_argv(argv)).parse_args(argv)
    module = importlib.import_module(f"tutor.commands.{_HANDLERS[args.command]}")
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
