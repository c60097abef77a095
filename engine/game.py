"""Classic SKYJO (RULES.md C1-C13) as a state machine with pending decisions.

Design
------
* A `Game` holds the complete, authoritative state: every grid, the draw pile (top = last element),
  the discard pile (top = last element), the held card, the score sheet, the public log and the
  secret seed. Inside it is plain lists and ints so random play runs fast; the edges (`Move`, views,
  JSON) are value objects and plain data.
* The game never says "whose turn": `pending()` lists the seats that owe a decision and its kind.
  During the opening reveal (C4) every active seat owes `reveal` at once, in any order; during a C5
  extra reveal the tied seats do; during play one seat owes `turn` and then, after `draw` or `take`,
  `place_drawn` / `place_taken` (the second stage of the same turn, C7).
* `play(seat, move)` applies a move in place and returns the public events; `apply_move` (in
  `engine.api`) is the pure reducer on top of it: copy, play, version + 1.
* Randomness comes only from `cards.shuffle` keyed by the game's seed (see `cards`), so the state
  round-trips through JSON without any RNG object and any game replays from its record.
"""

from __future__ import annotations

from typing import Any

from . import cards
from .errors import IllegalMove
from .moves import (
    CELL_NAMES,
    COLUMN_NAMES,
    DRAW,
    FLIP,
    MOVE_BY_CODE,
    REVEAL,
    SEAT_MOVE_TEXT,
    SWAP,
    TAKE,
    Move,
    parse_move,
)
from .options import validate_options, validate_players

DOWN, UP, GONE = 0, 1, 2
OPENING, TIE_REVEAL, PLAY, OVER = "opening", "tie_reveal", "play", "game_over"
STAGE_TURN, STAGE_DRAWN, STAGE_TAKEN = 0, 1, 2
STAGE_KINDS = ("turn", "place_drawn", "place_taken")
OPENING_REVEALS = 2  # C4


class Pending(tuple):
    """(seat, kind): `seat` owes a decision of `kind` (reveal, tie_reveal, turn, place_drawn,
    place_taken)."""

    __slots__ = ()

    def __new__(cls, seat: int, kind: str) -> Pending:
        return tuple.__new__(cls, (seat, kind))

    @property
    def seat(self) -> int:
        return self[0]

    @property
    def kind(self) -> str:
        return self[1]

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self[0], "kind": self[1]}


