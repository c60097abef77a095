"""Bots that make any pending decision: `random` (uniform over legal moves) and `greedy`.

The greedy bot looks only at what its seat may see (its face-up cards, the others' face-up cards,
the discard top and the card it holds) - never at face-down values or the draw pile. The service
uses it to play for absent players.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from typing import Any

from .game import DOWN, PLAY, STAGE_DRAWN, STAGE_TURN, UP, Game
from .moves import DRAW, FLIP, MOVE_BY_CODE, REVEAL, SWAP, TAKE, Move
from .repetition import RepetitionGuard
from .variants import Bot, get_variant

EXPECTED_HIDDEN = 5.07  # mean card value of the classic deck: (−10 −10 + 10·78) / 150


def random_code(game: Game, seat: int, rng: _random.Random) -> int:
    codes = game.legal_codes(seat)
    return codes[int(rng.random() * len(codes))]


def _column_partner_value(vals: list[int], face: list[int], cell: int) -> int | None:
    """If the two other cells of `cell`'s column are face-up and equal, their value."""
    col = cell & 3
    others = [c for c in (col, col + 4, col + 8) if c != cell]
    a, b = others
    if face[a] == UP and face[b] == UP and vals[a] == vals[b]:
        return vals[a]
    return None


def _estimated_score(game: Game, seat: int) -> float:
    f, v = game.face[seat], game.vals[seat]
    return sum(v[c] for c in range(12) if f[c] == UP) + EXPECTED_HIDDEN * f.count(DOWN)


def _would_be_doubled(game: Game, seat: int, my_score: float) -> bool:
    others = [_estimated_score(game, s) for s in game.active if s != seat]
    return bool(others) and my_score > 0 and min(others) <= my_score


def _placement_value(game: Game, seat: int, card: int, cell: int) -> float:
    """How much better the grid gets by putting `card` on `cell` (higher is better)."""
    f, v = game.face[seat], game.vals[seat]
    old = v[cell] if f[cell] == UP else EXPECTED_HIDDEN
    gain = old - card
    partner = _column_partner_value(v, f, cell)
    if partner is not None and partner == card and game.options.get("column_removal", True):
        gain += 3 * card + 6  # completes a column: all three cards leave the grid
    elif f[cell] == UP:
        # do not break a pair we are building
        col = cell & 3
        pair = [c for c in (col, col + 4, col + 8) if c != cell and f[c] == UP and v[c] == v[cell]]
        if pair and card != v[cell]:
            gain -= 2
    return gain


def greedy_code(game: Game, seat: int, rng: _random.Random) -> int:
    codes = game.legal_codes(seat)
    if not codes:
        raise ValueError("this seat owes no decision")
    kinds = {c >> 4 for c in codes}
    if kinds == {REVEAL}:
        return codes[int(rng.random() * len(codes))]
    if game.phase != PLAY:
        return codes[0]
    f = game.face[seat]
    closing = game.closer >= 0
    if game.stage == STAGE_TURN:
        top = game.discard[-1]
        best = max(_placement_value(game, seat, top, c) for c in range(12) if f[c] != 2)
        if (TAKE << 4) in codes and (top <= 2 or best >= 4) or (DRAW << 4) not in codes:
            return TAKE << 4
        return DRAW << 4
    card = game.held
    down_cells = [c for c in range(12) if f[c] == DOWN]
    options: list[tuple[float, int]] = []
    for c in range(12):
        if f[c] == 2:
            continue
        gain = _placement_value(game, seat, card, c)
        options.append((gain, SWAP << 4 | c))
    if game.stage == STAGE_DRAWN:
        for c in down_cells:
            # flipping: keeps the hidden card (expected value) and throws the drawn one away
            options.append((0.5 if card >= 6 else -1.0, FLIP << 4 | c))
    # avoid closing (C9/C10) when we would likely be doubled, unless the round is closing anyway
    if len(down_cells) == 1 and not closing:
        safe = []
        for gain, code in options:
            if (code & 15) == down_cells[0]:
                # a swap puts a known card there; a flip turns up an unknown one
                placed = card if code >> 4 == SWAP else EXPECTED_HIDDEN
                after = _estimated_score(game, seat) - EXPECTED_HIDDEN + placed
                if _would_be_doubled(game, seat, after):
                    continue
            safe.append((gain, code))
        options = safe or options
    best_gain = max(g for g, _ in options)
    best_codes = [code for g, code in options if g == best_gain]
    choice = best_codes[int(rng.random() * len(best_codes))]
    if choice not in codes:  # pragma: no cover - defensive
        return codes[0]
    return choice


CodeBot = Callable[[Any, int, _random.Random], int]


def code_bot(fn: CodeBot) -> Bot:
    """A classic bot that picks a move code, as a variant's bot (engine.variants): it gives the Move."""

    def bot(game: Any, seat: int, rng: _random.Random) -> Move:
        if not game.legal_codes(seat):
            raise ValueError("this seat owes no decision")
        return MOVE_BY_CODE[fn(game, seat, rng)]

    return bot


def bot_move(game: Game, seat: int, bot: str = "greedy", rng: _random.Random | None = None) -> Move:
    """A legal move for the decision `seat` owes now, by the game's variant's bot called `bot`.
    Raises ValueError when it owes none."""
    variant = get_variant(game.variant)
    bots = variant.bots if variant is not None else {}
    try:
        fn = bots[bot]
    except KeyError:
        raise ValueError(f"unknown bot {bot!r}; choose {', '.join(sorted(bots))}") from None
    move: Move = fn(game, seat, rng or _random.Random())
    return move


def play_out(
    game: Game,
    bot: str | dict[int, str] = "random",
    rng: _random.Random | None = None,
    max_moves: int = 1_000_000,
) -> Game:
    """Play `game` to its end in place with bots (all seats alike, or a seat -> bot mapping).
    Raises RepeatedPosition if the bots play in a circle (engine.repetition)."""
    rng = rng or _random.Random()
    guard = RepetitionGuard()
    for _ in range(max_moves):
        pend = game.pending()
        if not pend:
            return game
        seat = pend[0][0]
        name = bot if isinstance(bot, str) else bot.get(seat, "random")
        game.play(seat, bot_move(game, seat, name, rng))
        guard.check(game)
    raise RuntimeError("game did not end")  # pragma: no cover
