"""SKYJO Action (RULES.md A1-A11) on top of the classic state machine.

Design
------
* `ActionGame(Game)` keeps every classic field (grids, game draw/discard piles, held card, stages
  `turn`/`place_drawn`/`place_taken`, score sheet) and adds the action deck, row and discard pile,
  the held action cards (`hands`, public), the cards of a Draw three (`three`), each seat's insight
  knowledge (`known`, private), star bonuses (`banked`, `kept`) and a **decision queue**.
* Game cards are ints -2..12 or the string "star" (A6); `rules.points` gives a card's value.
* A turn (A4) is: the turn seat's main move (and its second stage: place the drawn / taken card, or
  pick one of three), then the queued decisions it caused - out-of-turn ones included - then A5 sets
  (number sets go at once; each complete star set queues its owner's keep/remove decision, A6),
  then the close check (A8) and the next turn (or an extra turn: Double move, Defense, Thief).
  `step` says where the turn is: `main` (the turn seat owes its move), `resolve` (the main move is
  done; queued decisions first), `sets` (sets are done; star-set decisions first).
* Queued decisions (`queue`, plain dicts so the JSON state is plain data):
  `star_trigger` (A7: take an action card or decline), `star_set` (A6: keep or remove),
  `defend` (A9.6: block or allow an attack), `meteor` (A9.9: each target's card, or block; every
  target of one shower owes at once). They appear in `pending()` like any classic decision.
* An attack card waits in `in_play` until its targets have answered, then joins the action discard.
* `ActionGame` is put together from parts, one module per stretch of the rules, all on the fields of
  the classic `Game` plus the extra ones listed in `engine.action.state`: `state` (saved-state hooks,
  A1), `setup` (deal, start, refills: A2, A3, A10), `legal` (pending decisions and legal moves: A4,
  A6, A7, A9), `turn` (the turn flow: A4, A5, A7, A8), `effects` (action cards and answers to queued
  decisions: A6, A7, A9), `scoring` (sets and scores: A5, A6, A8, A11). The view
  (`engine.action.view`) and the bots (`engine.action.bots`) sit above the game: `engine.action`
  registers them with `engine.view` and `engine.bots` by the variant's name.

Rulings where the texts are silent (documented in tests):
* Stars trigger A7 whenever a star lands face-up in a grid: revealed, flipped, swapped in (drawn,
  taken, picked) or moved face-up into another grid by Swap with a player; not at the final reveal.
* Extra turns (Double move 2, Defense 1, Thief 1) follow the current turn at once. A close ends the
  mover's remaining extra turns (the mover, if not the closer, still gets its one more turn); extra
  turns taken during the final turns belong to that seat's final turn.
* A blocked Thief steals nothing but its player still gets the extra turn (Defense cancels only the
  effect on the target). Reactivation cannot pick another Reactivation. Reactivation goes onto the
  action discard pile as it is played; the reactivated card follows it once resolved.
* Draw three: the kept card is swapped as in C7; the cards not kept go onto the game discard pile,
  then the swapped-out card (on top).
* A grid may close "by any means": if a seat other than the mover is left without face-down cards
  at the end of a turn, that seat is the closer and every other seat (the mover included) gets one
  more turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..game import Game
from .effects import ActionEffectsMixin
from .legal import ActionLegalMixin
from .phases import (  # re-exported: callers find the turn's words next to the game
    ACTION_STAGE_KINDS,
    ATTACK_ENTRIES,
    MAIN,
    QUEUE_KINDS,
    RESOLVE,
    SETS,
    STAGE_THREE,
    line_cells,
    line_label,
)
from .scoring import ActionScoringMixin
from .setup import ActionSetupMixin
from .state import EXTRA_FIELDS, ActionStateMixin
from .turn import ActionTurnMixin

__all__ = [
    "ACTION_STAGE_KINDS",
    "ATTACK_ENTRIES",
    "EXTRA_FIELDS",
    "MAIN",
    "QUEUE_KINDS",
    "RESOLVE",
    "SETS",
    "STAGE_THREE",
    "ActionGame",
    "line_cells",
    "line_label",
]


@dataclass(init=False, eq=False, repr=False)
class ActionGame(
    ActionStateMixin,
    ActionSetupMixin,
    ActionLegalMixin,
    ActionTurnMixin,
    ActionEffectsMixin,
    ActionScoringMixin,
    Game,
):
    """The authoritative state of one SKYJO Action game. See the module docstring."""

    variant: ClassVar[str] = "action"
