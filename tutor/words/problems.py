"""Content problems in the interface's language, by their code (tutor.content.problems).

A problem's message is English; its code names a sentence `content.<code>` in strings.toml
(the core's refusals, which a widget's token check passes on, `core.<code>`, as
tutor.words.refusals says them). The place (`path:line:col:`) stays in front, as
`tutor check` prints it, so an editor still jumps to the spot.
"""

from __future__ import annotations

from tutor.content.problems import Problem, render_problem
from tutor.core.refusal import Coded
from tutor.words import i18n
from tutor.words.refusals import Says, say

CORE = "core."


def say_problem(ctx: Says, problem: Problem) -> str:
    """The problem's message in ctx's language; its English message if its code has no
    sentence (a cache written before codes, say)."""
    code = problem.code
    core = code.startswith(CORE)
    key = code if core else f"content.{code}"
    if not code or not i18n.has(key):
        return problem.message
    values = dict(problem.values)
    widget = values.pop("in_widget", "")
    where = values.pop("where", "")
    suggestion = values.pop("suggestion", None)
    if "block" in values:
        block = values.pop("block")
        what = ctx.t("content.what.widget", widget=block) if block else None
        values["what"] = what or ctx.t("content.what.front")
    if core:
        text = say(ctx, Coded(problem.message, code.removeprefix(CORE), **values))
    else:
        text = ctx.t(key, **values)
    if where:
        text += ctx.t("content.where", where=where)
    if suggestion:
        text += ctx.t("content.did_you_mean", suggestion=suggestion)
    return ctx.t("content.in_widget", widget=widget, problem=text) if widget else text


def render_said(ctx: Says, problem: Problem, width: int | None = None) -> str:
    """`render_problem` with the message and its severity in ctx's language."""
    return render_problem(
        problem,
        width,
        message=say_problem(ctx, problem),
        severity=ctx.t(f"content.severity.{problem.severity}"),
    )
