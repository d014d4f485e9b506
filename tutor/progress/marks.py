"""The teacher's marks on one learner's answer: the format kept in the progress store.

`tutor review` writes them; the learner reads them on the summary page ("老师批改") and
`tutor report` counts them beside the grader's and the learner's own self-check.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Held = Literal["held", "fixed"]


class TeacherMarks(BaseModel):
    """What the teacher decided about one item (the summary or a text question)."""

    claims: dict[str, bool] = {}
    """Claim id -> met; a claim the teacher has not marked is absent."""
    misconceptions: dict[str, Held] = {}
    """Misconception id -> whether the learner still holds it or has fixed it."""
    comment: str = ""
