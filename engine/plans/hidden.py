"""What a plan's step turns up (C13): the measure that keeps a plan's answer free of hidden cards.

A plan is written from what its seat sees. Its moves are checked, before anything is applied, only
as far as that view decides them: up to and including the first move that turns up a card the
writer had not seen. What the rules allow after such a move may depend on the card (a star's A7
trigger, the start tie of C5, A5 sets, a round's end), so nothing after it may decide a refusal.

`Unseen` counts, from `engine.view(game, seat)`, the cards whose value the game has not made public:
face-down grid cards (less those the seat knows by Insight, A9.4), the draw pile, a drawn card still
in hand (C7: no move's legality depends on it until it is placed), the cards of a Draw three
(A9.3, likewise until the pick) and the action deck (A1). A step `turns_up` a card when that count
falls, the cards a reshuffle put back into a pile unseen aside (C11, A10), or when the round ends
(every card is turned up, C9) or the game does. The measure is the same for every hidden deal the
seat's view allows: it counts places, never values.

`chains_reveal`: the one kind of move that may follow a move that turned up a card is the next
opening reveal (C4, A3: a seat reveals two cards whatever the first one shows), checked like any
move as long as the reveals have decided nothing. Once a reveal has decided who starts
(`decides_start`: C5's highest sum, or a tie and its extra reveals), what the seat may do next
depends on the cards just turned up, and the plan stops before its next move. In SKYJO Action a
star turned up by the first reveal may be taken (A7) before or after the second reveal, so the
second reveal is legal whatever the first showed; after the seat's two reveals (`reveals_done`)
what follows depends on them (a star's A7 choice, who starts), so the plan stops there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game import Game
from ..view import view


@dataclass(frozen=True, slots=True)
class Unseen:
    """The round, whether the game is over, and how many cards' values are not yet public."""

    round: int
    over: bool
    cards: int


def unseen(game: Game, seat: int) -> Unseen:
    v = view(game, seat, log=False)
    cards = v["draw_count"]
    for p in v["players"]:
        cards += sum(1 for c in p["grid"] if c["face"] == "down" and "known" not in c)
    held = v["held"]
    if held is not None and held["source"] == "draw":
        cards += 1
    action = v.get("action")
    if action is not None:
        cards += action["three_count"] + action["deck_count"]
    return Unseen(v["round"], v["phase"] == "game_over", cards)


def turns_up(before: Unseen, after: Unseen, events: list[dict[str, Any]]) -> bool:
    """Did the step whose `events` led from `before` to `after` make a hidden card public?"""
    if after.round != before.round or after.over != before.over:
        return True
    reshuffled = sum(e.get("count", 0) for e in events if e.get("type") in ("reshuffle", "action_reshuffle"))
    return after.cards < before.cards + reshuffled


def is_reveal(move: Any) -> bool:
    return move.text().lower().startswith("reveal ")


def chains_reveal(game: Game, prev: Any, move: Any) -> bool:
    """May `move` follow `prev`, a move that turned up a card? Only an opening reveal after a reveal
    (C4, A3); see `reveals_done` for when the plan stops there instead."""
    return game.variant in ("classic", "action") and is_reveal(prev) and is_reveal(move)


def decides_start(events: list[dict[str, Any]]) -> bool:
    """Did a reveal decide who starts, or call a tie's extra reveal (C5, C6)? Then the next move's
    legality depends on the cards turned up."""
    return any(e.get("type") in ("start", "start_tie") for e in events)


def reveals_done(game: Game, seat: int, events: list[dict[str, Any]]) -> bool:
    """After a reveal, does what the seat may do next depend on the cards turned up? Classic: once
    the reveals decided who starts (`decides_start`, C5). SKYJO Action: once the seat has made its
    two opening reveals (A3: then come a star's A7 choice and the start), whatever they showed."""
    if decides_start(events):
        return True
    if game.variant != "action" or not any(e.get("type") == "reveal" for e in events):
        return False
    grid = view(game, seat, log=False)["players"][seat]["grid"]
    return game.phase != "opening" or sum(1 for c in grid if c["face"] == "up") >= 2
