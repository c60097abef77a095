"""The `strong` bot (classic SKYJO, C1-C13) and the `easy` one, and the bot levels of computer seats.

The strong bot decides on `engine.seatview.determinize(game, seat)`: a copy of the game that holds
only what its seat may see (the rest made up from the unseen cards). On it, a `Planner` values every
choice with `engine.strong_eval.Model` (expected final grid score from the unseen cards, column pairs,
the close's doubling risk) and picks the best:
* turn (C7): take the discard top if its best placement beats the expectation of drawing, over every
  unseen card, of the best of placing it or discarding it and turning a card up;
* placing a card: every swap and flip, valued by the grid after it, a small tempo term (turning the
  last cards up sooner is good when ahead, bad when behind), and, when it would close (C9), the
  exact score times the chance of being doubled (C10) against what the others take from the close;
* opening reveals (C4): cells chosen with the RNG.
`easy` is the greedy bot that makes a random legal move one time in four.
`LEVELS` names the bot of each computer level: easy, normal (greedy), strong.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable, Sequence
from typing import Any

from . import bots as _bots
from .moves import DRAW, FLIP, REVEAL, SWAP, TAKE
from .phases import DOWN, GONE, PLAY, STAGE_DRAWN, STAGE_TAKEN, STAGE_TURN, UP
from .seatview import determinize, unseen
from .strong_eval import COLUMNS, DEFAULT, KNOWN, Model, Params

LEVELS: dict[str, str] = {"easy": "easy", "normal": "greedy", "strong": "strong"}
EASY_MISTAKES = 0.25
TURNS_PER_DOWN = 1.6  # turns a player needs, on average, per face-down card left


def bot_for_level(level: str) -> str:
    """The bot name (for `engine.bot_move`) of a computer seat's level: easy, normal or strong."""
    try:
        return LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown level {level!r}; choose easy, normal or strong") from None


