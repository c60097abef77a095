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

Where the rules live
--------------------
`Game` is put together from parts, one module per stretch of the rules, each built on the one before
and all working on the fields declared once in `engine.gamestate.GameState`:
* `engine.rounds`: the deal (C3), who starts (C5, C6) and the reshuffle of the draw pile (C11);
* `engine.scoring`: column removal (C8), the round's end and score (C9, C10) and the game's end (C12);
* this module: creation, the saved-state and record methods, the queries (`pending`, legal moves) and
  the turn flow - opening reveals (C4, C5's extra reveal), a turn (C7) and the close (C9).
The lower layers (`engine.phases` for the state's words, `engine.state` for JSON, `engine.record`)
never import this module: each variant is registered once, with its game class, in `engine.variants`
(`engine.classic` registers this one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from . import cards, state
from .errors import IllegalMove
from .moves import (
    CELL_NAMES,
    CODES,
    DRAW,
    FLIP,
    MOVES,
    REVEAL,
    SEAT_MOVE_TEXT,
    SWAP,
    TAKE,
    Move,
    parse_move,
)
from .options import MAX_PLAYERS, check_distinct_names, validate_options, validate_players
from .phases import (  # re-exported: engine.game is where callers find the state's words
    DOWN,
    GONE,
    OPENING,
    OPENING_REVEALS,
    OVER,
    PLAY,
    STAGE_DRAWN,
    STAGE_KINDS,
    STAGE_TAKEN,
    STAGE_TURN,
    TIE_REVEAL,
    UP,
    Pending,
    swap_event,
)
from .record import record_of
from .scoring import Scoring

T = TypeVar("T")

# Every decision a classic seat can owe, prebuilt once (a `Pending` is immutable): per kind, per seat;
# a play turn's per stage, per seat.
_PENDING: dict[str, tuple[Pending, ...]] = {
    kind: tuple(Pending(seat, kind) for seat in range(MAX_PLAYERS)) for kind in ("reveal", "tie_reveal", *STAGE_KINDS)
}
_PENDING_BY_STAGE: tuple[tuple[Pending, ...], ...] = tuple(_PENDING[kind] for kind in STAGE_KINDS)

__all__ = [
    "DOWN",
    "GONE",
    "OPENING",
    "OPENING_REVEALS",
    "OVER",
    "PLAY",
    "STAGE_DRAWN",
    "STAGE_KINDS",
    "STAGE_TAKEN",
    "STAGE_TURN",
    "TIE_REVEAL",
    "UP",
    "Game",
    "Pending",
]


class Game(Scoring):
    """The authoritative state of one classic game. See the module docstring."""

    __slots__ = ()
    variant: ClassVar[str] = "classic"

    # ------------------------------------------------------------------ creation
    def __init__(
        self,
        players: list[str],
        options: dict[str, Any] | None = None,
        seed: str | int | None = None,
        deals: list[dict[str, Any]] | None = None,
    ) -> None:
        self.names = validate_players(players)
        check_distinct_names(self.names)
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
        return state.to_json(self, copy=copy)

    @staticmethod
    def from_json(data: dict[str, Any], *, copy: bool = True) -> Game:
        """The game of a saved state (invariants checked). `copy=False`: the game takes over the
        data's lists (for a caller that owns `data`, just decoded, and does not use it again)."""
        return state.from_json(data, copy=copy)

    def copy(self) -> Game:
        """A deep copy of this game (hidden information included), e.g. to try moves on."""
        copied: Game = state.copy_of(self)
        return copied

    def record(self) -> dict[str, Any]:
        """The game record that replays this game (see engine.record)."""
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
            return [_PENDING_BY_STAGE[self.stage][self.turn]]
        if phase == OPENING:
            rev = self.revealed
            reveal = _PENDING["reveal"]
            return [reveal[s] for s in self.active if rev[s] < OPENING_REVEALS]
        if phase == TIE_REVEAL:
            tie_reveal = _PENDING["tie_reveal"]
            return [tie_reveal[s] for s in self.tie_group if s in self.tie_owed]
        return []

    def owes(self, seat: int) -> str | None:
        for p in self.pending():
            if p[0] == seat:
                return p[1]
        return None

    def decision_id(self, seat: int) -> str | None:
        """A short public name of the decision `seat` owes now, or None: `<round>.<kind>.<since>`.

        It stays the same while the seat still owes that same decision and changes once it is made:
        the whole opening reveal of a round is one decision (both reveals, C4; `since` is the
        version the round was dealt at, so another seat's reveal changes nothing), every other
        decision (a turn, placing the drawn or taken card, a C5 tie reveal, each queued SKYJO
        Action decision) is its own, named by the version right after the seat's own last move.
        Made of public facts only (round, kind, versions) and of the saved state, so it survives
        `to_json`. Move links and Confirm forms are bound to it (the service refuses them once it
        changed)."""
        kind = self.owes(seat)
        if kind is None:
            return None
        since = self.round_start
        if not (kind == "reveal" and self.phase == OPENING):
            since = max(since, self.last_move_end(seat))
        return f"{self.round}.{kind}.{since}"

    def last_move_end(self, seat: int) -> int:
        """The version right after `seat`'s last move (0 if it has not moved)."""
        moves = self.moves
        prefix = f"{seat}: "
        for i in range(len(moves) - 1, -1, -1):
            if moves[i].startswith(prefix):
                return self.version - (len(moves) - 1 - i)
        return 0

    def legal_codes(self, seat: int) -> list[int]:
        """Legal moves of `seat` as int codes (the fast form of `legal_moves`)."""
        return self._legal(seat, CODES)

    def _legal(self, seat: int, alphabet: Sequence[T]) -> list[T]:
        """Legal moves of `seat` (C4, C5, C7), each written as `alphabet[code]`: the rule is written
        once for both forms of a move (`engine.moves.CODES` and `engine.moves.MOVES`)."""
        phase = self.phase
        if phase == PLAY:
            if seat != self.turn:
                return []
            f = self.face[seat]
            stage = self.stage
            if stage == STAGE_TURN:
                if self.draw or len(self.discard) > 1:
                    return [alphabet[DRAW << 4], alphabet[TAKE << 4]]
                return [alphabet[TAKE << 4]]
            if GONE in f:  # C8: no swap into a removed column
                moves = [alphabet[SWAP << 4 | c] for c in range(12) if f[c] != GONE]
            else:
                moves = list(alphabet[SWAP << 4 : SWAP << 4 | 12])
            if stage == STAGE_DRAWN:
                moves.extend([alphabet[FLIP << 4 | c] for c in range(12) if f[c] == DOWN])
            return moves
        if (phase == OPENING and seat in self.active and self.revealed[seat] < OPENING_REVEALS) or (
            phase == TIE_REVEAL and seat in self.tie_owed
        ):
            f = self.face[seat]
            return [alphabet[REVEAL << 4 | c] for c in range(12) if f[c] == DOWN]
        return []

    def parse_move(self, text: str) -> Move:
        """This variant's move grammar (classic: engine.moves.parse_move)."""
        return parse_move(text)

    def legal_moves(self, seat: int) -> list[Move]:
        return self._legal(seat, MOVES)

    # ------------------------------------------------------------------ moves
    def play(self, seat: int, move: Move | str | int) -> list[dict[str, Any]]:
        """Apply `move` by `seat` in place; return the public events. Raises IllegalMove."""
        cls = move.__class__
        if cls is Move:  # the usual case first: a move of `legal_moves` or `parse_move`
            code = move.code  # type: ignore[union-attr]  # cls is Move
        elif isinstance(move, str):
            code = self.parse_move(move).code
        else:
            code = move if isinstance(move, int) else move.code
        if seat.__class__ is not int or not 0 <= seat < self.n:
            if not isinstance(seat, int) or not 0 <= seat < self.n:
                raise IllegalMove.of("no_such_seat", seat=seat)
        return self.play_code(seat, code)

    def play_code(self, seat: int, code: int) -> list[dict[str, Any]]:
        """`play` for a valid seat and a move code (the hot path of bots and benchmarks)."""
        events: list[dict[str, Any]] = []
        phase = self.phase
        if phase == PLAY:
            if seat != self.turn:
                raise self._not_your_turn(seat)
            self._play_turn(seat, code >> 4, code & 15, events)
        elif phase == OPENING or phase == TIE_REVEAL:
            self._play_reveal(seat, code >> 4, code & 15, events)
        else:
            raise IllegalMove.of("game_over")
        self.moves.append(SEAT_MOVE_TEXT[seat][code])
        self.version += 1
        self.log.extend(events)
        return events

    def _not_your_turn(self, seat: int) -> IllegalMove:
        """The refusal of a move out of turn; the closer is told why it has no turn left (C9)."""
        who = self.names[self.turn]
        if seat == self.closer:
            return IllegalMove.of("closer_no_turn", who=who)
        return IllegalMove.of("not_your_turn", who=who)

    def _play_reveal(self, seat: int, kind: int, cell: int, events: list[dict[str, Any]]) -> None:
        if self.phase == OPENING:
            if seat not in self.active:
                raise IllegalMove.of("not_in_round")
            if self.revealed[seat] >= OPENING_REVEALS:
                raise IllegalMove.of("opening_done")
        elif seat not in self.tie_owed:
            raise IllegalMove.of("tie_reveal_only")
        if kind != REVEAL:
            raise IllegalMove.of("reveal_first")
        f = self.face[seat]
        if f[cell] != DOWN:
            raise IllegalMove.of("face_up", cell=CELL_NAMES[cell])
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
                raise IllegalMove.of("card_in_hand_drawn" if stage == STAGE_DRAWN else "card_in_hand")
            if kind == DRAW:
                if not self.draw:
                    self._reshuffle(events)  # C11
                    if not self.draw:
                        raise IllegalMove.of("draw_pile_empty")
                self.held = self.draw.pop()
                self.stage = STAGE_DRAWN
                events.append({"type": "draw", "seat": seat})
            else:
                self.held = self.discard.pop()
                self.stage = STAGE_TAKEN
                events.append({"type": "take", "seat": seat, "value": self.held})
            return
        if kind == REVEAL:
            raise IllegalMove.of("opening_over")
        if stage == STAGE_TURN:
            raise IllegalMove.of("draw_first")
        f = self.face[seat]
        held = self.held
        if kind == SWAP:
            if f[cell] == GONE:
                raise IllegalMove.of("removed", cell=CELL_NAMES[cell])
            row = self.vals[seat]
            old = row[cell]
            row[cell] = held
            if f[cell] == DOWN:
                f[cell] = UP
                self.down[seat] -= 1
            self.discard.append(old)
            events.append(swap_event(seat, CELL_NAMES[cell], held, old, stage))
        else:  # FLIP
            if stage == STAGE_TAKEN:
                raise IllegalMove.of("must_swap_taken")
            if f[cell] != DOWN:
                raise IllegalMove.of("face_up" if f[cell] == UP else "removed", cell=CELL_NAMES[cell])
            self.discard.append(held)
            f[cell] = UP
            self.down[seat] -= 1
            events.append(
                {
                    "type": "flip",
                    "seat": seat,
                    "cell": CELL_NAMES[cell],
                    "value": self.vals[seat][cell],
                    "discarded": held,
                }
            )
        self.held = None
        self.stage = STAGE_TURN
        self._check_column(seat, cell & 3, events)
        self._end_turn(seat, events)

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

