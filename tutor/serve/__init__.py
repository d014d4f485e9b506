"""`tutor serve`: one PTY and one child tutor process per SSH session."""
