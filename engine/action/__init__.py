"""SKYJO Action (RULES.md A1-A11): variant `action`. Importing this package registers it, once, as
one `engine.variants.Variant`: its game class, options, part of the view, bots (`random` and `greedy`
from `engine.action.bots`, `strong` and `easy` from `engine.action.strong`) and event sentences.

Layers, lowest first (each imports only those before it): `rules` (A1 tables, card kinds, options),
`moves` (the move grammar), `phases` (turn steps, decision kinds, grid lines), the parts of the game
(`state`, `setup`, `legal`, `turn`, `effects`, `scoring`), `game` (`ActionGame`), then `view`, `bots`
and `text`, which read a game but are never imported by it.
"""

from __future__ import annotations

from ..variants import Variant, register_variant
from .bots import checked, greedy_move, random_move
from .game import ActionGame
from .moves import ActionMove, parse_action_move
from .rules import ACTION_COUNTS, ACTION_KINDS, ACTION_OPTION_HELP, ACTION_OPTIONS, GAME_COUNTS, STAR
from .strong import easy_move, strong_move
from .text import TEXTS
from .view import extend_view

ACTION = register_variant(
    Variant(
        name="action",
        game=ActionGame,
        options=ACTION_OPTIONS,
        option_help=ACTION_OPTION_HELP,
        bots={
            "random": random_move,
            "greedy": checked(greedy_move),
            "strong": checked(strong_move),
            "easy": checked(easy_move),
        },
        view=extend_view,
        event_text=TEXTS,
    )
)

__all__ = [
    "ACTION",
    "ACTION_COUNTS",
    "ACTION_KINDS",
    "GAME_COUNTS",
    "STAR",
    "ActionGame",
    "ActionMove",
    "parse_action_move",
]
