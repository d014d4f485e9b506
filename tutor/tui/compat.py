"""Every private Textual and Rich name the tutor relies on, in one place.

Why: each hook below was taken for a measured reason (its module says which), and none is
promised to survive an upgrade. Textual is pinned exactly (==8.2.8) in pyproject.toml; an
upgrade starts with tests/unit/test_private_hooks.py, which checks every hook in HOOKS is
still there and takes the parameters the tutor passes, and tests/tui/test_compat.py, that
no other tutor module imports a private Textual or Rich module.

Private modules are imported here only, and another object's private names are reached
through a function here; the tutor's overrides of private methods, and a subclass's reads
of its own inherited private state, stay in their classes (they are those classes'
behaviour) and are listed in HOOKS.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import rich._wrap
import textual._wrap
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual._loop import loop_last
from textual._parser import ParseError, Peek1, Read1, TokenCallback
from textual._time import get_time as message_clock
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser
from textual.css.stylesheet import Stylesheet
from textual.drivers._writer_thread import WriterThread
from textual.widgets._toast import ToastRack

from tutor.hooks import Hook

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

__all__ = [
    "BRACKETED_PASTE_END",
    "BRACKETED_PASTE_START",
    "HOOKS",
    "ChopsUpdate",
    "CompositorUpdate",
    "LayoutUpdate",
    "ParseError",
    "Peek1",
    "Read1",
    "TokenCallback",
    "WriterThread",
    "XTermParser",
    "loop_last",
    "message_clock",
]


HOOKS = (
    # line breaking per CJK character (tutor.tui.cjk_wrap)
    Hook("rich._wrap:re_word", "tutor.tui.cjk_wrap"),
    Hook("textual._wrap:re_chunk", "tutor.tui.cjk_wrap"),
    # parsed CSS shared between apps (tutor.tui.css_cache)
    Hook(
        "textual.css.stylesheet:Stylesheet._parse_rules",
        "tutor.tui.css_cache",
        ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"),
    ),
    Hook(
        "textual.css.stylesheet:Stylesheet.parse_style",
        "tutor.tui.css_cache",
        ("self", "style_text"),
    ),
    Hook("textual.css.stylesheet:Stylesheet._variables", "tutor.tui.css_cache", assigned=True),
    # a frame sends only the rows the terminal does not show yet (tutor.tui.sent_rows)
    Hook("textual._compositor:CompositorUpdate", "tutor.tui.sent_rows"),
    Hook("textual._compositor:LayoutUpdate", "tutor.tui.sent_rows"),
    Hook("textual._compositor:ChopsUpdate", "tutor.tui.sent_rows"),
    Hook("textual.app:App._display", "tutor.tui.app", ("self", "screen", "renderable")),
    Hook("textual.app:App._batch_count", "tutor.tui.app", assigned=True),
    Hook("textual.app:App._closed", "tutor.tui.app", assigned=True),
    # the crash path (tutor.tui.crash_path)
    Hook("textual.app:App._fatal_error", "tutor.tui.crash_path", ("self",)),
    Hook("textual.app:App.panic", "tutor.tui.crash_path", ("self", "renderables")),
    Hook("textual.app:App._exception", "tutor.tui.crash_path", assigned=True),
    Hook("textual.app:App._close_messages_no_wait", "tutor.tui.crash_path", ("self",)),
    Hook("textual.app:App._handle_exception", "tutor.tui.crash_path", ("self", "error")),
    # a notice shown once (tutor.tui.app)
    Hook("textual.app:App._on_notify", "tutor.tui.app", ("self", "event")),
    Hook("textual.app:App._unnotify", "tutor.tui.app", ("self", "notification", "refresh")),
    Hook("textual.app:App._notifications", "tutor.tui.app", assigned=True),
    # a stop signal lets the keys already typed be handled first (tutor.tui.app): the app
    # asks its own driver, which Textual keeps to itself
    Hook("textual.app:App._driver", "tutor.tui.app", assigned=True),
    # the terminal's input (tutor.tui.driver)
    Hook(
        "textual.drivers.linux_driver:LinuxDriver.run_input_thread", "tutor.tui.driver", ("self",)
    ),
    Hook(
        "textual.drivers.linux_driver:LinuxDriver._run_input_thread", "tutor.tui.driver", ("self",)
    ),
    Hook(
        "textual.drivers.linux_driver:LinuxDriver._query_in_band_window_resize",
        "tutor.tui.driver",
        ("self",),
    ),
    Hook("textual.drivers.linux_driver:LinuxDriver._debug", "tutor.tui.driver", assigned=True),
    # a key counts as handled once the focused widget has it; a fault in the input thread
    # goes down the crash path; a malformed extended key is ignored instead of raising
    Hook("textual.driver:Driver._app", "tutor.tui.driver", assigned=True),
    Hook("textual.app:App._handle_exception", "tutor.tui.driver", ("self", "error")),
    Hook(
        "textual._xterm_parser:XTermParser._parse_extended_key",
        "tutor.tui.driver",
        ("self", "sequence"),
    ),
    Hook("textual.drivers._writer_thread:WriterThread", "tutor.commands.app"),
    Hook("textual._xterm_parser:XTermParser.feed", "tutor.tui.driver", ("self", "data")),
    # long single-line fields (tutor.tui.widgets.field)
    Hook(
        "textual.widgets._input:Input._position_to_cell",
        "tutor.tui.widgets.field",
        ("self", "position"),
    ),
    Hook("textual.widgets._input:Input._suggestion", "tutor.tui.widgets.field", assigned=True),
    Hook("textual.widgets._input:Input._cursor_visible", "tutor.tui.widgets.field"),
    # the lesson's prose blocks (tutor.tui.screens.page)
    Hook(
        "textual.widgets._markdown:Markdown._parse_markdown",
        "tutor.tui.screens.page",
        ("self", "tokens"),
    ),
    # a page turned back to keeps its styles unless the theme changed (tutor.tui.screens.page)
    Hook(
        "textual.screen:Screen._on_screen_resume",
        "tutor.tui.screens.page",
        ("self", "event"),
    ),
    # a resize to the size a screen is laid out at lays nothing out (tutor.tui.screens.sizing)
    Hook("textual.screen:Screen._screen_resized", "tutor.tui.screens.sizing", ("self", "size")),
    Hook("textual.screen:Screen._compositor", "tutor.tui.screens.sizing", assigned=True),
    # a screen's first layout is its only one unless a scrollbar came (tutor.tui.screens.sizing)
    Hook(
        "textual.screen:Screen._refresh_layout",
        "tutor.tui.screens.sizing",
        ("self", "size", "scroll"),
    ),
    Hook("textual.widget:Widget._layout_required", "tutor.tui.screens.sizing", assigned=True),
    Hook("textual.screen:Screen._on_layout", "tutor.tui.screens.sizing", ("self", "message")),
    Hook("textual.screen:Screen._on_update", "tutor.tui.screens.sizing", ("self", "message")),
    Hook("textual.widget:Widget._repaint_required", "tutor.tui.screens.sizing", assigned=True),
    Hook("textual._time:get_time", "tutor.tui.screens.sizing"),
    Hook(
        "textual.widgets._toast:ToastRack.show",
        "tutor.tui.screens.sizing",
        ("self", "notifications"),
    ),
    # a handler that runs while its page is taken down does nothing (tutor.tui.widgets.asking)
    Hook("textual.widget:Widget._pruning", "tutor.tui.widgets.asking", assigned=True),
    Hook("textual.widget:Widget._closing", "tutor.tui.widgets.asking", assigned=True),
    # Tab reaches a fact strip after the page's widgets (tutor.tui.widgets.facts)
    Hook("textual.widget:Widget._focus_sort_key", "tutor.tui.widgets.facts"),
    # "no matches" in the learner's language (tutor.tui.palette): without it a learner
    # reading Chinese is told "No matches found"
    Hook(
        "textual.command:CommandPalette._start_no_matches_countdown",
        "tutor.tui.palette",
        ("self", "search_value"),
    ),
    Hook(
        "textual.command:CommandPalette._stop_no_matches_countdown", "tutor.tui.palette", ("self",)
    ),
    Hook("textual.command:CommandPalette._NO_MATCHES", "tutor.tui.palette"),
    Hook("textual.command:CommandPalette._NO_MATCHES_COUNTDOWN", "tutor.tui.palette"),
    Hook("textual.command:CommandPalette._list_visible", "tutor.tui.palette"),
    Hook("textual.command:CommandPalette._no_matches_timer", "tutor.tui.palette", assigned=True),
    # options drawn without colour (tutor.tui.widgets.quiz_choices)
    Hook(
        "textual.widgets._toggle_button:ToggleButton.BUTTON_INNER", "tutor.tui.widgets.quiz_choices"
    ),
    # which text widget has the focus, without importing them (tutor.tui.widgets.keybar)
    Hook("textual.widgets._input:Input", "tutor.tui.widgets.keybar"),
    Hook("textual.widgets._text_area:TextArea", "tutor.tui.widgets.keybar"),
)


def install_wrap_patterns(word: Any, chunk: Any) -> None:
    """Rich's and Textual's wrappers split lines into words with these patterns: Rich's
    (Content, Static, Label, Markdown, OptionList, Text.wrap) calls `word.finditer`,
    Textual's TextArea soft wrap `chunk.match`."""
    rich._wrap.re_word = word
    textual._wrap.re_chunk = chunk


