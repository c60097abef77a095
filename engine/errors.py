"""Errors the engine raises. All are ValueError subclasses whose message a player can read."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class OptionError(EngineError):
    """A game could not be created: bad players or options (C2, option tables)."""


class MoveParseError(EngineError):
    """A move's text form could not be understood."""


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow now."""


class StateError(EngineError):
    """Saved state that does not load: wrong schema or broken invariants."""


class RecordError(EngineError):
    """A game record that does not replay. `move_number` is 1-based, or None for the header."""

    def __init__(self, message: str, move_number: int | None = None) -> None:
        super().__init__(message)
        self.move_number = move_number
