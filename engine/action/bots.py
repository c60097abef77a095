"""Bots for SKYJO Action: `random` and `greedy`, for any pending decision.

`random` picks a move family (draw, take, a card to play, ...) uniformly, then a move of that family:
otherwise the hundreds of Swap-with-player targets would crowd everything else out.
`greedy` sees only what its seat's view shows (face-up cards, its own insight knowledge, the held
action cards of everyone) and uses action cards sensibly: it plays the helpful ones, blocks attacks,
and discards held cards before the round's end would cost it +10 each (A8).

This module sits above the game: `engine.action` registers the bots with the variant
(`engine.variants`), and `engine.bots.bot_move` calls them for SKYJO Action games.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from typing import Any

from ..moves import Move
from ..phases import DOWN, GONE, STAGE_DRAWN, UP
from . import moves as am
from .moves import ActionMove
from .phases import line_cells
from .rules import (
    DEFENSE,
    DOUBLE_MOVE,
    DRAW_THREE,
    INSIGHT,
    METEOR,
    REACTIVATION,
    STAR,
    SWAP_OWN,
    SWAP_PLAYER,
    THIEF,
    points,
)

EXPECTED_HIDDEN = 4.4  # mean of the A1 game deck: (-10 - 8 + 7 * 78) / 120
AnyMove = Move | ActionMove


def _family(m: AnyMove) -> tuple[Any, ...]:
    if isinstance(m, Move):
        return (m.kind,)
    return (m.kind, m.card, m.via)


def random_move(game: Any, seat: int, rng: _random.Random) -> AnyMove:
    if game.owes(seat) == "turn":  # build only the chosen family's moves (speed)
        fams = game.turn_families(seat)
        while fams:
            weights = [3 if key[0] in ("draw", "take") else 1 for key, _ in fams]
            i = rng.choices(range(len(fams)), weights)[0]
            group = fams[i][1]()
            if group:
                return group[int(rng.random() * len(group))]
            del fams[i]
    moves = game.legal_moves(seat)
    if not moves:
        raise ValueError("this seat owes no decision")
    families: dict[tuple[Any, ...], list[AnyMove]] = {}
    for m in moves:
        families.setdefault(_family(m), []).append(m)
    keys = list(families)
    # draw and take weigh more so that rounds move on
    weights = [3 if k[0] in ("draw", "take") else 1 for k in keys]
    key = rng.choices(keys, weights)[0]
    group = families[key]
    return group[int(rng.random() * len(group))]


# ------------------------------------------------------------------ greedy helpers
def _est(game: Any, seat: int, cell: int, viewer: int) -> float:
    f = game.face[seat][cell]
    if f == UP:
        return points(game.vals[seat][cell])
    for t, c, v in game.known[viewer]:
        if t == seat and c == cell:
            return points(v)
    return EXPECTED_HIDDEN


def _lines(cell: int) -> list[tuple[int, ...]]:
    col = cell & 3
    row = cell >> 2
    return [(col, col + 4, col + 8), tuple(range(4 * row, 4 * row + 4))]


def _gain(game: Any, seat: int, card: Any, cell: int) -> float:
    """How much better `seat`'s grid gets by putting `card` face-up on `cell`."""
    f, v = game.face[seat], game.vals[seat]
    gain = _est(game, seat, cell, seat) - points(card)
    for line in _lines(cell):
        others = [c for c in line if c != cell]
        if all(f[c] == UP and v[c] == card for c in others):
            gain += sum(points(v[c]) for c in others) + points(card) + 6  # completes a set
        elif f[cell] == UP and any(f[c] == UP and v[c] == v[cell] for c in others) and card != v[cell]:
            gain -= 1  # keep pairs
    if card == STAR:
        gain += 1.5  # an action card for free (A7) and star-set hopes
    return gain


def _score_estimate(game: Any, seat: int) -> float:
    return (
        sum(_est(game, seat, c, seat) for c in range(12) if game.face[seat][c] != GONE)
        + 10 * len(game.hands[seat])
        + game.banked[seat]
    )


