"""SKYJO Action sets and scoring: number and star sets, the round's score, the game end (A5, A6, A8, A11).

`ActionScoringMixin` is one part of `engine.action.game.ActionGame`, on top of the classic round end
(`engine.scoring`). It owns:
* A5 sets at the end of every turn: full columns of three and rows of four equal face-up numbers are
  removed; A6 a full star column (-10) or row (-15) queues its owner's keep-or-remove decision;
* A8 the round's score: the grid (stars 0) plus star bonuses (banked, and whole star sets at round
  end) plus 10 per held action card, the closer doubled unless strictly lowest (options as C10);
* A11 the game end as C12 (ties by the `final_tiebreak` option, most rounds won by default).
"""

from __future__ import annotations

from typing import Any

from ..moves import COLUMN_NAMES
from ..phases import GONE, UP
from .phases import MAIN, line_cells, line_label
from .rules import HELD_CARD_PENALTY, STAR, STAR_COLUMN_BONUS, STAR_ROW_BONUS


class ActionScoringMixin:
    """Sets and scoring of SKYJO Action (A5, A6, A8, A11); part of `ActionGame`."""

    def _whole_star_set(self, seat: int, sid: list[Any]) -> bool:
        f, v = self.face[seat], self.vals[seat]
        return all(f[c] == UP and v[c] == STAR for c in line_cells(sid[0], sid[1]))

    def _find_sets(self, seat: int) -> tuple[list[tuple[str, int, Any]], list[list[Any]]]:
        """A5/A6: (number sets as (line, index, value), star sets as [line, index]) in `seat`'s grid."""
        f, v = self.face[seat], self.vals[seat]
        numbers: list[tuple[str, int, Any]] = []
        stars: list[list[Any]] = []
        for i in range(4):
            if f[i] == UP and f[i + 4] == UP and f[i + 8] == UP and v[i] == v[i + 4] == v[i + 8]:
                if v[i] == STAR:
                    stars.append(["column", i])
                else:
                    numbers.append(("column", i, v[i]))
        for i in (0, 4, 8):
            if (
                f[i] == UP
                and f[i + 1] == UP
                and f[i + 2] == UP
                and f[i + 3] == UP
                and v[i] == v[i + 1] == v[i + 2] == v[i + 3]
            ):
                if v[i] == STAR:
                    stars.append(["row", i >> 2])
                else:
                    numbers.append(("row", i >> 2, v[i]))
        return numbers, stars

    def _remove_number_sets(
        self, seat: int, numbers: list[tuple[str, int, Any]], events: list[dict[str, Any]]
    ) -> None:
        f, v = self.face[seat], self.vals[seat]
        for line, i, value in numbers:
            label = line_label(line, i)
            for c in line_cells(line, i):
                if f[c] != GONE:  # a row and a column of the same value share a card
                    f[c] = GONE
                    self.discard.append(v[c])
                    self._forget(seat, c)
            self.removed_sets.append([seat, label, value])
            if line == "column":
                self.removed_cols.append([seat, COLUMN_NAMES[i]])
            events.append({"type": "remove_set", "seat": seat, "set": label, "value": value})

    def _sets(self, events: list[dict[str, Any]]) -> None:
        """A5 at the end of a turn in every grid; A6 star sets queue their owner's decision."""
        order = self.active[self.active.index(self.turn) :] + self.active[: self.active.index(self.turn)]
        for s in order:
            self.kept[s] = [k for k in self.kept[s] if self._whole_star_set(s, k)]
            numbers, stars = self._find_sets(s)
            if numbers:
                self._remove_number_sets(s, numbers, events)
            for sid in stars:
                if sid not in self.kept[s]:
                    bonus = STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
                    self.queue.append({"kind": "star_set", "seat": s, "set": sid})
                    events.append(
                        {"type": "star_set", "seat": s, "set": line_label(sid[0], sid[1]), "bonus": bonus}
                    )

    def _end_round(self, events: list[dict[str, Any]]) -> None:
        """A8: turn every card up (A5 sets too, option final_reveal_removal), score, game end (A11)."""
        opts = self.options
        self._turn_up_everything(events)
        self.known = [[] for _ in range(self.n)]
        raw: list[int | None] = [None] * self.n
        held: list[int | None] = [None] * self.n
        stars: list[int | None] = [None] * self.n
        for s in self.active:
            numbers, star_sets = self._find_sets(s)
            if numbers and opts["final_reveal_removal"]:
                self._remove_number_sets(s, numbers, events)
            bonus = self.banked[s]
            for sid in star_sets:  # whole star sets count at round end, kept or not (A6)
                bonus += STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
            held[s] = len(self.hands[s])
            stars[s] = bonus
            raw[s] = self._visible_sum(s) + bonus + HELD_CARD_PENALTY * len(self.hands[s])
        # C10's doubling and the classic score sheet (engine.scoring), as A8 says
        extra = {"removed_sets": self.removed_sets, "action_cards": held, "star_bonus": stars}
        self._record_round(raw, extra, events)
        self.queue = []
        self.step = MAIN
        self._after_round(events)

    def _finish(self, winners: list[int], events: list[dict[str, Any]]) -> None:
        super()._finish(winners, events)
        self.queue = []
        self.fresh = []
        self.extra_turns = 0
