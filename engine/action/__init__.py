"""SKYJO Action (RULES.md A1-A11): variant `action`. Importing this package registers it with the
engine: the game class (`engine.state.GAME_CLASSES`), its options (`engine.options.VARIANT_OPTIONS`),
its event sentences (`engine.view.EVENT_TEXT`), its part of the view (`engine.view.VIEW_EXTENSIONS`)
and its bots (`engine.bots.VARIANT_BOTS`; `strong` and `easy` from `engine.action.strong`).

Layers, lowest first (each imports only those before it): `rules` (A1 tables, card kinds, options),
`moves` (the move grammar), `phases` (turn steps, decision kinds, grid lines), the parts of the game
(`state`, `setup`, `legal`, `turn`, `effects`, `scoring`), `game` (`ActionGame`), then `view`, `bots`
and `text`, which read a game but are never imported by it.
"""

from __future__ import annotations

from .. import options as _options
from .. import state as _state
from ..bots import VARIANT_BOTS as _VARIANT_BOTS
from ..view import EVENT_TEXT as _EVENT_TEXT
from ..view import VIEW_EXTENSIONS as _VIEW_EXTENSIONS
from . import strong as _strong  # noqa: F401  registers the strong and easy Action bots
from .bots import bot_move as _bot_move
from .game import ActionGame
from .moves import ActionMove, parse_action_move
from .rules import ACTION_COUNTS, ACTION_KINDS, ACTION_OPTION_HELP, ACTION_OPTIONS, GAME_COUNTS, STAR
from .text import TEXTS
from .view import extend_view as _extend_view

_state.GAME_CLASSES["action"] = ActionGame
_options.VARIANT_OPTIONS["action"] = ACTION_OPTIONS
for _name, _text in ACTION_OPTION_HELP.items():
    _options.OPTION_HELP.setdefault(_name, _text)
_EVENT_TEXT.update(TEXTS)
_VIEW_EXTENSIONS["action"] = _extend_view
_VARIANT_BOTS["action"] = _bot_move

__all__ = [
    "ACTION_COUNTS",
    "ACTION_KINDS",
    "GAME_COUNTS",
    "STAR",
    "ActionGame",
    "ActionMove",
    "parse_action_move",
]
