"""Classic rounds: the deal, the draw pile refill and who starts (RULES.md C3-C6, C11).

`Rounds` is one part of `engine.game.Game`, on the fields of `engine.gamestate.GameState` (see that module
for the state's design). It owns:
* C3 the deal: a round is shuffled from its seed, or dealt as an explicit deal from a game record;
* C11 the reshuffle of the discard pile (all but its top) into a new draw pile, derived from the
  round's seed so that every game replays from its record;
* C4/C5/C6 the start: once every opening reveal is made, the round starter by the `round_starter`
  option (C6), else the highest sum of revealed cards with ties by `start_tiebreak` (C5).
SKYJO Action overrides the start (A3) and adds its action deck to the deal (engine.action.setup).
"""

from __future__ import annotations

from typing import Any

from . import cards, state
from .errors import OptionError, RecordError
from .gamestate import GameState
from .phases import DOWN, GONE, OPENING, PLAY, STAGE_TURN, TIE_REVEAL, UP

HIGHEST_CARD_THEN_SEAT = "highest_card_then_seat"  # A3's start tie-break (SKYJO Action)


class Rounds(GameState):
    """Dealing and starting rounds (C3-C6, C11); part of `engine.game.Game`."""

    __slots__ = ()

    def _reshuffle(self, events: list[dict[str, Any]]) -> None:
        """C11: the discard pile except its top becomes the new draw pile, shuffled."""
        if len(self.discard) < 2:
            return
        top = self.discard.pop()
        pile = self.discard
        self.discard = [top]
        self.reshuffles += 1
        cards.shuffle(pile, cards.derive(self._round_seed(), f"reshuffle-{self.reshuffles}"))
        self.draw = pile
        events.append({"type": "reshuffle", "count": len(pile)})

    def _round_seed(self, number: int | None = None) -> str:
        """The seed of round `number` (default: this round): its spec's, else derived from the game's
        seed (C3, C11). Fixed in `round_specs` when the round is dealt (`engine.deals` commits to it)."""
        n = self.round if number is None else number
        return self.round_specs[n - 1].get("seed") or cards.derive(self.seed, f"round-{n}")

    def as_dealt(self) -> Any:
        """A copy of this game as its current round was dealt (version `round_start`, C3), without its
        history (move list, event log): the round dealt again from its spec to the seats playing it.
        Only a round's end changes the fields a deal leaves alone (totals, score sheet, tie-break
        group, winners), so for a game that is not over every position of the round is this copy
        with the round's moves played on it (`engine.times_seen`, issue 33.1)."""
        g = state.copy_of(self, history=False)
        g.round -= 1
        g.version = self.round_start - 1 if self.round > 1 else 0  # `_start_round` counts the dealing move
        g._start_round(list(self.active), [])
        g.version = self.round_start
        return g

    # ------------------------------------------------------------------ rounds
    def _start_round(self, active: list[int], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        size = sum(self.deck_counts.values())  # (SKYJO Action's game deck can be chosen, A1)
        if size < 12 * len(active) + 1:
            raise OptionError(f"a game deck of {size} cards cannot deal to {len(active)} players")
        self.round += 1
        # the version the round is dealt at: 0 for the first; a later round is dealt by the move
        # that ends the previous one, which counts once this call returns (`play_code`)
        self.round_start = self.version + 1 if self.round > 1 else self.version
        self.active = active
        self.link_seats()
        self.vals = [[0] * 12 for _ in range(self.n)]
        self.face = [[GONE] * 12 for _ in range(self.n)]
        self.down = [0] * self.n
        if len(self.round_specs) < self.round:
            self.round_specs.append({"seed": cards.derive(self.seed, f"round-{self.round}")})
        spec = self.round_specs[self.round - 1]
        if "deal" in spec:
            grids, discard, draw = self._explicit_deal(spec["deal"], active)
        else:
            deck = cards.deck_from_counts(self.deck_counts)
            cards.shuffle(deck, self._round_seed())
            grids = {s: deck[12 * i : 12 * i + 12] for i, s in enumerate(active)}
            rest = deck[12 * len(active) :]
            discard = [rest[0]]
            draw = rest[1:][::-1]  # stored with the top last
        for s in active:
            self.vals[s] = list(grids[s])
            self.face[s] = [DOWN] * 12
            self.down[s] = 12
        self.discard = discard
        self.draw = draw
        self.phase = OPENING
        self.revealed = [0] * self.n
        self.tie_group: list[int] = []
        self.tie_owed: set[int] = set()
        self.turn = -1
        self.stage = STAGE_TURN
        self.held = None
        self.closer = -1
        self.final_left = 0
        self.reshuffles = 0
        self.removed_cols = []
        events.append({"type": "round_start", "round": self.round, "seats": list(active)})
        self.on_round_dealt()
        return events

    def _explicit_deal(
        self, deal: dict[str, Any], active: list[int]
    ) -> tuple[dict[int, list[int]], list[int], list[int]]:
        """An explicit deal from a game record: grids (12 cards each, A1 B1 C1 D1 A2 ... D3), the first
        discard card and the draw pile top first. Must use exactly the variant's deck."""
        try:
            raw_grids = deal["grids"]
            first = deal["discard"]
            draw_top_first = list(deal["draw"])
        except (KeyError, TypeError):
            raise RecordError(f"round {self.round}: an explicit deal needs grids, discard and draw") from None
        if not isinstance(raw_grids, list) or len(raw_grids) != self.n:
            raise RecordError(
                f"round {self.round}: an explicit deal needs one grid per seat ({self.n}), "
                "null for seats not playing"
            )
        grids: dict[int, list[int]] = {}
        for s in active:
            g = raw_grids[s]
            if not isinstance(g, list) or len(g) != 12:
                raise RecordError(f"round {self.round}: seat {s}'s grid in the deal must have 12 cards")
            grids[s] = [self._card_from_json(c) for c in g]
        discard = [self._card_from_json(first)]
        draw = [self._card_from_json(c) for c in draw_top_first][::-1]
        dealt = [c for g in grids.values() for c in g] + discard + draw
        deck = cards.deck_from_counts(self.deck_counts)
        if cards.counts_of(dealt) != cards.counts_of(deck):
            raise RecordError(
                f"round {self.round}: the deal does not use exactly the {self.variant} deck "
                f"({cards.deck_difference(dealt, deck)})"
            )
        return grids, discard, draw

    def _card_from_json(self, c: Any) -> int:
        if isinstance(c, bool) or not isinstance(c, int):
            raise RecordError(f"round {self.round}: {c!r} in the deal is not a card")
        return c

    def _choose_starter(self, events: list[dict[str, Any]]) -> None:
        """C5/C6: who starts the round once every opening reveal is made. In a C12 extra round only
        the tied seats play: `previous_closer` then applies if the closer is among them (else C5),
        `previous_winner` picks the lowest previous-round score among them (ties by C5)."""
        rule = self.options["round_starter"] if self.round > 1 else "highest_reveal"
        active = self.active
        if rule == "previous_closer":
            prev = self.rounds[-1]["closer"] if self.rounds else None
            if prev is not None and prev in active:
                self._begin_play(prev, "previous_closer", events)
                return
            self._resolve_start(active, events)
        elif rule == "previous_winner" and self.rounds:
            scores = self.rounds[-1]["scores"]
            cand = [s for s in active if scores[s] is not None]
            best = min(scores[s] for s in cand) if cand else None
            lowest = [s for s in cand if scores[s] == best]
            if len(lowest) == 1:
                self._begin_play(lowest[0], "previous_winner", events)
            else:
                self._resolve_start(lowest or active, events)
        else:
            self._resolve_start(active, events)

    def _resolve_start(self, candidates: list[int], events: list[dict[str, Any]]) -> None:
        """C5 (A3) among `candidates`: highest sum of revealed cards; ties by `start_tiebreak()`: C5's
        extra reveal, or the highest single card (the earliest seat among equal ones), or A3's
        highest single card then the earliest seat (the start event then says which decided)."""
        sums = {s: self._visible_sum(s) for s in candidates}
        best = max(sums.values())
        tied = [s for s in candidates if sums[s] == best]
        if len(tied) == 1:
            self._begin_play(tied[0], "highest_reveal", events)
            return
        rule = self.start_tiebreak()
        if rule == "extra_reveal":
            owed = {s for s in tied if self.down[s] > 0}
            if owed:
                self.phase = TIE_REVEAL
                self.tie_group = tied
                self.tie_owed = owed
                events.append({"type": "start_tie", "seats": tied, "sum": best})
                return
            self._begin_play(tied[0], "earliest_seat", events)
            return
        points = self.card_points
        high = {
            s: max((points(self.vals[s][c]) for c in range(12) if self.face[s][c] == UP), default=-99)
            for s in tied
        }
        top = max(high.values())
        firsts = [s for s in tied if high[s] == top]
        if rule == HIGHEST_CARD_THEN_SEAT and len(firsts) > 1:
            self._begin_play(firsts[0], "earliest_seat", events)
        else:
            self._begin_play(firsts[0], "highest_card", events)

    def start_tiebreak(self) -> str:
        """How a tie for the start is broken (C5: the `start_tiebreak` option)."""
        tiebreak: str = self.options["start_tiebreak"]
        return tiebreak

    def card_points(self, card: Any) -> int:
        """What a card counts in sums (classic: its number)."""
        points: int = card
        return points

    def _begin_play(self, seat: int, reason: str, events: list[dict[str, Any]]) -> None:
        self.phase = PLAY
        self.turn = seat
        self.stage = STAGE_TURN
        self.tie_group = []
        self.tie_owed = set()
        events.append({"type": "start", "seat": seat, "reason": reason})
        self.on_play_begins()
