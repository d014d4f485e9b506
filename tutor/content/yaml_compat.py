"""The parts of ruamel.yaml's parser that tutor.content.source's limits rely on: its
parser is replaced on the YAML object (`YAML.Parser`), and the replacement reads each event
as the parser makes it (`state`, `current_event`) and reaches the limits through its
`loader`, so that every event is counted before the composer so much as peeks at it."""

from __future__ import annotations

from tutor.hooks import Hook

HOOKS = (
    Hook("ruamel.yaml.main:YAML.Parser", "tutor.content.source", assigned=True),
    Hook("ruamel.yaml.parser:Parser.state", "tutor.content.source", assigned=True),
    Hook("ruamel.yaml.parser:Parser.current_event", "tutor.content.source", assigned=True),
    Hook("ruamel.yaml.parser:Parser.loader", "tutor.content.source", assigned=True),
    Hook("ruamel.yaml.parser:Parser.check_event", "tutor.content.source", ("self", "choices")),
    Hook("ruamel.yaml.parser:Parser.peek_event", "tutor.content.source", ("self",)),
    Hook("ruamel.yaml.parser:Parser.get_event", "tutor.content.source", ("self",)),
)
