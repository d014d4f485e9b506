"""The checks that need the engine: fact keys and the project tokenizer.

Both are loaded once per check run, lazily, so a lesson without facts or widget tokens
never pays for them; if either cannot load, that is said once instead of once per use.
"""

from __future__ import annotations

from pathlib import Path

from tutor.content.problems import Problem
from tutor.content.prose import find_fact_refs, unreadable_fact_refs
from tutor.content.source import Said, SourceFile, close_to, did_you_mean


class EngineChecks:
    def __init__(self, model_dir: Path | None = None, facts_dir: Path | None = None) -> None:
        self._model_dir = model_dir
        self._facts_dir = facts_dir
        self._fact_keys: set[str] | None = None
        self._facts_error: Said | None = None
        self._scheme = None
        self._scheme_error: Said | None = None
        self._said: set[str] = set()

    def _load_fact_keys(self) -> None:
        if self._fact_keys is not None or self._facts_error is not None:
            return
        try:
            from tutor.core.facts import load_facts

            self._fact_keys = load_facts(self._facts_dir).known_keys()
        except (ImportError, OSError, ValueError) as error:
            message = f"cannot check fact keys, the facts did not load: {error}"
            self._facts_error = message, "facts_not_loaded", {"error": str(error)}

    def fact_problems(self, source: SourceFile) -> list[Problem]:
        """One error per {{fact:key}} anywhere in the file whose key is not a known fact."""
        problems = []
        for number, text in enumerate(source.lines, 1):
            for col in unreadable_fact_refs(text):
                message = "a fact reference is written {{fact:key}} on one line; this one is not"
                problems.append(
                    source.problem(number, col + 1, message, width=6, code="fact_ref_broken")
                )
            for ref in find_fact_refs(text):
                self._load_fact_keys()
                col, width = ref.start + 1, ref.end - ref.start
                if self._facts_error is not None:
                    message, code, values = self._facts_error
                    if message not in self._said:
                        self._said.add(message)
                        problems.append(source.problem(number, col, message, code=code, **values))
                    continue
                if ref.key not in (self._fact_keys or ()):
                    close = close_to(ref.key, sorted(self._fact_keys or ()))
                    message = f"unknown fact key {ref.key!r}{did_you_mean(close)}"
                    problem = source.problem(
                        number,
                        col,
                        message,
                        width=width,
                        code="unknown_fact",
                        fact=ref.key,
                        suggestion=close,
                    )
                    problems.append(problem)
        return problems

    def split_message(self, token: str) -> Said | None:
        """Why token is not one token of the project model, or None if it is; a refusal of
        the core is said by its code as `core.<code>`.

        Widgets that look a token up (neighbours, heatmap, analogy, rows) use the project
        model's own tokenizer, since its table is the one they show.
        """
        if self._scheme is None and self._scheme_error is None:
            try:
                from tutor.core.tokenize import get_scheme

                self._scheme = get_scheme("project", self._model_dir)
            except (ImportError, OSError, ValueError) as error:
                message = f"cannot check widget tokens, no project tokenizer: {error}"
                self._scheme_error = message, "tokenizer_not_loaded", {"error": str(error)}
        if self._scheme_error is not None:
            if self._scheme_error[0] in self._said:
                return None
            self._said.add(self._scheme_error[0])
            return self._scheme_error
        from tutor.core.tokenize import TokenizeError

        try:
            self._scheme.single_id(token)
        except TokenizeError as error:
            return str(error), f"core.{error.code}", dict(error.values)
        return None
