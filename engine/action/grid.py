"""SKYJO Action's grid changes every part shares, and taking an action card (A4 b, A7, A9.4).

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame` (below `scoring`, `effects` and `turn`, which call it). It owns:
* turning a card up or putting one in place: insight knowledge of it ends (A9.4) and a star turning
  face-up triggers A7 (a queued `star_trigger` decision);
* taking an action card from the row or the deck (A4 b, A7), refilled from the action deck (A10);
* the words of refusals several parts give (a card not playable, a set's label).
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalMove
from ..moves import CELL_NAMES, COLUMN_NAMES
from ..phases import (
    DOWN,
    PLAY,
    UP,
)
from . import moves as am
from . import setup
from .moves import ActionMove
from .phases import card_refusal
from .rules import STAR
from .state import ActionState


def set_label(g: ActionState, sid: list[Any]) -> str:
    return COLUMN_NAMES[sid[1]] if sid[0] == "column" else str(sid[1] + 1)


def forget(g: ActionState, seat: int, cell: int) -> None:
    """The card at (seat, cell) moved or turned up: insight knowledge of it ends (A9.4)."""
    for lst in g.known:
        if lst:
            lst[:] = [k for k in lst if k[0] != seat or k[1] != cell]


def star_trigger(g: ActionState, seat: int, events: list[dict[str, Any]]) -> None:
    """A7: a star became face-up in `seat`'s grid: that seat may take an action card."""
    if any(c is not None for c in g.arow) or g.adeck or g.adiscard:
        g.queue.append({"kind": "star_trigger", "seat": seat})
        events.append({"type": "star_trigger", "seat": seat})


def turn_up(g: ActionState, seat: int, cell: int, events: list[dict[str, Any]], kind: str, discarded: Any = None
) -> None:
    g.face[seat][cell] = UP
    g.down[seat] -= 1
    forget(g, seat, cell)
    value = g.vals[seat][cell]
    ev: dict[str, Any] = {"type": kind, "seat": seat, "cell": CELL_NAMES[cell], "value": value}
    if kind == "flip":
        ev["discarded"] = discarded
    events.append(ev)
    if value == STAR:
        star_trigger(g, seat, events)


def put(g: ActionState, seat: int, cell: int, card: Any) -> Any:
    """Swap `card` face-up onto `cell`; return the card that was there (to be discarded)."""
    row = g.vals[seat]
    old = row[cell]
    row[cell] = card
    if g.face[seat][cell] == DOWN:
        g.face[seat][cell] = UP
        g.down[seat] -= 1
    forget(g, seat, cell)
    return old


def take_action(g: ActionState, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
    if move.kind == am.ACTION_ROW:
        i = move.index
        assert i is not None  # `action row <n>` names its place
        card = g.arow[i]
        if card is None:
            raise IllegalMove.of("action_row_place_empty", n=i + 1)
        g.arow[i] = None
        g.arow[i] = setup.adraw(g, events)
        source = f"row {i + 1}"
    else:
        if not (g.adeck or g.adiscard):
            raise IllegalMove.of("action_decks_empty")
        card = setup.adraw(g, events)
        assert card is not None  # one of the two action piles is not empty
        source = "deck"
    g.hands[seat].append(card)
    if g.phase == PLAY and seat == g.turn:
        g.fresh.append(card)
    events.append({"type": "take_action", "seat": seat, "card": card, "source": source})


def not_playable(g: ActionState, seat: int, card: str) -> IllegalMove:
    """The refusal of playing or discarding `card`: not held, or taken this turn (A4 c)."""
    if card not in g.hands[seat]:
        return card_refusal(IllegalMove, "card_not_held", card=card)
    return card_refusal(IllegalMove, "card_taken_this_turn", card=card)
