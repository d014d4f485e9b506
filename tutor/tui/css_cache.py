"""Parsed CSS shared by every app in the process, per theme.

Why: Textual keeps what it parsed in a cache of each app's stylesheet, so every new app
tokenizes every widget's CSS again. A served session is a fork of a template that has
already drawn a first screen; that parse was about a tenth of each session's start-up
CPU, and of the time ten learners connecting at once wait for their first screens.

Parsed rules carry the theme's colours (variables are substituted as CSS is parsed), so
the key holds the stylesheet's variables as well as what Textual's own key holds. Rules
are not changed once parsed: Textual already hands the same parsed rules to every parse
of one stylesheet.

The hook is private: `Stylesheet._parse_rules`. Textual is pinned exactly (==8.2.8) in
pyproject.toml, and tests/tui/test_css_cache.py fails if the hook stops being called.
"""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

SHARED_PARSES = 256  # (theme, CSS source) pairs kept: ~25 sources per app, a few themes

_parsed: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(SHARED_PARSES)
_own_parse_rules = Stylesheet._parse_rules


def _variables_key(stylesheet: Stylesheet) -> tuple[tuple[str, str], ...]:
    """The stylesheet's variables as a key, worked out again only when they are replaced
    (Textual's set_variables assigns a new dict)."""
    variables = stylesheet._variables
    known = getattr(stylesheet, "_tutor_variables_key", None)
    if known is None or known[0] is not variables:
        known = (variables, tuple(sorted(variables.items())))
        stylesheet._tutor_variables_key = known  # type: ignore[attr-defined]
    return known[1]


def _shared_parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> list[RuleSet]:
    key = (_variables_key(self), css, read_from, is_default_rules, tie_breaker, scope)
    rules = _parsed.get(key)
    if rules is None:
        rules = _own_parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        if not any(rule.errors for rule in rules):  # a broken sheet is reported each time
            _parsed[key] = rules
    return rules


def install() -> None:
    """Share parsed CSS between the apps of this process; safe to repeat."""
    Stylesheet._parse_rules = _shared_parse_rules  # type: ignore[method-assign]