def _find(moves: list[AnyMove], **attrs: Any) -> list[ActionMove]:
    return [
        m for m in moves if isinstance(m, ActionMove) and all(getattr(m, k) == v for k, v in attrs.items())
    ]


def _sets_after_swap(game: Any, seat: int, a: int, b: int) -> int:
    f, v = list(game.face[seat]), list(game.vals[seat])
    f[a], f[b] = f[b], f[a]
    v[a], v[b] = v[b], v[a]
    done = 0
    for cell in (a, b):
        for line in _lines(cell):
            if all(f[c] == UP for c in line) and len({v[c] for c in line}) == 1 and v[line[0]] != STAR:
                done += 1
    return done


def _useful_play(game: Any, seat: int, card: str, moves: list[AnyMove], soon: bool) -> AnyMove | None:
    plays = _find(moves, kind=am.PLAY, card=card, via=False)
    if not plays:
        return None
    others = [s for s in game.active if s != seat]
    if card in (DOUBLE_MOVE, DRAW_THREE):
        return plays[0]
    if card == DEFENSE:
        return plays[0] if soon else None
    if card == SWAP_OWN:
        best = [m for m in plays if _sets_after_swap(game, seat, *m.cells) > 0]
        return best[0] if best else None
    if card == INSIGHT:
        own = [m for m in plays if m.target == seat]
        if not own:
            return None
        f = game.face[seat]
        known = {(t, c) for t, c, _ in game.known[seat]}

        def news(m: ActionMove) -> int:
            assert m.line is not None and m.index is not None  # an Insight names its line
            return sum(1 for c in line_cells(m.line, m.index) if f[c] == DOWN and (seat, c) not in known)

        m = max(own, key=news)
        return m if news(m) >= 2 else None
    if card == SWAP_PLAYER:
        f, v = game.face[seat], game.vals[seat]
        mine = [(points(v[c]), c) for c in range(12) if f[c] == UP and v[c] != STAR]
        if not mine:
            return None
        high, a = max(mine)
        lowest: tuple[int, int, int] | None = None
        for t in others:
            if DEFENSE in game.hands[t]:
                continue
            for c in range(12):
                if game.face[t][c] == UP:
                    low = points(game.vals[t][c])
                    if lowest is None or low < lowest[0]:
                        lowest = (low, t, c)
        if lowest is None or high - lowest[0] < 5:
            return None
        hit = [m for m in plays if m.cells == (a, lowest[2]) and m.target == lowest[1]]
        return hit[0] if hit else None
    if card == THIEF:
        for want in (DOUBLE_MOVE, DRAW_THREE):
            hit = [m for m in plays if m.steal == want and DEFENSE not in game.hands[m.target]]
            if hit:
                return hit[0]
        return None
    if card == REACTIVATION:
        for want in (DOUBLE_MOVE, DRAW_THREE):
            hit = _find(moves, kind=am.PLAY, card=want, via=True)
            if hit:
                return hit[0]
        return None
    if card == METEOR:
        if game.closer < 0 and any(game.down[s] <= 2 for s in others):
            return plays[0]  # a face-down card for everyone keeps an opponent from closing
        return None
    return None


def _unsafe_to_fill(game: Any, seat: int) -> int | None:
    """The last face-down cell of `seat` when filling it would close the round (A8) with a score the
    bot expects to be doubled; else None."""
    f = game.face[seat]
    down = [c for c in range(12) if f[c] == DOWN]
    if len(down) == 1 and game.closer < 0:
        mine = _score_estimate(game, seat)
        others = [_score_estimate(game, s) for s in game.active if s != seat]
        if others and mine > 0 and min(others) <= mine + 2:
            return down[0]
    return None


def _placement(game: Any, seat: int, card: Any, moves: list[AnyMove], flip_ok: bool) -> AnyMove:
    options: list[tuple[float, Move]] = []
    for m in moves:
        if isinstance(m, Move) and m.kind == "swap" and m.cell is not None:
            options.append((_gain(game, seat, card, m.cell), m))
        elif isinstance(m, Move) and m.kind == "flip" and flip_ok:
            options.append((0.5 if points(card) >= 6 else -1.0, m))
    avoid = _unsafe_to_fill(game, seat)
    if avoid is not None:
        safe = [(g, m) for g, m in options if m.cell != avoid]
        options = safe or options
    return max(options, key=lambda gm: gm[0])[1]


