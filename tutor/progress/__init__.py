"""The progress store as its own layer: pages, quiz attempts, summaries and self-checks of
every learner, in SQLite (the default, one file) or PostgreSQL (several servers, one
database). No Textual here: the app, `tutor serve` and `tutor report` all use it.
"""
