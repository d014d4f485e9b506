"""Parsed CSS and styles shared by every app in the process, per theme.

Why: Textual keeps what it parsed in a cache of each app's stylesheet, so every new app
tokenizes every widget's CSS again. A served session is a fork of a template that has
already drawn a first screen; that parse was about a tenth of each session's start-up
CPU, and of the time ten learners connecting at once wait for their first screens.

Parsed rules carry the theme's colours (variables are substituted as CSS is parsed), so
the key holds the stylesheet's variables as well as what Textual's own key holds. Rules
are not changed once parsed: Textual already hands the same parsed rules to every parse
of one stylesheet.

Styles named in text ("bold $text-error") are parsed with the theme's colours too, and
shared the same way. So are a theme's CSS variables themselves: Textual derives about 150
colours from the theme's few for every new app, the same in every session.

The hooks are private (tutor.tui.compat): `Stylesheet._parse_rules` and
`Stylesheet.parse_style`. Textual is pinned exactly (==8.2.8) in pyproject.toml, and
tests/tui/test_css_cache.py fails if a hook stops being called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.style import Style

from tutor.tui import compat

SHARED_PARSES = 256  # (theme, CSS source) pairs kept: ~25 sources per app, a few themes
SHARED_STYLES = 4096  # (theme, style text) pairs kept, as many as one stylesheet keeps

_parsed: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(SHARED_PARSES)
_styles: LRUCache[tuple[Any, ...], Style] = LRUCache(SHARED_STYLES)


_themes: dict[tuple[tuple[str, str], ...], int] = {}  # a theme's variables -> a short key
# (app class, theme name) -> the theme and its CSS variables, as Textual worked them out
_variables: dict[tuple[type, str], tuple[object, dict[str, str]]] = {}


def theme_variables(app: App[Any], work_out: Callable[[], dict[str, str]]) -> dict[str, str]:
    """The app's CSS variables for its theme: what `work_out` (Textual's own
    get_css_variables) gave the first app of its class in that theme. They depend on the
    theme alone (and on the class's get_theme_variable_defaults); each app gets its copy."""
    theme = app.current_theme
    key = (type(app), theme.name)
    known = _variables.get(key)
    if known is None or known[0] is not theme:  # a theme registered anew under that name
        known = _variables[key] = (theme, work_out())
    app.theme_variables = dict(known[1])  # as Textual's own sets it
    return dict(known[1])


def _variables_key(stylesheet: Stylesheet) -> int:
    """A small number standing for the stylesheet's variables (hashed on every lookup,
    so not the hundred pairs themselves), worked out again only when they are replaced
    (Textual's set_variables assigns a new dict)."""
    variables = compat.stylesheet_variables(stylesheet)
    known = getattr(stylesheet, "_tutor_variables_key", None)
    if known is None or known[0] is not variables:
        theme = _themes.setdefault(tuple(sorted(variables.items())), len(_themes))
        known = (variables, theme)
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
        rules = compat.OWN_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
        if not any(rule.errors for rule in rules):  # a broken sheet is reported each time
            _parsed[key] = rules
    return rules


def _shared_parse_style(self: Stylesheet, style_text: str | Style) -> Style:
    if isinstance(style_text, Style):
        return style_text
    key = (_variables_key(self), style_text)
    style = _styles.get(key)
    if style is None:
        style = _styles[key] = compat.OWN_PARSE_STYLE(self, style_text)
    return style


def install() -> None:
    """Share parsed CSS and styles between the apps of this process; safe to repeat."""
    compat.install_stylesheet_parsers(_shared_parse_rules, _shared_parse_style)
