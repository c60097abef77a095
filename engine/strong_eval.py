"""How the strong bots value a grid: expected final score from the cards still unseen (C1, C8-C10).

A `Model` is built from one seat's knowledge only (`engine.seatview.unseen`: the deck minus every card
the seat has seen). It values
* a face-down card at the mean of its *effective* value over the unseen cards;
* a face-up card x at its effective value `x - lam * max(0, x - R)`: a high card will likely be
  replaced by a low one before the round ends (`lam` shrinks as the round's end comes near, 0 on the
  last turn), so it weighs less than its face;
* a column (C8 / A5) with two equal face-up cards as `(1 - P) * sum`, where P is the chance the third
  card turns out equal (face-down) or an equal card comes along to replace it (face-up);
* the close (C9/C10, A8): the closer's exact score against the others' estimated totals after their
  last turn, as a probability of being doubled (normal approximation of their hidden cards).
Card values go through `points` (SKYJO Action's star is worth 0 and matches no number, A6).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

DOWN, UP, GONE = 0, 1, 2
KNOWN = 3  # face-down, but the seat saw it (SKYJO Action's Insight): its value counts, it is still down
COLUMNS = ((0, 4, 8), (1, 5, 9), (2, 6, 10), (3, 7, 11))


@dataclass(frozen=True)
class Params:
    """The tuned numbers (docs/bots.md says how they were chosen)."""

    lam: float = 0.55  # how likely a high face-up card gets replaced, early in a round
    replace_with: float = 2.0  # R: what a high card is typically replaced by
    horizon: float = 4.0  # turns over which lam fades in (1 - exp(-turns / horizon))
    pair_reach: float = 1.3  # cards seen per turn that could complete a pair (own draw + discards)
    pair_share: float = 0.6  # how much of that chance is really used
    tempo: float = 0.0  # worth of one face-down card less, per point of lead (0.25 measured worse)
    tempo_cap: float = 1.0
    info: float = 0.6  # worth of turning a card up (later choices are better informed)
    close_share: float = 0.5  # share of the others' remaining improvement a close takes from them
    last_turn_gain: float = 0.6  # share of (worst card - 2) an opponent saves in its last turn


DEFAULT = Params()


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


class Model:
    """Values of cells, columns and grids for one decision of one seat (see the module docstring)."""

    def __init__(
        self,
        pool: Counter[Any],
        points: Callable[[Any], int],
        turns_left: float,
        removal: bool = True,
        params: Params = DEFAULT,
        matchable: Callable[[Any], bool] = lambda card: True,
    ) -> None:
        self.p = params
        self.points = points
        self.removal = removal
        self.matchable = matchable
        total = sum(pool.values()) or 1
        self.total = total
        self.prob = {card: n / total for card, n in pool.items()}
        self.turns_left = max(0.0, turns_left)
        self.lam = params.lam * (1.0 - math.exp(-self.turns_left / params.horizon))
        self.mu = sum(p * points(card) for card, p in self.prob.items()) if pool else 5.0
        var = sum(p * (points(card) - self.mu) ** 2 for card, p in self.prob.items()) if pool else 16.0
        self.var = var
        self.eff_down = sum(p * self.eff(card) for card, p in self.prob.items()) if pool else self.mu
        self.pool = pool
        self._columns: dict[tuple[tuple[int, Any], ...], float] = {}

    # ------------------------------------------------------------------ cells and columns
    def eff(self, card: Any) -> float:
        x = self.points(card)
        return x - self.lam * max(0.0, x - self.p.replace_with)

    def _reach(self, card: Any) -> float:
        """Chance that a `card` comes my way (drawn or on the discard) before the round ends."""
        p = self.prob.get(card, 0.0)
        looks = self.p.pair_reach * self.turns_left
        return self.p.pair_share * (1.0 - (1.0 - p) ** looks) if looks > 0 else 0.0

    def column(self, cells: tuple[tuple[int, Any], ...]) -> float:
        """Expected worth of one column: cells are (face, card) with face DOWN / UP / GONE / KNOWN."""
        value = self._columns.get(cells)
        if value is None:
            value = self._columns[cells] = self._column(cells)
        return value

    def _column(self, cells: tuple[tuple[int, Any], ...]) -> float:
        live = [(f, v) for f, v in cells if f != GONE]
        base = 0.0
        for f, v in live:
            base += self.eff_down if f == DOWN else self.eff(v)
        if len(live) != 3 or not self.removal:
            return base
        shown = [v for f, v in live if f != DOWN]
        downs = 3 - len(shown)
        if downs == 0:
            a, b, c = shown
            if a == b == c and self.matchable(a) and all(f == UP for f, _ in live):
                return 0.0  # removed at once (C8 / A5)
            if a == b == c and self.matchable(a):
                return (1.0 - 0.9) * base  # known cards: removed at the final reveal at the latest
            pair = a if a in (b, c) else (b if b == c else None)
            if pair is None or not self.matchable(pair):
                return base
            chance = self._reach(pair)
        elif downs == 1:
            a, b = shown
            if a != b or not self.matchable(a):
                return base
            p = self.prob.get(a, 0.0)
            chance = 1.0 - (1.0 - p) * (1.0 - self._reach(a))
        else:
            return base
        return (1.0 - chance) * base

    def grid(self, faces: Sequence[int], cards: Sequence[Any]) -> float:
        return sum(self.column(tuple([(faces[c], cards[c]) for c in col])) for col in COLUMNS)

    def raw(self, faces: Sequence[int], cards: Sequence[Any]) -> float:
        """Expected sum without any future improvement (what the grid scores if the round ended now)."""
        total = 0.0
        for c in range(12):
            f = faces[c]
            if f == DOWN:
                total += self.mu
            elif f != GONE:
                total += self.points(cards[c])
        return total

    # ------------------------------------------------------------------ the close
    def doubled_chance(self, mine: float, others: Sequence[tuple[float, int, float]], options: dict[str, Any]) -> float:
        """Chance that a closer scoring `mine` is doubled (C10 / A8). `others` are (expected score,
        face-down count, worst visible card) of the other seats, before their last turn."""
        if not options.get("doubling", True):
            return 0.0
        if options.get("doubling_positive_only", True) and mine <= 0:
            return 0.0
        strict = options.get("doubling_tie", "strict") == "strict"
        not_doubled = 1.0
        for est, downs, worst in others:
            after = est - self.p.last_turn_gain * max(0.0, max(worst, self.mu) - 2.0)
            sd = math.sqrt(downs * self.var + 4.0)
            edge = mine + (0.5 if strict else -0.5)
            not_doubled *= 1.0 - _phi((edge - after) / sd)
        return 1.0 - not_doubled