OWN_PARSE_RULES = Stylesheet._parse_rules
OWN_PARSE_STYLE = Stylesheet.parse_style


def install_stylesheet_parsers(parse_rules: Any, parse_style: Any) -> None:
    """Every Stylesheet of the process parses CSS and style text with these (they may call
    OWN_PARSE_RULES and OWN_PARSE_STYLE)."""
    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]
    Stylesheet.parse_style = parse_style  # type: ignore[method-assign]


def stylesheet_variables(stylesheet: Stylesheet) -> dict[str, str]:
    """The variables the stylesheet substitutes as it parses (a new dict when replaced)."""
    return stylesheet._variables


def hide_notice_racks(screen: Screen[Any]) -> None:
    """Textual's notice rack, off as its CSS has it, set off inline too: Textual does that
    (ToastRack.show) as the screen resumes, after its first frame, and the inline rule is
    new then, so the whole screen was laid out again for a widget that stays hidden."""
    for rack in screen.query(ToastRack):
        rack.display = False


def drop_refresh_requests(widgets: list[Widget]) -> None:
    """The widgets' requests to be laid out or drawn again (refresh()), not yet sent to
    their screen, dropped."""
    for widget in widgets:
        widget._layout_required = widget._repaint_required = False


def taken_down(widget: Widget) -> bool:
    """Textual has marked the widget to go with its page (pruning it, or closing it)."""
    return widget._pruning or widget._closing


def crash_in_app(app: App[Any], error: BaseException) -> None:
    """`error`, raised on another thread, goes down the app's loop as if raised there."""
    app.call_later(app._handle_exception, error)


def loaded_widget_class(name: str) -> type | None:
    """Textual's Input or TextArea class if something has loaded it already, else None
    (the lesson list must not import the text widgets to ask whether one has the focus)."""
    module = sys.modules.get(_TEXT_WIDGET_MODULES[name])
    return getattr(module, name, None)


_TEXT_WIDGET_MODULES = {"Input": "textual.widgets._input", "TextArea": "textual.widgets._text_area"}
