"""Fixtures every test folder may use."""

from tests.postgres import postgres_server

__all__ = ["postgres_server"]
