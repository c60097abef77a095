"""The `strong` and `easy` bots of SKYJO Action (A1-A11).

`strong` decides, like the classic one (`engine.strong`), on `engine.seatview.determinize(game, seat)`
only: a copy of the game with everything its seat cannot see made up (face-down cards it did not
see by Insight, the draw pile, others' drawn cards and Draw three cards, the action deck's order,
the others' Insight knowledge). On it:
* game cards (A4 a, A9.3 Draw three picks, placing a drawn or taken card) are valued by the classic
  strong `Planner` with SKYJO Action's cards: the A1 deck's unseen cards, a star worth 0 and matching
  no number (A6), column sets (A5), held action cards +10 each and banked star bonuses (A8), the cards
  the seat saw by Insight counted at their value;
* action cards (A4 b/c, A7, A9, Defense, Meteor shower answers, star sets) follow the greedy bot's
  rules (`engine.action.bots.greedy_move`), run on the same seat-view copy; when greedy would take a
  game card, the Planner chooses between the discard top and a draw.
`easy` is greedy with a random move one time in four.
"""

from __future__ import annotations

import random as _random
from typing import Any

from ..moves import Move
from ..phases import GONE
from ..seatview import determinize
from ..strong import EASY_MISTAKES, Planner
from . import moves as am
from .bots import AnyMove, greedy_move, random_move
from .moves import ActionMove
from .rules import HELD_CARD_PENALTY, STAR, points


def planner(game: Any, seat: int) -> Planner:
    """The strong Planner of `seat` on a seat-view copy `game` of an Action game."""
    known = {(t, c): v for t, c, v in game.known[seat]}
    return Planner(
        game,
        seat,
        points=points,
        matchable=lambda card: card != STAR,
        removal=True,
        extra=lambda s: HELD_CARD_PENALTY * len(game.hands[s]) + game.banked[s],
        known=lambda s, c: known.get((s, c)),
    )


def _placement(plan: Planner, card: Any, moves: list[AnyMove]) -> AnyMove:
    best: tuple[float, AnyMove] | None = None
    flips = [m.cell for m in moves if isinstance(m, Move) and m.kind == "flip" and m.cell is not None]
    for m in moves:
        if not isinstance(m, Move) or m.cell is None:
            continue
        if m.kind == "swap":
            value = plan.swap_value(card, m.cell)
        elif m.kind == "flip":
            value, cell = plan.best_flip(flips)
            if cell != m.cell:
                continue
        else:
            continue
        if best is None or value > best[0]:
            best = (value, m)
    return best[1] if best is not None else moves[0]


def _pick(plan: Planner, three: list[Any], moves: list[AnyMove]) -> AnyMove:
    """A9.3: keep the best of the three cards (or none: the grid stays as it is)."""
    best: tuple[float, AnyMove] = (-plan.now, ActionMove(am.PICK_NONE))
    for m in moves:
        if isinstance(m, ActionMove) and m.kind == am.PICK and m.index is not None:
            value = plan.swap_value(three[m.index], m.cells[0])
            if value > best[0]:
                best = (value, m)
    return best[1] if best[1] in moves else moves[0]


def _game_card(game: Any, seat: int, plan: Planner, moves: list[AnyMove]) -> AnyMove | None:
    """A4 a: take the discard top or draw, whichever the Planner expects to be better."""
    classic = {m.kind: m for m in moves if isinstance(m, Move)}
    if "take" not in classic or not game.discard:
        return classic.get("draw")
    if "draw" not in classic:
        return classic["take"]
    f = game.face[seat]
    swap_cells = [c for c in range(12) if f[c] != GONE]
    flip_cells = [c for c in range(12) if plan.faces[c] in (0, 3)]
    take = plan.take_value(game.discard[-1], swap_cells)
    return classic["take"] if take > plan.draw_value(swap_cells, flip_cells) else classic["draw"]


def strong_move(game: Any, seat: int, rng: _random.Random) -> AnyMove:
    if not game.legal_moves(seat):
        raise ValueError("this seat owes no decision")
    view = determinize(game, seat)  # everything below reads only what the seat may see
    moves = view.legal_moves(seat)
    kind = view.owes(seat)
    if kind == "place_drawn":
        return _placement(planner(view, seat), view.held, moves)
    if kind == "place_taken":  # never back onto an equal face-up card (issue 16)
        plan = planner(view, seat)
        useful = set(plan.useful(view.held, range(12)))
        return _placement(plan, view.held, [m for m in moves if getattr(m, "cell", None) in useful] or moves)
    if kind == "pick_three":
        return _pick(planner(view, seat), list(view.three), moves)
    greedy = greedy_move(view, seat, rng)
    if kind == "turn" and isinstance(greedy, Move) and greedy.kind in ("draw", "take"):
        better = _game_card(view, seat, planner(view, seat), moves)
        if better is not None:
            return better
    return greedy


def easy_move(game: Any, seat: int, rng: _random.Random) -> AnyMove:
    if rng.random() < EASY_MISTAKES:
        return random_move(game, seat, rng)
    return greedy_move(game, seat, rng)

