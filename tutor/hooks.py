"""A private name of a library the tutor relies on, as each library's compat module lists
it (tutor/tui/compat.py for Textual and Rich, tutor/argparse_compat.py, the YAML parser's
in tutor/content/yaml_compat.py; asyncssh's in tutor/serve/compat.py; pydantic's in
tutor/pydantic_compat.py). One test (tests/unit/test_private_hooks.py) checks every one
after an upgrade."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Hook:
    """One private name: where it is (`module:Qualified.name`), who relies on it, and how.

    `parameters`: a method's parameters as the tutor calls or overrides it; `assigned`: an
    attribute the library sets on its instances (so it is found in its source, not on the
    class); neither: the name only has to exist."""

    target: str
    used_by: str
    parameters: tuple[str, ...] | None = None
    assigned: bool = False
