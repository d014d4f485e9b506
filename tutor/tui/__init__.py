"""Textual app: screens, widgets and the progress store binding."""
