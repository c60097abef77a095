"""SKYJO Action's turn flow: playing a move, the turn seat's moves, the end of a turn (A4, A5, A7, A8).

`ActionTurnMixin` is one part of `engine.action.game.ActionGame`. It owns:
* `play`: a move by a seat that owes a decision - a queued decision's answer goes to
  `engine.action.effects`, an opening reveal or the turn seat's move is played here - then
  `_continue` runs the turn on: queued decisions first, then sets (A5, `engine.action.scoring`),
  then the close check and the next turn (A8) or an extra turn (Double move, Defense, Thief);
* the turn seat's moves (A4): a game card drawn or taken and placed as in C7, an action card taken
  from the row or the deck, a held card discarded, a Draw three pick (A9.3), a pass when nothing
  else is possible; playing a card is `engine.action.effects`;
* grid changes every part shares: turning a card up or putting one in place ends insight knowledge
  of it (A9.4) and a star turning face-up triggers A7.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalMove
from ..moves import CELL_NAMES, COLUMN_NAMES, MOVE_BY_CODE, Move
from ..phases import (
    DOWN,
    GONE,
    OPENING,
    OPENING_REVEALS,
    OVER,
    PLAY,
    STAGE_DRAWN,
    STAGE_TAKEN,
    STAGE_TURN,
    UP,
)
from . import moves as am
from .moves import ActionMove
from .phases import ATTACK_ENTRIES, MAIN, RESOLVE, SETS, STAGE_THREE, card_refusal
from .rules import STAR


class ActionTurnMixin:
    """Turn flow of SKYJO Action (A4, A5, A7, A8); part of `ActionGame`."""

    def play(self, seat: int, move: Move | ActionMove | str | int) -> list[dict[str, Any]]:  # type: ignore[override]
        if isinstance(move, str):
            move = self.parse_move(move)
        elif isinstance(move, int):
            move = MOVE_BY_CODE[move]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise IllegalMove.of("no_such_seat", seat=seat)
        if isinstance(move, ActionMove):
            move = self.bind(seat, move)  # type: ignore[assignment]
        elif not isinstance(move, Move):
            raise IllegalMove.of("action_not_a_move")
        events: list[dict[str, Any]] = []
        self._dispatch(seat, move, events)
        self.moves.append(f"{seat}: {move.text()}")
        self.version += 1
        self.log.extend(events)
        return events

    def play_code(self, seat: int, code: int) -> list[dict[str, Any]]:
        return self.play(seat, MOVE_BY_CODE[code])

    def _owed(self, e: dict[str, Any]) -> IllegalMove:
        """What a queued decision waits for (part of the `waiting_for` refusal of another seat's move)."""
        who = self.names[e["seat"]]
        kind = e["kind"]
        if kind == "star_trigger":
            return IllegalMove.of("owes_star_trigger", who=who, moves="action row 1-4, action deck")
        if kind == "star_set":
            return IllegalMove.of("owes_star_set", who=who, line=f"{e['set'][0]} {self._set_label(e['set'])}")
        if kind == "defend":
            return card_refusal(IllegalMove, "owes_defense", who=who, card=e["card"])
        return IllegalMove.of("owes_meteor", who=who, like="meteor B2")

    def _set_label(self, sid: list[Any]) -> str:
        return COLUMN_NAMES[sid[1]] if sid[0] == "column" else str(sid[1] + 1)

    def _dispatch(self, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalMove.of("game_over")
        entry = self._entry_for(seat)
        reveal = isinstance(move, Move) and move.kind == "reveal"
        if entry is not None and not (reveal and phase == OPENING and self.revealed[seat] < OPENING_REVEALS):
            self._answer(seat, entry, move, events)
        elif phase == OPENING:
            if seat not in self.active:
                raise IllegalMove.of("not_in_round")
            if self.revealed[seat] >= OPENING_REVEALS:
                raise IllegalMove.of("opening_done")
            if not (isinstance(move, Move) and move.kind == "reveal"):
                raise IllegalMove.of("reveal_first")
            cell = move.cell
            f = self.face[seat]
            if f[cell] != DOWN:  # type: ignore[index]
                raise IllegalMove.of("face_up", cell=CELL_NAMES[cell])  # type: ignore[index]
            self._turn_up(seat, cell, events, "reveal")  # type: ignore[arg-type]
            self.revealed[seat] += 1
        else:
            if self.queue:
                raise IllegalMove.of("waiting_for", owed=[self._owed(e) for e in self._visible_queue()])
            if seat != self.turn:
                raise self._not_your_turn(seat)
            self._turn_move(seat, move, events)
        self._continue(events)

    def _forget(self, seat: int, cell: int) -> None:
        """The card at (seat, cell) moved or turned up: insight knowledge of it ends (A9.4)."""
        for lst in self.known:
            if lst:
                lst[:] = [k for k in lst if k[0] != seat or k[1] != cell]

    def _star_trigger(self, seat: int, events: list[dict[str, Any]]) -> None:
        """A7: a star became face-up in `seat`'s grid: that seat may take an action card."""
        if any(c is not None for c in self.arow) or self.adeck or self.adiscard:
            self.queue.append({"kind": "star_trigger", "seat": seat})
            events.append({"type": "star_trigger", "seat": seat})

    def _turn_up(
        self, seat: int, cell: int, events: list[dict[str, Any]], kind: str, discarded: Any = None
    ) -> None:
        self.face[seat][cell] = UP
        self.down[seat] -= 1
        self._forget(seat, cell)
        value = self.vals[seat][cell]
        ev: dict[str, Any] = {"type": kind, "seat": seat, "cell": CELL_NAMES[cell], "value": value}
        if kind == "flip":
            ev["discarded"] = discarded
        events.append(ev)
        if value == STAR:
            self._star_trigger(seat, events)

    def _put(self, seat: int, cell: int, card: Any) -> Any:
        """Swap `card` face-up onto `cell`; return the card that was there (to be discarded)."""
        row = self.vals[seat]
        old = row[cell]
        row[cell] = card
        if self.face[seat][cell] == DOWN:
            self.face[seat][cell] = UP
            self.down[seat] -= 1
        self._forget(seat, cell)
        return old

    def _take_action(self, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
        if move.kind == am.ACTION_ROW:
            i = move.index
            card = self.arow[i]  # type: ignore[index]
            if card is None:
                raise IllegalMove.of("action_row_place_empty", n=i + 1)  # type: ignore[operator]
            self.arow[i] = None  # type: ignore[index]
            self.arow[i] = self._adraw(events)  # type: ignore[index]
            source = f"row {i + 1}"  # type: ignore[operator]
        else:
            if not (self.adeck or self.adiscard):
                raise IllegalMove.of("action_decks_empty")
            card = self._adraw(events)
            source = "deck"
        self.hands[seat].append(card)  # type: ignore[arg-type]
        if self.phase == PLAY and seat == self.turn:
            self.fresh.append(card)  # type: ignore[arg-type]
        events.append({"type": "take_action", "seat": seat, "card": card, "source": source})

    def _turn_move(self, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
        stage = self.stage
        if stage == STAGE_THREE:
            if not isinstance(move, ActionMove) or move.kind not in (am.PICK, am.PICK_NONE):
                raise IllegalMove.of("pick_one_of_three", pick="pick 1-3", like="pick 2 C3", none="pick none")
            self._pick(seat, move, events)
            return
        if stage in (STAGE_DRAWN, STAGE_TAKEN):
            if not isinstance(move, Move) or move.kind not in ("swap", "flip"):
                raise IllegalMove.of("holding_drawn_card" if stage == STAGE_DRAWN else "holding_card")
            self._place(seat, move, events)
            return
        if isinstance(move, Move):
            kind = move.kind
            if kind == "reveal":
                raise IllegalMove.of("action_opening_over")
            if kind in ("swap", "flip"):
                raise IllegalMove.of("draw_first")
            if not self._has_grid(seat):
                raise IllegalMove.of("no_grid_cards")
            if kind == "draw":
                card = self._draw_card(events)
                if card is None:
                    raise IllegalMove.of("draw_pile_empty")
                self.held = card
                self.stage = STAGE_DRAWN
                events.append({"type": "draw", "seat": seat})
            else:
                if not self.discard:
                    raise IllegalMove.of("discard_pile_empty")
                self.held = self.discard.pop()
                self.stage = STAGE_TAKEN
                events.append({"type": "take", "seat": seat, "value": self.held})
            return
        kind = move.kind
        if kind in (am.ACTION_ROW, am.ACTION_DECK):
            self._take_action(seat, move, events)
            self.step = RESOLVE
        elif kind == am.PLAY:
            self._play_card(seat, move, events)
        elif kind == am.DISCARD_ACTION:
            if move.card not in self.playable(seat):
                raise self._not_playable(seat, move.card)  # type: ignore[arg-type]
            self.hands[seat].remove(move.card)  # type: ignore[arg-type]
            self.adiscard.append(move.card)  # type: ignore[arg-type]
            events.append({"type": "discard_action", "seat": seat, "card": move.card})
            self.step = RESOLVE
        elif kind == am.PASS:
            if any(m.kind != am.PASS for m in self._turn_moves(seat)):
                raise IllegalMove.of("pass_only_when_stuck")
            events.append({"type": "pass", "seat": seat})
            self.step = RESOLVE
        elif kind in (am.PICK, am.PICK_NONE):
            raise IllegalMove.of("nothing_to_pick")
        else:
            raise IllegalMove.of("not_asked", move=move.text(), like="action row 2, action deck")

    def _not_playable(self, seat: int, card: str) -> IllegalMove:
        """The refusal of playing or discarding `card`: not held, or taken this turn (A4 c)."""
        if card not in self.hands[seat]:
            return card_refusal(IllegalMove, "card_not_held", card=card)
        return card_refusal(IllegalMove, "card_taken_this_turn", card=card)

    def _place(self, seat: int, move: Move, events: list[dict[str, Any]]) -> None:
        cell = move.cell
        f = self.face[seat]
        stage = self.stage
        held = self.held
        if move.kind == "swap":
            if f[cell] == GONE:  # type: ignore[index]
                raise IllegalMove.of("removed", cell=CELL_NAMES[cell])  # type: ignore[index]
            old = self._put(seat, cell, held)  # type: ignore[arg-type]
            self.discard.append(old)
            events.append(
                {
                    "type": "swap",
                    "seat": seat,
                    "cell": CELL_NAMES[cell],
                    "value": held,  # type: ignore[index]
                    "discarded": old,
                    "from": "draw" if stage == STAGE_DRAWN else "discard",
                }
            )
            if held == STAR:
                self._star_trigger(seat, events)
        else:
            if stage == STAGE_TAKEN:
                raise IllegalMove.of("must_swap_taken")
            if f[cell] != DOWN:  # type: ignore[index]
                raise IllegalMove.of("face_up" if f[cell] == UP else "removed", cell=CELL_NAMES[cell])  # type: ignore[index]
            self.discard.append(held)
            self._turn_up(seat, cell, events, "flip", held)  # type: ignore[arg-type]
        self.held = None
        self.stage = STAGE_TURN
        self.step = RESOLVE

    def _pick(self, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
        """A9.3: keep at most one of the three, swapped as in C7; the rest go to the discard pile."""
        three = self.three
        if move.kind == am.PICK_NONE:
            self.discard.extend(three)
            events.append(
                {"type": "pick", "seat": seat, "cell": None, "value": None, "discarded": list(three)}
            )
        else:
            i = move.index
            if not 0 <= i < len(three):  # type: ignore[operator]
                raise IllegalMove.of("pick_range", n=len(three), pick=f"pick 1-{len(three)}")
            cell = move.cells[0]
            if self.face[seat][cell] == GONE:
                raise IllegalMove.of("removed", cell=CELL_NAMES[cell])
            card = three[i]  # type: ignore[index]
            rest = three[:i] + three[i + 1 :]  # type: ignore[operator]
            old = self._put(seat, cell, card)
            self.discard.extend(rest)
            self.discard.append(old)
            events.append(
                {
                    "type": "pick",
                    "seat": seat,
                    "cell": CELL_NAMES[cell],
                    "value": card,
                    "discarded": [*rest, old],
                }
            )
            if card == STAR:
                self._star_trigger(seat, events)
        self.three = []
        self.stage = STAGE_TURN
        self.step = RESOLVE

    def _continue(self, events: list[dict[str, Any]]) -> None:
        while True:
            phase = self.phase
            if phase == OPENING:
                if not self.queue and all(self.revealed[s] >= OPENING_REVEALS for s in self.active):
                    self._choose_starter(events)
                return
            if phase != PLAY:
                return
            if self.in_play and not any(e["kind"] in ATTACK_ENTRIES for e in self.queue):
                self.adiscard.extend(self.in_play)
                self.in_play = []
            if self.queue or self.step == MAIN:
                return
            if self.step == RESOLVE:
                self.step = SETS
                self._sets(events)
                continue
            self._end_action_turn(events)
            return

    def _end_action_turn(self, events: list[dict[str, Any]]) -> None:
        """A8 close check, then an extra turn of the same seat or the next seat's turn."""
        seat = self.turn
        active = self.active
        if self.closer < 0:
            closers = [s for s in active if self.down[s] == 0]
            if closers:
                closer = seat if seat in closers else closers[0]
                self.closer = closer
                self.final_left = len(active) - 1
                self.extra_turns = 0
                events.append({"type": "close", "seat": closer})
                self._begin_turn(self._next_after(seat))
                return
        elif self.extra_turns == 0:
            self.final_left -= 1
            if self.final_left <= 0:
                self._end_round(events)
                return
        if self.extra_turns > 0:
            self.extra_turns -= 1
            events.append({"type": "extra_turn", "seat": seat, "left": self.extra_turns})
            self._begin_turn(seat)
            return
        self._begin_turn(self._next_after(seat))

    def _next_after(self, seat: int) -> int:
        nxt = self.next_seat[seat]
        if nxt == self.closer:
            nxt = self.next_seat[nxt]
        return nxt
