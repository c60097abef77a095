"""SKYJO Action rounds: the deal with the action deck, the start player, the decks' refill (A1-A3, A10).

`ActionSetupMixin` is one part of `engine.action.game.ActionGame`, on top of the classic rounds
(`engine.rounds`). It owns:
* A2 the setup: the classic deal with the game deck (A1), then the action row of four and the action
  discard pile, shuffled from the round's seed or taken from an explicit deal of a game record;
* A3 the start: highest sum of revealed cards (a star counts 0), then the highest single card, then
  the earliest seat; the start of each turn (`_begin_turn`);
* A10 the decks running empty: the game deck as C11, the action deck from its whole discard pile.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .. import cards
from ..errors import OptionError, RecordError
from ..phases import STAGE_TURN, UP
from ..rounds import HIGHEST_CARD_THEN_SEAT
from .phases import MAIN
from .rules import ACTION_KINDS, ROW_SIZE, STAR, action_counts, action_deck_list, points


class ActionSetupMixin:
    """Dealing, starting and refilling for SKYJO Action (A2, A3, A10); part of `ActionGame`."""

    def _start_round(self, active: list[int], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        size = sum(self.deck_counts.values())
        if size < 12 * len(active) + 1:
            raise OptionError(f"a game deck of {size} cards cannot deal to {len(active)} players")
        super()._start_round(active, events)
        self._setup_action()
        return events

    def _setup_action(self) -> None:
        """A2: the action row of four and the action discard pile; fresh per-round state."""
        n = self.n
        counts = action_counts(self.options)
        spec = self.round_specs[self.round - 1]
        if "deal" in spec:
            deal = spec["deal"]
            try:
                row = list(deal["action_row"])
                first = deal["action_discard"]
                rest_top_first = list(deal["action_deck"])
            except (KeyError, TypeError):
                raise RecordError(
                    f"round {self.round}: an explicit SKYJO Action deal also needs action_row, "
                    "action_discard and action_deck"
                ) from None
            if len(row) != ROW_SIZE:
                raise RecordError(f"round {self.round}: the action row has {ROW_SIZE} cards")
            dealt = row + [first] + rest_top_first
            unknown = [c for c in dealt if c not in ACTION_KINDS]
            if unknown:
                raise RecordError(f"round {self.round}: {unknown[0]!r} in the deal is not an action card")
            if Counter(dealt) != Counter(counts):
                raise RecordError(
                    f"round {self.round}: the deal does not use exactly the action deck "
                    f"({cards.deck_difference(dealt, action_deck_list(counts))})"
                )
            deck = rest_top_first[::-1]
        else:
            full = action_deck_list(counts)
            cards.shuffle(full, cards.derive(self._round_seed(), "action"))
            row, first, deck = full[:ROW_SIZE], full[ROW_SIZE], full[ROW_SIZE + 1 :][::-1]
        self.arow: list[str | None] = list(row)
        self.adiscard: list[str] = [first]
        self.adeck: list[str] = deck
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.fresh: list[str] = []
        self.in_play: list[str] = []
        self.extra_turns = 0
        self.queue: list[dict[str, Any]] = []
        self.step = MAIN
        self.three: list[Any] = []
        self.known: list[list[list[Any]]] = [[] for _ in range(n)]
        self.banked = [0] * n
        self.kept: list[list[list[Any]]] = [[] for _ in range(n)]
        self.removed_sets: list[list[Any]] = []
        self.action_reshuffles = 0

    def _card_from_json(self, c: Any) -> Any:
        if c == STAR:
            return STAR
        if isinstance(c, bool) or not isinstance(c, int) or not -2 <= c <= 12:
            raise RecordError(f"round {self.round}: {c!r} in the deal is not a card (-2 to 12 or star)")
        return c

    def _visible_sum(self, seat: int) -> int:
        f = self.face[seat]
        v = self.vals[seat]
        return sum(points(v[c]) for c in range(12) if f[c] == UP)

    def start_tiebreak(self) -> str:
        """A3: a tie for the start goes to the highest single card, then the earliest seat (the
        classic start, `engine.rounds`, does the rest)."""
        return HIGHEST_CARD_THEN_SEAT

    def card_points(self, card: Any) -> int:
        return points(card)  # A6: a star counts 0

    def _begin_play(self, seat: int, reason: str, events: list[dict[str, Any]]) -> None:
        super()._begin_play(seat, reason, events)
        self.step = MAIN
        self.fresh = []
        self.extra_turns = 0

    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.stage = STAGE_TURN
        self.step = MAIN
        self.fresh = []

    def _draw_card(self, events: list[dict[str, Any]]) -> Any:
        if not self.draw:
            self._reshuffle(events)  # C11 / A10
        return self.draw.pop() if self.draw else None

    def _adraw(self, events: list[dict[str, Any]]) -> str | None:
        """The action deck's top; A10: an empty action deck is the whole action discard pile, shuffled."""
        if not self.adeck and self.adiscard:
            pile = self.adiscard
            self.adiscard = []
            self.action_reshuffles += 1
            cards.shuffle(
                pile, cards.derive(self._round_seed(), f"action-reshuffle-{self.action_reshuffles}")
            )
            self.adeck = pile
            events.append({"type": "action_reshuffle", "count": len(pile)})
        return self.adeck.pop() if self.adeck else None