class Game:
    """The authoritative state of one classic game. See the module docstring."""

    variant = "classic"
    deck_counts: dict[int, int] = cards.CLASSIC_COUNTS

    __slots__ = (
        "names", "n", "options", "seed", "version", "round", "active", "next_seat",
        "vals", "face", "down", "draw", "discard", "phase", "revealed", "tie_group", "tie_owed",
        "turn", "stage", "held", "closer", "final_left", "totals", "rounds", "round_specs",
        "reshuffles", "tiebreak_group", "winners", "moves", "log", "removed_cols",
    )

    # ------------------------------------------------------------------ creation
    def __init__(self, players: list[str], options: dict[str, Any] | None = None,
                 seed: str | int | None = None, deals: list[dict[str, Any]] | None = None) -> None:
        self.names = validate_players(players)
        self.n = len(self.names)
        self.options = validate_options(self.variant, options)
        self.seed = cards.new_seed() if seed is None else str(seed)
        self.version = 0
        self.round = 0
        self.totals = [0] * self.n
        self.rounds: list[dict[str, Any]] = []
        self.round_specs: list[dict[str, Any]] = [dict(d) for d in (deals or [])]
        self.tiebreak_group: list[int] | None = None
        self.winners: list[int] | None = None
        self.moves: list[str] = []
        self.log: list[dict[str, Any]] = []
        self.closer = -1
        self.log.extend(self._start_round(list(range(self.n)), []))

    # ------------------------------------------------------------------ plain data
    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        """The complete state as plain JSON data (hidden information included: store, never render).
        `copy=False`: the data shares its lists with this game (for a caller that only serializes it
        and plays no further move on this game)."""
        from .state import to_json

        return to_json(self, copy=copy)

    @staticmethod
    def from_json(data: dict[str, Any], *, copy: bool = True) -> Game:
        """The game of a saved state (invariants checked). `copy=False`: the game takes over the
        data's lists (for a caller that owns `data`, just decoded, and does not use it again)."""
        from .state import from_json

        return from_json(data, copy=copy)

    def record(self) -> dict[str, Any]:
        """The game record that replays this game (see engine.record)."""
        from .record import record_of

        return record_of(self)

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def name(self, seat: int) -> str:
        return self.names[seat]

    def pending(self) -> list[Pending]:
        """Who owes which decision now (RULES.md, decisions made out of turn)."""
        phase = self.phase
        if phase == PLAY:
            return [Pending(self.turn, STAGE_KINDS[self.stage])]
        if phase == OPENING:
            rev = self.revealed
            return [Pending(s, "reveal") for s in self.active if rev[s] < OPENING_REVEALS]
        if phase == TIE_REVEAL:
            return [Pending(s, "tie_reveal") for s in self.tie_group if s in self.tie_owed]
        return []

    def owes(self, seat: int) -> str | None:
        for p in self.pending():
            if p[0] == seat:
                return p[1]
        return None

    def legal_codes(self, seat: int) -> list[int]:
        """Legal moves of `seat` as int codes (the fast form of `legal_moves`)."""
        phase = self.phase
        if phase == PLAY:
            if seat != self.turn:
                return []
            f = self.face[seat]
            stage = self.stage
            if stage == STAGE_TURN:
                codes = [DRAW << 4] if (self.draw or len(self.discard) > 1) else []
                codes.append(TAKE << 4)
                return codes
            codes = [SWAP << 4 | c for c in range(12) if f[c] != GONE]
            if stage == STAGE_DRAWN:
                codes.extend(FLIP << 4 | c for c in range(12) if f[c] == DOWN)
            return codes
        if (phase == OPENING and seat in self.active and self.revealed[seat] < OPENING_REVEALS) or (
            phase == TIE_REVEAL and seat in self.tie_owed
        ):
            f = self.face[seat]
            return [REVEAL << 4 | c for c in range(12) if f[c] == DOWN]
        return []

    def parse_move(self, text: str) -> Move:
        """This variant's move grammar (classic: engine.moves.parse_move)."""
        return parse_move(text)

    def legal_moves(self, seat: int) -> list[Move]:
        return [MOVE_BY_CODE[c] for c in self.legal_codes(seat)]

    # ------------------------------------------------------------------ moves
    def play(self, seat: int, move: Move | str | int) -> list[dict[str, Any]]:
        """Apply `move` by `seat` in place; return the public events. Raises IllegalMove."""
        if isinstance(move, str):
            move = self.parse_move(move)
        code = move if isinstance(move, int) else move.code
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalMove(f"there is no seat {seat} in this game")
        return self.play_code(seat, code)

    def play_code(self, seat: int, code: int) -> list[dict[str, Any]]:
        """`play` for a valid seat and a move code (the hot path of bots and benchmarks)."""
        events: list[dict[str, Any]] = []
        self._play(seat, code, events)
        self.moves.append(SEAT_MOVE_TEXT[seat][code])
        self.version += 1
        self.log.extend(events)
        return events

    def _play(self, seat: int, code: int, events: list[dict[str, Any]]) -> None:
        kind = code >> 4
        cell = code & 15
        phase = self.phase
        if phase == PLAY:
            if seat != self.turn:
                raise IllegalMove(f"it is {self.names[self.turn]}'s turn, not yours")
            self._play_turn(seat, kind, cell, events)
        elif phase == OPENING or phase == TIE_REVEAL:
            self._play_reveal(seat, kind, cell, events)
        else:
            raise IllegalMove("the game is over")

    def _play_reveal(self, seat: int, kind: int, cell: int, events: list[dict[str, Any]]) -> None:
        if self.phase == OPENING:
            if seat not in self.active:
                raise IllegalMove("you are not playing in this round")
            if self.revealed[seat] >= OPENING_REVEALS:
                raise IllegalMove("you have revealed your two cards; wait for the others")
        elif seat not in self.tie_owed:
            raise IllegalMove("only the players tied for the start reveal another card now")
        if kind != REVEAL:
            raise IllegalMove("first reveal your cards: say reveal and a cell, like reveal B2")
        f = self.face[seat]
        if f[cell] != DOWN:
            raise IllegalMove(f"{CELL_NAMES[cell]} is already face-up")
        f[cell] = UP
        self.down[seat] -= 1
        value = self.vals[seat][cell]
        events.append({"type": "reveal", "seat": seat, "cell": CELL_NAMES[cell], "value": value})
        self._check_column(seat, cell & 3, events)
        if self.phase == OPENING:
            self.revealed[seat] += 1
            rev = self.revealed
            if all(rev[s] >= OPENING_REVEALS for s in self.active):
                self._choose_starter(events)
        else:
            self.tie_owed.discard(seat)
            if not self.tie_owed:
                self._resolve_start(self.tie_group, events)

    def _play_turn(self, seat: int, kind: int, cell: int, events: list[dict[str, Any]]) -> None:
        stage = self.stage
        if kind == DRAW or kind == TAKE:
            if stage != STAGE_TURN:
                raise IllegalMove("you already have a card in hand: swap it into your grid"
                                  + (" or discard it and flip a card" if stage == STAGE_DRAWN else ""))
            if kind == DRAW:
                if not self.draw:
                    self._reshuffle(events)  # C11
                    if not self.draw:
                        raise IllegalMove("the draw pile is empty; take the discard top")
                self.held = self.draw.pop()
                self.stage = STAGE_DRAWN
                events.append({"type": "draw", "seat": seat})
            else:
                self.held = self.discard.pop()
                self.stage = STAGE_TAKEN
                events.append({"type": "take", "seat": seat, "value": self.held})
            return
        if kind == REVEAL:
            raise IllegalMove("the opening is over: draw, take, swap or flip")
        if stage == STAGE_TURN:
            raise IllegalMove("first draw from the draw pile or take the discard top")
        f = self.face[seat]
        held = self.held
        if kind == SWAP:
            if f[cell] == GONE:
                raise IllegalMove(f"{CELL_NAMES[cell]} has been removed")
            row = self.vals[seat]
            old = row[cell]
            row[cell] = held
            if f[cell] == DOWN:
                f[cell] = UP
                self.down[seat] -= 1
            self.discard.append(old)
            events.append({"type": "swap", "seat": seat, "cell": CELL_NAMES[cell], "value": held,
                           "discarded": old, "from": "draw" if stage == STAGE_DRAWN else "discard"})
        else:  # FLIP
            if stage == STAGE_TAKEN:
                raise IllegalMove("you must place the card you took from the discard pile: swap it")
            if f[cell] != DOWN:
                raise IllegalMove(f"{CELL_NAMES[cell]} is already face-up"
                                  if f[cell] == UP else f"{CELL_NAMES[cell]} has been removed")
            self.discard.append(held)
            f[cell] = UP
            self.down[seat] -= 1
            events.append({"type": "flip", "seat": seat, "cell": CELL_NAMES[cell],
                           "value": self.vals[seat][cell], "discarded": held})
        self.held = None
        self.stage = STAGE_TURN
        self._check_column(seat, cell & 3, events)
        self._end_turn(seat, events)

    # ------------------------------------------------------------------ rules helpers
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
                events.append({"type": "remove_column", "seat": seat, "column": COLUMN_NAMES[col],
                               "value": v[col]})

    def _end_turn(self, seat: int, events: list[dict[str, Any]]) -> None:
        """C9: a seat with no face-down card closes; every other seat gets exactly one more turn."""
        if self.closer < 0:
            if self.down[seat] == 0:
                self.closer = seat
                self.final_left = len(self.active) - 1
                events.append({"type": "close", "seat": seat})
        else:
            self.final_left -= 1
        if self.closer >= 0 and self.final_left <= 0:
            self._end_round(events)
            return
        self.turn = self.next_seat[seat]

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

    def _round_seed(self) -> str:
        return self.round_specs[self.round - 1].get("seed") or cards.derive(self.seed, f"round-{self.round}")

    # ------------------------------------------------------------------ rounds
    def _start_round(self, active: list[int], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.round += 1
        self.active = active
        nxt = [0] * self.n
        for i, s in enumerate(active):
            nxt[s] = active[(i + 1) % len(active)]
        self.next_seat = nxt
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
        self.removed_cols: list[list[Any]] = []
        events.append({"type": "round_start", "round": self.round, "seats": list(active)})
        return events

    def _explicit_deal(self, deal: dict[str, Any], active: list[int]) -> tuple[dict[int, list[int]], list[int], list[int]]:
        """An explicit deal from a game record: grids (12 cards each, A1 B1 C1 D1 A2 ... D3), the first
        discard card and the draw pile top first. Must use exactly the variant's deck."""
        from .errors import RecordError

        try:
            raw_grids = deal["grids"]
            first = deal["discard"]
            draw_top_first = list(deal["draw"])
        except (KeyError, TypeError):
            raise RecordError("an explicit deal needs grids, discard and draw") from None
        if not isinstance(raw_grids, list) or len(raw_grids) != self.n:
            raise RecordError(f"an explicit deal needs one grid per seat ({self.n}), null for seats not playing")
        grids: dict[int, list[int]] = {}
        for s in active:
            g = raw_grids[s]
            if not isinstance(g, list) or len(g) != 12:
                raise RecordError(f"seat {s}'s grid in the deal must have 12 cards")
            grids[s] = [self._card_from_json(c) for c in g]
        discard = [self._card_from_json(first)]
        draw = [self._card_from_json(c) for c in draw_top_first][::-1]
        dealt = [c for g in grids.values() for c in g] + discard + draw
        if cards.counts_of(dealt) != cards.counts_of(cards.deck_from_counts(self.deck_counts)):
            raise RecordError(f"the deal does not use exactly the {self.variant} deck")
        return grids, discard, draw

    def _card_from_json(self, c: Any) -> int:
        from .errors import RecordError

        if isinstance(c, bool) or not isinstance(c, int):
            raise RecordError(f"{c!r} is not a card")
        return c

    def _visible_sum(self, seat: int) -> int:
        f = self.face[seat]
        v = self.vals[seat]
        return sum(v[c] for c in range(12) if f[c] == UP)

    def _choose_starter(self, events: list[dict[str, Any]]) -> None:
        """C5/C6: who starts the round once every opening reveal is made."""
        rule = self.options["round_starter"] if self.round > 1 else "highest_reveal"
        active = self.active
        if self.tiebreak_group is not None and self.rounds and self.rounds[-1]["closer"] not in active:
            rule = "highest_reveal"
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
        """C5 among `candidates`: highest sum of revealed cards; ties by the start_tiebreak option."""
        sums = {s: self._visible_sum(s) for s in candidates}
        best = max(sums.values())
        tied = [s for s in candidates if sums[s] == best]
        if len(tied) == 1:
            self._begin_play(tied[0], "highest_reveal", events)
            return
        if self.options["start_tiebreak"] == "extra_reveal":
            owed = {s for s in tied if self.down[s] > 0}
            if owed:
                self.phase = TIE_REVEAL
                self.tie_group = tied
                self.tie_owed = owed
                events.append({"type": "start_tie", "seats": tied, "sum": best})
                return
            self._begin_play(tied[0], "earliest_seat", events)
            return
        high = {s: max((self.vals[s][c] for c in range(12) if self.face[s][c] == UP), default=-99) for s in tied}
        top = max(high.values())
        first = next(s for s in tied if high[s] == top)
        self._begin_play(first, "highest_card", events)

    def _begin_play(self, seat: int, reason: str, events: list[dict[str, Any]]) -> None:
        self.phase = PLAY
        self.turn = seat
        self.stage = STAGE_TURN
        self.tie_group = []
        self.tie_owed = set()
        events.append({"type": "start", "seat": seat, "reason": reason})

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

    def _end_round(self, events: list[dict[str, Any]]) -> None:
        """C9 end: turn up every face-down card (C8 final-reveal removal), score (C10), game end (C12)."""
        opts = self.options
        self._turn_up_everything(events)
        if opts["final_reveal_removal"]:
            for s in self.active:
                for col in range(4):
                    self._check_column(s, col, events)
        removed = self.removed_cols
        raw: list[int | None] = [None] * self.n
        for s in self.active:
            raw[s] = self._visible_sum(s)
        scores = list(raw)
        closer = self.closer
        doubled: list[int] = []
        if opts["doubling"] and closer >= 0:
            mine = raw[closer]
            others = [raw[s] for s in self.active if s != closer]
            beaten = any(o <= mine for o in others) if opts["doubling_tie"] == "strict" else any(o < mine for o in others)
            if beaten and not (opts["doubling_positive_only"] and mine <= 0):
                scores[closer] = mine * 2
                doubled.append(closer)
        for s in self.active:
            self.totals[s] += scores[s]
        result = {"round": self.round, "closer": closer if closer >= 0 else None, "raw": raw,
                  "scores": scores, "doubled": doubled, "removed_columns": removed,
                  "totals": list(self.totals)}
        self.rounds.append(result)
        events.append({"type": "round_end", **result})
        self._after_round(events)

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
