"""Classic round end and game end: final reveal, scores, closer penalty, winners (RULES.md C8-C12).

`Scoring` is one part of `engine.game.Game`, on top of `engine.rounds.Rounds`. It owns:
* C8 column removal, here because removed cards never score: three equal face-up cards in a column
  leave the grid for the discard pile, after a turn (called by the turn flow) and at round end;
* C9 the round's end: every remaining face-down card is turned up (public), and with the option
  `final_reveal_removal` columns that become three equal then are removed too (C8);
* C10 the round score: the sum of the grid, the closer doubled unless lowest (options `doubling`,
  `doubling_tie`, `doubling_positive_only`);
* C12 the game end at `target_score`, ties by `final_tiebreak` (an extra round among the tied, most
  rounds won, or shared).
SKYJO Action scores differently (A8, engine.action.scoring) and reuses the game end (A11).
"""

from __future__ import annotations

from typing import Any

from .moves import CELL_NAMES, COLUMN_NAMES
from .phases import DOWN, GONE, OVER, UP
from .rounds import Rounds


class Scoring(Rounds):
    """Column removal, ending rounds and the game (C8-C12); part of `engine.game.Game`."""

    __slots__ = ()

    def _check_column(self, seat: int, col: int, events: list[dict[str, Any]]) -> None:
        """C8: three equal face-up cards in a column are removed onto the discard pile."""
        if not self.options["column_removal"]:
            return
        f = self.face[seat]
        if f[col] == UP and f[col + 4] == UP and f[col + 8] == UP:
            v = self.vals[seat]
            if v[col] == v[col + 4] == v[col + 8]:
                f[col] = f[col + 4] = f[col + 8] = GONE
                self.discard.extend((v[col], v[col + 4], v[col + 8]))
                self.removed_cols.append([seat, COLUMN_NAMES[col]])
                events.append(
                    {"type": "remove_column", "seat": seat, "column": COLUMN_NAMES[col], "value": v[col]}
                )

    def _turn_up_everything(self, events: list[dict[str, Any]]) -> None:
        """C9: at round end every remaining face-down card of the round's seats is turned up (public)."""
        revealed: list[list[Any]] = []
        for s in self.active:
            f = self.face[s]
            for c in range(12):
                if f[c] == DOWN:
                    f[c] = UP
                    revealed.append([s, CELL_NAMES[c], self.vals[s][c]])
            self.down[s] = 0
        if revealed:
            events.append({"type": "final_reveal", "cards": revealed})

    def _final_boards(self) -> list[list[Any] | None]:
        """C9/C13: the round's final grids once every card is turned up and removed sets are gone,
        public from now on: per seat the 12 cards in cell order (None: a removed cell), None for a
        seat not in the round. Taken before the next deal, so nothing of it leaks."""
        boards: list[list[Any] | None] = [None] * self.n
        for s in self.active:
            f, v = self.face[s], self.vals[s]
            boards[s] = [None if f[c] == GONE else v[c] for c in range(12)]
        return boards

    def _closer_doubled(self, raw: list[Any]) -> tuple[list[Any], list[int]]:
        """C10 (and A8, with the same options): the round's scores from the raw sums, the closer's
        doubled unless lowest (`doubling_tie`: strict doubles a tie too), never a score of 0 or less
        with `doubling_positive_only`. Returns (scores, [the doubled seat] or [])."""
        opts = self.options
        scores = list(raw)
        closer = self.closer
        if not opts["doubling"] or closer < 0:
            return scores, []
        mine = raw[closer]
        others = [raw[s] for s in self.active if s != closer]
        if opts["doubling_tie"] == "strict":
            beaten = any(o <= mine for o in others)
        else:
            beaten = any(o < mine for o in others)
        if not beaten or (opts["doubling_positive_only"] and mine <= 0):
            return scores, []
        scores[closer] = mine * 2
        return scores, [closer]

    def _end_round(self, events: list[dict[str, Any]]) -> None:
        """C9 end: turn up every face-down card (C8 final-reveal removal), score (C10), game end (C12)."""
        opts = self.options
        self._turn_up_everything(events)
        if opts["final_reveal_removal"]:
            for s in self.active:
                for col in range(4):
                    self._check_column(s, col, events)
        raw: list[int | None] = [None] * self.n
        for s in self.active:
            raw[s] = self._visible_sum(s)
        self._record_round(raw, {}, events)
        self._after_round(events)

    def _record_round(self, raw: list[int | None], extra: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """C10 (A8): score the round from each seat's raw sum (the closer doubled, `_closer_doubled`),
        add the scores to the totals and write the round's record on the score sheet, with the
        variant's `extra` keys (SKYJO Action: sets, held cards, star bonus); its `round_end` event
        is the record without the final boards (logs stay small)."""
        closer = self.closer
        scores, doubled = self._closer_doubled(raw)
        for s in self.active:
            self.totals[s] += scores[s]
        result = {
            "round": self.round,
            "closer": closer if closer >= 0 else None,
            "raw": raw,
            "scores": scores,
            "doubled": doubled,
            "removed_columns": self.removed_cols,
            **extra,
            "totals": list(self.totals),
        }
        events.append({"type": "round_end", **result})
        result["boards"] = self._final_boards()  # every card up, removed sets gone (C9/C13)
        self.rounds.append(result)

    def _after_round(self, events: list[dict[str, Any]]) -> None:
        """C12: game end at the target; ties by the final_tiebreak option."""
        totals = self.totals
        if self.tiebreak_group is not None:
            group = self.tiebreak_group
        elif max(totals) >= self.options["target_score"]:
            group = list(range(self.n))
        else:
            self._start_round(list(range(self.n)), events)
            return
        low = min(totals[s] for s in group)
        tied = [s for s in group if totals[s] == low]
        if len(tied) > 1:
            rule = self.options["final_tiebreak"]
            if rule == "extra_round":
                self.tiebreak_group = tied
                events.append({"type": "extra_round", "seats": tied})
                self._start_round(tied, events)
                return
            if rule == "most_rounds_won":
                tied = self._most_rounds_won(tied)
        self._finish(tied, events)

    def _most_rounds_won(self, tied: list[int]) -> list[int]:
        wins = dict.fromkeys(tied, 0)
        for r in self.rounds:
            played = [s for s, v in enumerate(r["scores"]) if v is not None]
            best = min(r["scores"][s] for s in played)
            for s in tied:
                if r["scores"][s] == best:
                    wins[s] += 1
        most = max(wins.values())
        return [s for s in tied if wins[s] == most]

    def _finish(self, winners: list[int], events: list[dict[str, Any]]) -> None:
        self.phase = OVER
        self.winners = winners
        self.turn = -1
        events.append({"type": "game_over", "winners": winners, "totals": list(self.totals)})
        self.on_game_over()
