"""Argument parsing: the quick path for a bare `tutor` agrees with the full parser."""

from __future__ import annotations

import pytest

from tutor.cli import _globals_only, build_parser, globals_parser, main


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--lang", "en"],
        ["--lang=en"],
        ["--model", "/tmp/m", "--learner", "ada", "--content", "c"],
        ["--lea", "ada"],  # an abbreviation, as argparse allows
    ],
)
def test_global_options_alone_parse_as_the_full_parser_does(argv: list[str]) -> None:
    quick = _globals_only(argv)
    assert quick is not None
    assert vars(quick) == vars(build_parser().parse_args(argv))


def test_the_global_options_parser_is_built_once_per_process() -> None:
    """Every served session parses its `--learner ID` with the one its template built
    (tutor.commands.session.preload), not with one of its own; parsing leaves it as it was."""
    globals_parser.cache_clear()
    built = globals_parser()
    assert vars(_globals_only(["--learner", "ada"])) == {
        **vars(_globals_only([])),
        "learner": "ada",
    }
    assert globals_parser() is built and globals_parser.cache_info().currsize == 1
    assert built.parse_known_args([])[0].learner is None  # no learner left behind


@pytest.mark.parametrize(
    "argv",
    [
        ["lesson", "embedding"],
        ["--model", "check"],  # a command's name anywhere: the full parser decides
        ["-h"],
        ["--help"],
        ["--lang", "fr"],
        ["--model"],
        ["lesosn"],
        ["--page", "3"],
    ],
)
def test_anything_more_goes_to_the_full_parser(argv: list[str]) -> None:
    assert _globals_only(argv) is None


def test_a_mistyped_command_still_gets_argparse_s_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["lesosn"])
    assert exited.value.code == 2
    assert "没有「lesosn」这个选项" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--lang", "en", "lesosn"])
    assert "invalid choice: 'lesosn'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "zh", "en"),
    [
        (
            ["grade"],
            "tutor grade：--text、--file、--eval 之中要给出一个",
            "tutor grade: error: one of the arguments --text --file --eval is required",
        ),
        (
            ["lesson", "embedding", "--page", "abc"],
            "tutor lesson：参数 --page：「abc」不是整数",
            "tutor lesson: error: argument --page: invalid int value: 'abc'",
        ),
        (
            ["bogus"],
            "tutor：参数 COMMAND：没有「bogus」这个选项（可选：lesson、explore、check、new、"
            "preview、grade、tokenize、neighbours、similarity、analogy、facts、experiment、train、"
            "assets、serve、report、review）",
            "tutor: error: argument COMMAND: invalid choice: 'bogus' (choose from 'lesson', "
            "'explore', 'check', 'new', 'preview', 'grade', 'tokenize', 'neighbours', "
            "'similarity', 'analogy', 'facts', 'experiment', 'train', 'assets', 'serve', 'report', "
            "'review')",
        ),
        (
            ["facts", "--nope"],
            "tutor：不认识的参数：--nope",
            "tutor: error: unrecognized arguments: --nope",
        ),
        (
            ["facts", "--key"],
            "tutor facts：参数 --key 后面要跟一个值",
            "tutor facts: error: argument --key: expected one argument",
        ),
        (
            ["grade", "embedding", "summary", "--text", "a", "--file", "b"],
            "tutor grade：参数 --file 不能和 --text 一起用",
            "tutor grade: error: argument --file: not allowed with argument --text",
        ),
        (
            ["grade", "embedding", "summary"],
            "tutor grade：--text、--file、--eval 之中要给出一个",
            "tutor grade: error: one of the arguments --text --file --eval is required",
        ),
    ],
)
def test_usage_errors_are_said_in_the_interface_language(
    capsys: pytest.CaptureFixture[str], argv: list[str], zh: str, en: str
) -> None:
    for lang, said, usage in (("zh", zh, "用法："), ("en", en, "usage: ")):
        with pytest.raises(SystemExit) as exited:
            main([*argv, "--lang", lang] if argv != ["bogus"] else ["--lang", lang, *argv])
        err = capsys.readouterr().err
        assert exited.value.code == 2
        assert err.startswith(usage)
        assert err.splitlines()[-1] == said


def test_help_lists_the_commands_in_the_interface_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("用法：tutor")
    assert "打开一课，可以指定从第几页开始" in out
    assert "options" not in out and "show this help" not in out
    with pytest.raises(SystemExit):
        main(["--lang", "en", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: tutor")
    assert "open a lesson, optionally at a page" in out


def test_every_option_is_explained_in_chinese_and_in_english_as_before() -> None:
    import argparse
    import re

    def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
        found = {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found |= {f"{name} {k}": v for k, v in helps(sub).items()}
                found |= {f"{c.dest}": c.help or "" for c in action._choices_actions}
            elif action.help:
                found[action.dest] = action.help
        return found

    zh, en = helps(build_parser("zh")), helps(build_parser("en"))
    assert zh.keys() == en.keys() and len(zh) > 50
    assert [k for k, v in zh.items() if not re.search(r"[\u4e00-\u9fff]", v)] == []
    assert en["grade item"] == "a text question's id, or `summary`"


def test_chinese_help_fits_an_80_column_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import unicodedata

    monkeypatch.setenv("COLUMNS", "80")
    parser = build_parser("zh")
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for each in (parser, *commands.choices.values()):
        for line in each.format_help().splitlines():
            width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
            assert width <= 80 or width == len(line), line  # argparse's own long usage lines


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_argument_of_every_command_has_a_help_line(lang: str) -> None:
    """`tutor grade --help` once listed `--json` with nothing beside it: every option and
    every positional argument of every command says what it is for, in both languages."""
    import argparse
    import re

    parser = build_parser(lang)  # type: ignore[arg-type]
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    bare = [
        f"{name} {action.option_strings[-1] if action.option_strings else action.metavar}"
        for name, command in {"": parser, **commands.choices}.items()
        for action in command._actions
        if action is not commands and action.help is not argparse.SUPPRESS
        if not (action.help or "").strip()
    ]
    assert bare == []
    other = build_parser("en" if lang == "zh" else "zh")
    (translated,) = [a for a in other._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        for action, its_translation in zip(
            command._actions, translated.choices[name]._actions, strict=True
        ):
            assert action.help != its_translation.help, action.help
            if lang == "zh":
                assert re.search(r"[\u4e00-\u9fff]", action.help), action.help
