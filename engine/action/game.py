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
* `ActionGame` is composed, not a chain of mixins: its state is `engine.action.state.ActionState`
  (the classic `Game`'s fields plus Action's, declared once, and the saved-state hooks, A1), and the
  rules are functions on that state, one module per stretch of the rules, each calling only those
  before it: `setup` (deal, start, refills: A2, A3, A10), `legal` (pending decisions and legal
  moves: A4, A6, A7, A9), `grid` (cards turned up or put in place: A7, A9.4; taking an action card),
  `scoring` (sets and scores: A5, A6, A8, A11), `effects` (action cards and answers to queued
  decisions: A6, A7, A9), `turn` (the turn flow: A4, A5, A7, A8). The class below only names the
  hooks the classic game calls (the deal, the start, the round's end, the game's end) and the
  public methods, each handed to its part. The classic parts Action shares (C5's start as A3
  says, the round's score sheet and C10's doubling as A8 says, the game's end as A11 says) are the
  classic game's own (`engine.rounds`, `engine.scoring`). The view (`engine.action.view`) and the
  bots (`engine.action.bots`) sit above the game: `engine.action` registers them with the variant.

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
from typing import Any, ClassVar

from ..moves import MOVE_BY_CODE, Move
from ..phases import Pending
from ..rounds import HIGHEST_CARD_THEN_SEAT
from . import legal, scoring, setup, turn
from .moves import ActionMove
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
from .rules import points
from .state import EXTRA_FIELDS, ActionState

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

AnyMove = Move | ActionMove


@dataclass(init=False, eq=False, repr=False)
class ActionGame(ActionState):
    """The authoritative state of one SKYJO Action game. See the module docstring."""

    variant: ClassVar[str] = "action"

    # ------------------------------------------------------------------ the public methods
    def play(self, seat: int, move: Move | ActionMove | str | int) -> list[dict[str, Any]]:
        return turn.play(self, seat, move)

    def play_code(self, seat: int, code: int) -> list[dict[str, Any]]:
        return turn.play(self, seat, MOVE_BY_CODE[code])

    def pending(self) -> list[Pending]:
        return legal.pending(self)

    def legal_codes(self, seat: int) -> list[int]:
        raise NotImplementedError("SKYJO Action moves are objects: use legal_moves")

    def legal_moves(self, seat: int) -> list[AnyMove]:  # type: ignore[override]  # Action's moves are more
        return legal.legal_moves(self, seat)

    def parse_move(self, text: str) -> AnyMove:  # type: ignore[override]  # Action's moves are more
        return legal.parse_move(self, text)

    def who(self, seat: int) -> str:
        return legal.who(self, seat)

    def bind(self, seat: int, move: AnyMove) -> AnyMove:
        return legal.bind(self, seat, move)

    def playable(self, seat: int) -> list[str]:
        return legal.playable(self, seat)

    def turn_families(self, seat: int) -> list[tuple[tuple[Any, ...], Any]]:
        return legal.turn_families(self, seat)

    # ------------------------------------------------------------------ hooks of the classic game
    def on_round_dealt(self) -> None:
        """A2: the action row and the action discard pile, after the classic deal (C3, A1)."""
        setup.setup_action(self)

    def _card_from_json(self, c: Any) -> Any:
        return setup.card_from_json(self, c)

    def _visible_sum(self, seat: int) -> int:
        return setup.visible_sum(self, seat)

    def card_points(self, card: Any) -> int:
        return points(card)  # A6: a star counts 0

    def start_tiebreak(self) -> str:
        """A3: a tie for the start goes to the highest single card, then the earliest seat."""
        return HIGHEST_CARD_THEN_SEAT

    def on_play_begins(self) -> None:
        self.step = MAIN
        self.fresh = []
        self.extra_turns = 0

    def _end_round(self, events: list[dict[str, Any]]) -> None:
        scoring.end_round(self, events)

    def on_game_over(self) -> None:
        self.queue = []
        self.fresh = []
        self.extra_turns = 0