def greedy_move(game: Any, seat: int, rng: _random.Random) -> AnyMove:
    moves = game.legal_moves(seat)
    if not moves:
        raise ValueError("this seat owes no decision")
    kind = game.owes(seat)
    hand = game.hands[seat]
    if kind == "reveal":
        return moves[int(rng.random() * len(moves))]
    if kind == "star_trigger":
        if game.closer < 0 and not hand and game.down[seat] > 3:
            for want in (DOUBLE_MOVE, DRAW_THREE, DEFENSE):
                for m in _find(moves, kind=am.ACTION_ROW):
                    if game.arow[m.index] == want:
                        return m
        return ActionMove(am.DECLINE)
    if kind == "star_set":
        return ActionMove(am.REMOVE)
    if kind == "defend":
        return ActionMove(am.BLOCK)
    if kind == "meteor":
        if _find(moves, kind=am.BLOCK):
            return ActionMove(am.BLOCK)
        cells = [m for m in moves if isinstance(m, ActionMove) and m.kind == am.METEOR_CELL]
        return max(cells, key=lambda m: _est(game, seat, m.cells[0], seat))
    if kind == "pick_three":
        best: tuple[float, AnyMove] = (0.0, ActionMove(am.PICK_NONE))
        for m in _find(moves, kind=am.PICK):
            g = _gain(game, seat, game.three[m.index], m.cells[0])
            if g > best[0]:
                best = (g, m)
        return best[1]
    if kind in ("place_drawn", "place_taken"):
        return _placement(game, seat, game.held, moves, game.stage == STAGE_DRAWN)
    # the turn itself (A4)
    soon = game.closer >= 0 or game.down[seat] <= 2
    playable = game.playable(seat)
    for card in (
        DOUBLE_MOVE,
        DRAW_THREE,
        REACTIVATION,
        THIEF,
        SWAP_PLAYER,
        SWAP_OWN,
        INSIGHT,
        METEOR,
        DEFENSE,
    ):
        if card in playable:
            useful = _useful_play(game, seat, card, moves, soon)
            if useful is not None:
                return useful
    if playable and (soon or len(hand) >= 2):
        keep_defense = [k for k in playable if k != DEFENSE] or playable
        return ActionMove(am.DISCARD_ACTION, keep_defense[0])
    if not hand and game.closer < 0 and game.down[seat] >= 6 and rng.random() < 0.3:
        for want in (DOUBLE_MOVE, DRAW_THREE):
            for m in _find(moves, kind=am.ACTION_ROW):
                if game.arow[m.index] == want:
                    return m
    classic = {m.kind: m for m in moves if isinstance(m, Move)}
    if "take" in classic and game.discard:
        top = game.discard[-1]
        f = game.face[seat]
        avoid = _unsafe_to_fill(game, seat)  # judged by the cells the placement will consider
        best_gain = max(
            (_gain(game, seat, top, c) for c in range(12) if f[c] != GONE and c != avoid), default=-99.0
        )
        # a low card is worth taking only where it improves the grid: swapping a 0 for a 0 changes
        # nothing, and two bots doing it in turn would repeat the same position for ever (issue 16)
        if best_gain >= 4 or (top != STAR and top <= 1 and best_gain > 0) or "draw" not in classic:
            return classic["take"]
    if "draw" in classic:
        return classic["draw"]
    if "take" in classic:
        return classic["take"]
    return moves[int(rng.random() * len(moves))]


def checked(fn: Callable[[Any, int, _random.Random], AnyMove]) -> Callable[[Any, int, _random.Random], AnyMove]:
    """A bot whose move, should it not be legal, is replaced by a random one (every bot but `random`,
    which only picks legal moves, goes through this)."""

    def bot(game: Any, seat: int, rng: _random.Random) -> AnyMove:
        move = fn(game, seat, rng)
        return move if move in game.legal_moves(seat) else random_move(game, seat, rng)

    return bot
