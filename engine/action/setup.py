"""SKYJO Action rounds: the deal with the action deck, the start player, the decks' refill (A1-A3, A10).

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame`, on top of the classic rounds
(`engine.rounds`). It owns:
* A2 the setup: the classic deal with the game deck (A1), then the action row of four and the action
  discard pile, shuffled from the round's seed or taken from an explicit deal of a game record;
* the start of each turn (`begin_turn`); A3's start is the classic one (`engine.rounds`) with the
  hooks `ActionGame.card_points` (a star counts 0) and `start_tiebreak` (highest card, then seat);
* A10 the decks running empty: the game deck as C11, the action deck from its whole discard pile.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .. import cards
from ..errors import RecordError
from ..phases import STAGE_TURN, UP
from .phases import MAIN
from .rules import ACTION_KINDS, ROW_SIZE, STAR, action_counts, action_deck_list, points
from .state import ActionState


def setup_action(g: ActionState) -> None:
    """A2: the action row of four and the action discard pile; fresh per-round state."""
    n = g.n
    counts = action_counts(g.options)
    spec = g.round_specs[g.round - 1]
    if "deal" in spec:
        deal = spec["deal"]
        try:
            row = list(deal["action_row"])
            first = deal["action_discard"]
            rest_top_first = list(deal["action_deck"])
        except (KeyError, TypeError):
            raise RecordError(
                f"round {g.round}: an explicit SKYJO Action deal also needs action_row, "
                "action_discard and action_deck"
            ) from None
        if len(row) != ROW_SIZE:
            raise RecordError(f"round {g.round}: the action row has {ROW_SIZE} cards")
        dealt = row + [first] + rest_top_first
        unknown = [c for c in dealt if c not in ACTION_KINDS]
        if unknown:
            raise RecordError(f"round {g.round}: {unknown[0]!r} in the deal is not an action card")
        if Counter(dealt) != Counter(counts):
            raise RecordError(
                f"round {g.round}: the deal does not use exactly the action deck "
                f"({cards.deck_difference(dealt, action_deck_list(counts))})"
            )
        deck = rest_top_first[::-1]
    else:
        full = action_deck_list(counts)
        cards.shuffle(full, cards.derive(g._round_seed(), "action"))
        row, first, deck = full[:ROW_SIZE], full[ROW_SIZE], full[ROW_SIZE + 1 :][::-1]
    g.arow = list(row)
    g.adiscard = [first]
    g.adeck = deck
    g.hands = [[] for _ in range(n)]
    g.fresh = []
    g.in_play = []
    g.extra_turns = 0
    g.queue = []
    g.step = MAIN
    g.three = []
    g.known = [[] for _ in range(n)]
    g.banked = [0] * n
    g.kept = [[] for _ in range(n)]
    g.removed_sets = []
    g.action_reshuffles = 0


def card_from_json(g: ActionState, c: Any) -> Any:
    if c == STAR:
        return STAR
    if isinstance(c, bool) or not isinstance(c, int) or not -2 <= c <= 12:
        raise RecordError(f"round {g.round}: {c!r} in the deal is not a card (-2 to 12 or star)")
    return c


def visible_sum(g: ActionState, seat: int) -> int:
    f = g.face[seat]
    v = g.vals[seat]
    return sum(points(v[c]) for c in range(12) if f[c] == UP)


def begin_turn(g: ActionState, seat: int) -> None:
    g.turn = seat
    g.stage = STAGE_TURN
    g.step = MAIN
    g.fresh = []


def draw_card(g: ActionState, events: list[dict[str, Any]]) -> Any:
    if not g.draw:
        g._reshuffle(events)  # C11 / A10
    return g.draw.pop() if g.draw else None


def adraw(g: ActionState, events: list[dict[str, Any]]) -> str | None:
    """The action deck's top; A10: an empty action deck is the whole action discard pile, shuffled."""
    if not g.adeck and g.adiscard:
        pile = g.adiscard
        g.adiscard = []
        g.action_reshuffles += 1
        cards.shuffle(
            pile, cards.derive(g._round_seed(), f"action-reshuffle-{g.action_reshuffles}")
        )
        g.adeck = pile
        events.append({"type": "action_reshuffle", "count": len(pile)})
    return g.adeck.pop() if g.adeck else None
