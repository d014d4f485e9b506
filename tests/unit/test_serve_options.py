"""`tutor serve`'s options and the ServeConfig the command builds come from one source (the
fields' metadata in tutor/serve/config.py): an option cannot be on the command line and
not reach the server, or the other way round, and its default is the field's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tutor.cli import build_parser
from tutor.commands.serve import config_from
from tutor.serve.config import CommandLineOption, ServeConfig, options


def test_the_serve_commands_options_are_the_configs_fields() -> None:
    parser = build_parser("en")
    parsed = vars(parser.parse_args(["serve"]))
    for name in vars(parser.parse_args([])):  # the global options and the command
        parsed.pop(name)
    assert parsed == {option.name: option.default for option in options()}


def _other_value(option: CommandLineOption, tmp_path: Path) -> tuple[list[str], Any]:
    """A command line giving the option a value other than its default, and that value as
    the server should have it."""
    if option.kind is bool:
        return [option.flag], not option.default
    if option.option.choices:
        (other, *_) = (c for c in option.option.choices if c != option.default)
        return [option.flag, other], other
    if option.kind is Path:
        folder = tmp_path / option.name
        folder.mkdir()
        return [option.flag, str(folder)], folder.resolve()
    if option.name == "database":
        url = "postgresql://tutor@db.example/tutor"
        return [option.flag, url], url
    if option.kind is str:
        return [option.flag, "0.0.0.0"], "0.0.0.0"
    value = option.kind(option.default + 1)
    return [option.flag, str(value)], value


@pytest.mark.parametrize("who", ["open", "authorized_keys"])
def test_every_option_given_reaches_the_server(
    who: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TUTOR_LIVE_TRAINING", raising=False)
    monkeypatch.delenv("TUTOR_LIVE_SLOTS", raising=False)
    argv, expected = ["serve"], {}
    excluded = {"open", "authorized_keys"} - {who}  # they exclude each other
    for option in options():
        if option.name in excluded:
            continue
        given, expected[option.name] = _other_value(option, tmp_path)
        argv += given
    if who == "authorized_keys":
        keys = tmp_path / "keys"
        keys.write_text("")
        argv[argv.index("--authorized-keys") + 1] = str(keys)
        expected["authorized_keys"] = keys
    config = config_from(build_parser("en").parse_args(argv))
    assert isinstance(config, ServeConfig), config
    assert {name: getattr(config, name) for name in expected} == expected