class Planner:
    """One seat's valuation of its choices on a seat-view game (see the module docstring).

    `extra(s)` is what seat s scores besides its grid (SKYJO Action: held action cards, star bonus);
    `known(s, c)` a face-down card the seat saw (Action's Insight) or None."""

    def __init__(
        self,
        game: Any,
        seat: int,
        points: Callable[[Any], int] = int,
        matchable: Callable[[Any], bool] = lambda card: True,
        removal: bool = True,
        extra: Callable[[int], float] = lambda s: 0.0,
        known: Callable[[int, int], Any] = lambda s, c: None,
        params: Params = DEFAULT,
    ) -> None:
        self.game, self.seat, self.points, self.extra = game, seat, points, extra
        self.p = params
        self.others = [s for s in game.active if s != seat]
        self.closing = game.closer >= 0
        self.grids = {s: self._grid(s, known) for s in game.active}
        downs = [game.down[s] for s in self.others] or [0]
        mine = game.down[seat]
        turns = 0.0 if self.closing else TURNS_PER_DOWN * min(min(downs), mine + 2)
        self.model = Model(unseen(game, seat), points, turns, removal, params, matchable)
        self.faces, self.cards = self.grids[seat]
        self.now = self.model.grid(self.faces, self.cards)
        downs_left = [c for c in range(12) if self.faces[c] in (DOWN, KNOWN)]
        self.last_down = downs_left[0] if len(downs_left) == 1 and not self.closing else -1
        raws = {s: self.model.raw(*self.grids[s]) + extra(s) for s in game.active}
        self.raw_others = [(raws[s], game.down[s], self._worst(s)) for s in self.others]
        lead = (sum(r for r, _, _ in self.raw_others) / max(1, len(self.others))) - raws[seat]
        cap = params.tempo_cap
        self.tempo = 0.0 if self.closing else max(-cap, min(cap, params.tempo * lead))
        self.info = 0.0 if self.closing else params.info
        lost = [raws[s] - extra(s) - self.model.grid(*self.grids[s]) for s in self.others]
        self.close_gain = params.close_share * (sum(lost) / len(lost) if lost else 0.0)
        self._flip_best: tuple[float, int] | None = None

    def _grid(self, s: int, known: Callable[[int, int], Any]) -> tuple[list[int], list[Any]]:
        f, v = self.game.face[s], self.game.vals[s]
        faces, cards = [], []
        for c in range(12):
            if f[c] == DOWN:
                k = known(s, c)
                faces.append(DOWN if k is None else KNOWN)
                cards.append(k)
            else:
                faces.append(f[c])
                cards.append(v[c] if f[c] == UP else None)
        return faces, cards

    def _worst(self, s: int) -> float:
        faces, cards = self.grids[s]
        return max((self.points(cards[c]) for c in range(12) if faces[c] == UP), default=0)

    # ------------------------------------------------------------------ one placement
    def _after(self, cell: int, card: Any) -> tuple[list[int], list[Any]]:
        faces, cards = list(self.faces), list(self.cards)
        faces[cell], cards[cell] = UP, card
        col = COLUMNS[cell & 3]
        if self.model.removal and all(faces[c] == UP for c in col):
            if cards[col[0]] == cards[col[1]] == cards[col[2]] and self.model.matchable(card):
                for c in col:
                    faces[c], cards[c] = GONE, None
        return faces, cards

    def _column_delta(self, cell: int, card: Any) -> float:
        col = COLUMNS[cell & 3]
        old = self.model.column(tuple([(self.faces[c], self.cards[c]) for c in col]))
        new = self.model.column(tuple([((UP, card) if c == cell else (self.faces[c], self.cards[c])) for c in col]))
        return new - old

    def _closes(self, cell: int) -> bool:
        """Whether a card on `cell` closes the round (C9): it is the last face-down one."""
        return cell == self.last_down

    def _close_value(self, card: Any) -> float:
        """Putting `card` on the last face-down cell closes the round (C9): exact score, doubling (C10)."""
        faces, cards = self._after(self.last_down, card)
        mine = sum(self.points(cards[c]) for c in range(12) if faces[c] == UP) + self.extra(self.seat)
        chance = self.model.doubled_chance(mine, self.raw_others, self.game.options)
        return -(mine + chance * max(mine, 0.0)) + self.close_gain

    def swap_value(self, card: Any, cell: int) -> float:
        if self._closes(cell):
            return self._close_value(card)
        value = -(self.now + self._column_delta(cell, card))
        if self.faces[cell] in (DOWN, KNOWN):
            value += self.tempo
        return value

    def flip_value(self, cell: int) -> float:
        """Discard the held card and turn `cell` up: the expectation over the unseen cards."""
        if self.faces[cell] == KNOWN:
            return self.swap_value(self.cards[cell], cell) + self.info
        probs = self.model.prob.items()
        if self._closes(cell):
            return sum(p * self._close_value(card) for card, p in probs)
        delta = sum(p * self._column_delta(cell, card) for card, p in probs)
        return -(self.now + delta) + self.tempo + self.info

    def best_flip(self, cells: Sequence[int]) -> tuple[float, int]:
        if self._flip_best is None:
            self._flip_best = max(((self.flip_value(c), c) for c in cells), default=(-1e9, -1))
        return self._flip_best

    def best_swap(self, card: Any, cells: Sequence[int]) -> tuple[float, int]:
        return max(((self.swap_value(card, c), c) for c in cells), default=(-1e9, -1))

    def take_value(self, card: Any, cells: Sequence[int]) -> float:
        """The best placement of the discard top `card`, never onto an equal face-up card: that changes
        nothing, and bots doing it in turn would repeat one position for ever (issue 16)."""
        return self.best_swap(card, self.useful(card, cells))[0]

    def useful(self, card: Any, cells: Sequence[int]) -> list[int]:
        """`cells` but those holding an equal face-up card (all of them if nothing else is left)."""
        return [c for c in cells if not (self.faces[c] == UP and self.cards[c] == card)] or list(cells)

    def draw_value(self, swap_cells: Sequence[int], flip_cells: Sequence[int]) -> float:
        """The expectation, over the unseen cards, of the best use of a drawn card (C7)."""
        flip = self.best_flip(flip_cells)[0]
        return sum(p * max(self.best_swap(card, swap_cells)[0], flip) for card, p in self.model.prob.items())


# ------------------------------------------------------------------ the classic bots
def strong_code(game: Any, seat: int, rng: _random.Random, params: Params = DEFAULT) -> int:
    codes = game.legal_codes(seat)
    if not codes:
        raise ValueError("this seat owes no decision")
    if {c >> 4 for c in codes} == {REVEAL} or game.phase != PLAY:
        return codes[int(rng.random() * len(codes))]
    view = determinize(game, seat)  # everything below reads only what the seat may see
    plan = Planner(view, seat, removal=view.options["column_removal"], params=params)
    f = view.face[seat]
    swap_cells = [c for c in range(12) if f[c] != GONE]
    flip_cells = [c for c in range(12) if f[c] == DOWN]
    if view.stage == STAGE_TURN:
        if (DRAW << 4) not in codes:
            return TAKE << 4
        take = plan.take_value(view.discard[-1], swap_cells)
        return TAKE << 4 if take > plan.draw_value(swap_cells, flip_cells) else DRAW << 4
    if view.stage == STAGE_TAKEN:
        swap_cells = plan.useful(view.held, swap_cells)
    value, cell = plan.best_swap(view.held, swap_cells)
    code = SWAP << 4 | cell
    if view.stage == STAGE_DRAWN and flip_cells:  # a taken card must be swapped (C7)
        flip, fcell = plan.best_flip(flip_cells)
        if flip > value:
            code = FLIP << 4 | fcell
    return code if code in codes else codes[0]


def easy_code(game: Any, seat: int, rng: _random.Random) -> int:
    if rng.random() < EASY_MISTAKES:
        return _bots.random_code(game, seat, rng)
    return _bots.greedy_code(game, seat, rng)

