"""The SKYJO Action part of the saved state: its extra fields and their checks on load (A1, A2).

`ActionState` is the classic `Game` with SKYJO Action's fields. It gives `engine.state` the hooks
that module calls for a variant: the game deck of this game (A1, option `game_deck`), how a card is
written in JSON (a star is the string "star"), the cards a Draw three holds outside the piles (A9.3),
and the extra fields (action deck, row and discard pile, held action cards, decision queue, insight
knowledge, star bonuses), checked on load: exactly one action deck (A1), known turn steps, well-formed
queued decisions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from ..errors import StateError
from ..game import Game
from ..options import validate_options
from ..phases import PLAY
from .phases import MAIN, QUEUE_KINDS, RESOLVE, SETS, STAGE_THREE
from .rules import ACTION_KINDS, ROW_SIZE, action_counts, game_counts


@dataclass(init=False, eq=False, repr=False)
class ActionState(Game):
    """The state of a SKYJO Action game: the classic game's fields and these, declared once (the
    saved state holds them in this order), with the saved-state hooks of A1 and A2. The rule parts
    (`setup`, `legal`, `grid`, `scoring`, `effects`, `turn`) are functions on it; `ActionGame` adds
    the hooks the classic game calls."""

    adeck: list[str]  # the action deck, top last
    arow: list[str | None]  # the action row of four (None: an empty place)
    adiscard: list[str]  # the action discard pile, top last
    hands: list[list[str]]  # per seat its held action cards (public)
    fresh: list[str]  # the action cards the turn seat took this turn (A4 c)
    in_play: list[str]  # an attack waiting for its targets
    extra_turns: int
    queue: list[dict[str, Any]]  # the queued decisions
    step: str  # MAIN, RESOLVE or SETS
    three: list[Any]  # the cards of a Draw three
    known: list[list[list[Any]]]  # per seat its insight knowledge [seat, cell, value] (private)
    banked: list[int]  # per seat its star bonus of this round
    kept: list[list[list[Any]]]  # per seat its kept star sets
    removed_sets: list[list[Any]]
    action_reshuffles: int

    @property
    def deck_counts(self) -> dict[Any, int]:
        return game_counts(self.options)

    def card_json(self, value: Any) -> Any:
        return value  # numbers stay ints, a star is already the string "star"

    def extra_cards(self) -> list[Any]:
        return list(self.three)

    def check_variant_state(self) -> None:
        n = len(self.names)
        opts = validate_options(self.variant, self.options)
        try:
            if len(self.arow) != ROW_SIZE or len(self.hands) != n or len(self.known) != n:
                raise StateError("the action row, held cards or knowledge are malformed")
            if len(self.banked) != n or len(self.kept) != n:
                raise StateError("the star bonuses are malformed")
            every = list(self.adeck) + [c for c in self.arow if c is not None] + list(self.adiscard)
            every += list(self.in_play) + [c for h in self.hands for c in h]
            if any(c not in ACTION_KINDS for c in every):
                raise StateError("unknown action card in the saved state")
            if Counter(every) != Counter(action_counts(opts)):
                raise StateError("the action cards in play are not exactly one action deck")
            if self.step not in (MAIN, RESOLVE, SETS):
                raise StateError(f"unknown turn step {self.step!r}")
            for e in self.queue:
                if e.get("kind") not in QUEUE_KINDS or not 0 <= e.get("seat", -1) < n:
                    raise StateError("malformed pending decision in the saved state")
            if self.three and not (self.phase == PLAY and self.stage == STAGE_THREE):
                raise StateError("draw-three cards outside a pick")
            if Counter(self.fresh) - Counter(self.hands[self.turn] if 0 <= self.turn < n else []):
                raise StateError("cards taken this turn are not held")
        except (TypeError, AttributeError, IndexError):
            raise StateError("the SKYJO Action part of the saved state is malformed") from None


EXTRA_FIELDS = tuple(f.name for f in fields(ActionState) if f.name not in Game.__dataclass_fields__)
