"""Lesson files -> validated pydantic models, and `tutor check`. Never imports textual."""
