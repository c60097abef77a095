"""SKYJO Action (RULES.md A1-A11): variant `action`. Importing this package registers it with the
engine (`engine.state.GAME_CLASSES`, `engine.options.VARIANT_OPTIONS`, event sentences)."""

from __future__ import annotations

from .. import options as _options
from .. import state as _state
from ..view import EVENT_TEXT as _EVENT_TEXT
from .game import ActionGame
from .moves import ActionMove, parse_action_move
from .rules import ACTION_COUNTS, ACTION_KINDS, ACTION_OPTION_HELP, ACTION_OPTIONS, GAME_COUNTS, STAR
from .text import TEXTS

_state.GAME_CLASSES["action"] = ActionGame
_options.VARIANT_OPTIONS["action"] = ACTION_OPTIONS
for _name, _text in ACTION_OPTION_HELP.items():
    _options.OPTION_HELP.setdefault(_name, _text)
_EVENT_TEXT.update(TEXTS)

__all__ = ["ACTION_COUNTS", "ACTION_KINDS", "GAME_COUNTS", "STAR", "ActionGame", "ActionMove",
           "parse_action_move"]
