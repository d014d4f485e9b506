"""Argument parsing: the quick path for a bare `tutor` agrees with the full parser."""

from __future__ import annotations

import pytest

from tutor.cli import _globals_only, build_parser, main


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
    assert "invalid choice: 'lesosn'" in capsys.readouterr().err
