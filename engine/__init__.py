"""The SKYJO rules engine: pure Python, no web, database, clock or I/O.

State in, move in, new state and events out. See docs/engine-api.md for the contract and
`engine.game` for the design. Rules are cited by their ids in ../shared/RULES.md (C1-C13, A1-A11).
"""

from __future__ import annotations

from .api import apply_move, copy_game, new_game, record, replay, times_seen
from .bots import bot_move, play_out
from .errors import EngineError, IllegalMove, MoveParseError, OptionError, RecordError, StateError
from .game import Game, Pending
from .moves import CELL_NAMES, Move, parse_cell, parse_move
from .options import OPTION_HELP, defaults, option_table, validate_options
from .repetition import RepeatedPosition, RepetitionGuard
from .view import describe, spectator_view, view

__all__ = [
    "CELL_NAMES",
    "LEVELS",
    "OPTION_HELP",
    "EngineError",
    "Game",
    "IllegalMove",
    "Move",
    "MoveParseError",
    "OptionError",
    "Pending",
    "RecordError",
    "RepeatedPosition",
    "RepetitionGuard",
    "StateError",
    "apply_move",
    "bot_for_level",
    "bot_move",
    "copy_game",
    "defaults",
    "describe",
    "new_game",
    "option_table",
    "parse_cell",
    "parse_move",
    "play_out",
    "record",
    "replay",
    "times_seen",
    "spectator_view",
    "validate_options",
    "view",
]

from . import action as _action  # noqa: E402,F401  registers the SKYJO Action variant
from . import classic as _classic  # noqa: E402,F401  registers the classic variant (first)
from .strong import LEVELS, bot_for_level  # noqa: E402
