"""The private parts of argparse the command line (tutor.cli) relies on to speak the
interface's language and to count Chinese as two columns: argparse has no public way to
title its option groups, to name "usage:", or to wrap help by terminal columns. Its
English error messages are matched by tutor.cli._usage_error, and tests/unit/test_cli.py
checks each one is still said in both languages."""

from __future__ import annotations

from tutor.hooks import Hook

HOOKS = (
    Hook("argparse:ArgumentParser._positionals", "tutor.cli", assigned=True),
    Hook("argparse:ArgumentParser._optionals", "tutor.cli", assigned=True),
    Hook("argparse:HelpFormatter._width", "tutor.cli", assigned=True),
    Hook("argparse:HelpFormatter._split_lines", "tutor.cli", ("self", "text", "width")),
    Hook("argparse:HelpFormatter._fill_text", "tutor.cli", ("self", "text", "width", "indent")),
    Hook(
        "argparse:HelpFormatter.add_usage",
        "tutor.cli",
        ("self", "usage", "actions", "groups", "prefix"),
    ),
)
