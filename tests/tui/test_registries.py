"""The registries the content layer and the TUI each keep must name the same things: a page
kind `tutor check` accepts has a screen to show it, and a widget block it accepts has a
widget to draw it (and neither names one the other has never heard of)."""

from __future__ import annotations

import inspect

from textual.screen import Screen
from textual.widget import Widget

from tutor.content.models import PAGE_FRONTS
from tutor.content.widgets import WIDGETS
from tutor.tui.app import SCREEN_FOR_KIND, screen_class
from tutor.tui.screens.page import WIDGET_CLASSES, widget_class


def test_every_page_kind_has_exactly_one_screen() -> None:
    assert set(SCREEN_FOR_KIND) == set(PAGE_FRONTS)
    screens = [screen_class(kind) for kind in SCREEN_FOR_KIND]
    assert all(issubclass(screen, Screen) for screen in screens)
    assert len(set(screens)) == len(screens), "two page kinds share a screen class"


def test_every_widget_block_has_a_widget_class() -> None:
    assert set(WIDGET_CLASSES) == set(WIDGETS)
    for name in WIDGET_CLASSES:
        widget = widget_class(name)
        assert inspect.isclass(widget) and issubclass(widget, Widget), name
