"""SKYJO Action (RULES.md A1-A11) on top of the classic state machine.

Design
------
* `ActionGame(Game)` keeps every classic field (grids, game draw/discard piles, held card, stages
  `turn`/`place_drawn`/`place_taken`, score sheet) and adds the action deck, row and discard pile,
  the held action cards (`hands`, public), the cards of a Draw three (`three`), each seat's insight
  knowledge (`known`, private), star bonuses (`banked`, `kept`) and a **decision queue**.
* Game cards are ints -2..12 or the string "star" (A6); `rules.points` gives a card's value.
* A turn (A4) is: the turn seat's main move (and its second stage: place the drawn / taken card, or
  pick one of three), then the queued decisions it caused - out-of-turn ones included - then A5 sets
  (number sets go at once; each complete star set queues its owner's keep/remove decision, A6),
  then the close check (A8) and the next turn (or an extra turn: Double move, Defense, Thief).
  `step` says where the turn is: `main` (the turn seat owes its move), `resolve` (the main move is
  done; queued decisions first), `sets` (sets are done; star-set decisions first).
* Queued decisions (`queue`, plain dicts so the JSON state is plain data):
  `star_trigger` (A7: take an action card or decline), `star_set` (A6: keep or remove),
  `defend` (A9.6: block or allow an attack), `meteor` (A9.9: each target's card, or block; every
  target of one shower owes at once). They appear in `pending()` like any classic decision.
* An attack card waits in `in_play` until its targets have answered, then joins the action discard.

Rulings where the texts are silent (documented in tests):
* Stars trigger A7 whenever a star lands face-up in a grid: revealed, flipped, swapped in (drawn,
  taken, picked) or moved face-up into another grid by Swap with a player; not at the final reveal.
* Extra turns (Double move 2, Defense 1, Thief 1) follow the current turn at once. A close ends the
  mover's remaining extra turns (the mover, if not the closer, still gets its one more turn); extra
  turns taken during the final turns belong to that seat's final turn.
* A blocked Thief steals nothing but its player still gets the extra turn (Defense cancels only the
  effect on the target). Reactivation cannot pick another Reactivation. Reactivation goes onto the
  action discard pile as it is played; the reactivated card follows it once resolved.
* Draw three: the kept card is swapped as in C7; the cards not kept go onto the game discard pile,
  then the swapped-out card (on top).
* A grid may close "by any means": if a seat other than the mover is left without face-down cards
  at the end of a turn, that seat is the closer and every other seat (the mover included) gets one
  more turn.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from .. import cards
from ..errors import IllegalMove, OptionError, RecordError, StateError
from ..game import (
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
    Game,
    Pending,
)
from ..moves import CELL_NAMES, COLUMN_NAMES, DRAW, FLIP, MOVE_BY_CODE, REVEAL, SWAP, TAKE, Move
from ..options import validate_options
from . import moves as am
from .moves import ActionMove, parse_action_move
from .rules import (
    ACTION_KINDS,
    ACTION_TITLES,
    ATTACKS,
    DEFENSE,
    DOUBLE_MOVE,
    DRAW_THREE,
    HELD_CARD_PENALTY,
    INSIGHT,
    METEOR,
    REACTIVATION,
    ROW_SIZE,
    STAR,
    STAR_COLUMN_BONUS,
    STAR_ROW_BONUS,
    SWAP_OWN,
    SWAP_PLAYER,
    THIEF,
    action_counts,
    action_deck_list,
    game_counts,
    points,
)

MAIN, RESOLVE, SETS = "main", "resolve", "sets"
STAGE_THREE = 3
ACTION_STAGE_KINDS = ("turn", "place_drawn", "place_taken", "pick_three")
QUEUE_KINDS = ("star_trigger", "star_set", "defend", "meteor")
ATTACK_ENTRIES = frozenset({"defend", "meteor"})

COLUMNS = tuple((c, c + 4, c + 8) for c in range(4))
ROWS = tuple(tuple(range(4 * r, 4 * r + 4)) for r in range(3))

EXTRA_FIELDS = ("adeck", "arow", "adiscard", "hands", "fresh", "in_play", "extra_turns", "queue", "step",
                "three", "known", "banked", "kept", "removed_sets", "action_reshuffles")


def line_cells(line: str, index: int) -> tuple[int, ...]:
    return COLUMNS[index] if line == "column" else ROWS[index]


def line_label(line: str, index: int) -> str:
    return f"column {COLUMN_NAMES[index]}" if line == "column" else f"row {index + 1}"


def _title(card: str) -> str:
    return ACTION_TITLES.get(card, card)


class ActionGame(Game):
    """The authoritative state of one SKYJO Action game. See the module docstring."""

    variant = "action"

    # ------------------------------------------------------------------ data hooks
    @property
    def deck_counts(self) -> dict[Any, int]:  # type: ignore[override]
        return game_counts(self.options)

    def card_json(self, value: Any) -> Any:
        return value  # numbers stay ints, a star is already the string "star"

    def extra_cards(self) -> list[Any]:
        return list(self.three)

    def extra_json(self, *, copy: bool = True) -> dict[str, Any]:
        from ..state import clone

        extra = {name: getattr(self, name) for name in EXTRA_FIELDS}
        return clone(extra) if copy else extra

    def load_extra_json(self, data: dict[str, Any], *, copy: bool = True) -> None:
        from ..state import clone

        extra = {name: data[name] for name in EXTRA_FIELDS}
        if copy:
            extra = clone(extra)
        for name in EXTRA_FIELDS:
            setattr(self, name, extra[name])
        n = len(self.names)
        opts = validate_options(self.variant, self.options)
        try:
            if len(self.arow) != ROW_SIZE or len(self.hands) != n or len(self.known) != n:
                raise StateError("the action row, held cards or knowledge are malformed")
            if len(self.banked) != n or len(self.kept) != n:
                raise StateError("the star bonuses are malformed")
            every = list(self.adeck) + [c for c in self.arow if c is not None] + list(self.adiscard)
            every += list(self.in_play) + [c for h in self.hands for c in h]
            if any(c not in ACTION_KINDS for c in every):
                raise StateError("unknown action card in the saved state")
            if Counter(every) != Counter(action_counts(opts)):
                raise StateError("the action cards in play are not exactly one action deck")
            if self.step not in (MAIN, RESOLVE, SETS):
                raise StateError(f"unknown turn step {self.step!r}")
            for e in self.queue:
                if e.get("kind") not in QUEUE_KINDS or not 0 <= e.get("seat", -1) < n:
                    raise StateError("malformed pending decision in the saved state")
            if self.three and not (self.phase == PLAY and self.stage == STAGE_THREE):
                raise StateError("draw-three cards outside a pick")
            if Counter(self.fresh) - Counter(self.hands[self.turn] if 0 <= self.turn < n else []):
                raise StateError("cards taken this turn are not held")
        except (TypeError, AttributeError, IndexError):
            raise StateError("the SKYJO Action part of the saved state is malformed") from None

    # ------------------------------------------------------------------ rounds
    def _start_round(self, active: list[int], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        size = sum(self.deck_counts.values())
        if size < 12 * len(active) + 1:
            raise OptionError(f"a game deck of {size} cards cannot deal to {len(active)} players")
        super()._start_round(active, events)
        self._setup_action()
        return events

    def _setup_action(self) -> None:
        """A2: the action row of four and the action discard pile; fresh per-round state."""
        n = self.n
        counts = action_counts(self.options)
        spec = self.round_specs[self.round - 1]
        if "deal" in spec:
            deal = spec["deal"]
            try:
                row = list(deal["action_row"])
                first = deal["action_discard"]
                rest_top_first = list(deal["action_deck"])
            except (KeyError, TypeError):
                raise RecordError("an explicit SKYJO Action deal also needs action_row, action_discard and "
                                  "action_deck") from None
            if len(row) != ROW_SIZE:
                raise RecordError(f"the action row has {ROW_SIZE} cards")
            dealt = row + [first] + rest_top_first
            if any(c not in ACTION_KINDS for c in dealt) or Counter(dealt) != Counter(counts):
                raise RecordError("the deal does not use exactly the action deck")
            deck = rest_top_first[::-1]
        else:
            full = action_deck_list(counts)
            cards.shuffle(full, cards.derive(self._round_seed(), "action"))
            row, first, deck = full[:ROW_SIZE], full[ROW_SIZE], full[ROW_SIZE + 1 :][::-1]
        self.arow: list[str | None] = list(row)
        self.adiscard: list[str] = [first]
        self.adeck: list[str] = deck
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.fresh: list[str] = []
        self.in_play: list[str] = []
        self.extra_turns = 0
        self.queue: list[dict[str, Any]] = []
        self.step = MAIN
        self.three: list[Any] = []
        self.known: list[list[list[Any]]] = [[] for _ in range(n)]
        self.banked = [0] * n
        self.kept: list[list[list[Any]]] = [[] for _ in range(n)]
        self.removed_sets: list[list[Any]] = []
        self.action_reshuffles = 0

    def _card_from_json(self, c: Any) -> Any:
        if c == STAR:
            return STAR
        if isinstance(c, bool) or not isinstance(c, int) or not -2 <= c <= 12:
            raise RecordError(f"{c!r} is not a card (-2 to 12 or star)")
        return c

    def _visible_sum(self, seat: int) -> int:
        f = self.face[seat]
        v = self.vals[seat]
        return sum(points(v[c]) for c in range(12) if f[c] == UP)

    def _resolve_start(self, candidates: list[int], events: list[dict[str, Any]]) -> None:
        """A3: highest sum of revealed cards; tie: highest single card; then the earliest seat."""
        sums = {s: self._visible_sum(s) for s in candidates}
        best = max(sums.values())
        tied = [s for s in candidates if sums[s] == best]
        if len(tied) == 1:
            self._begin_play(tied[0], "highest_reveal", events)
            return
        high = {s: max((points(self.vals[s][c]) for c in range(12) if self.face[s][c] == UP), default=-99)
                for s in tied}
        top = max(high.values())
        firsts = [s for s in tied if high[s] == top]
        self._begin_play(firsts[0], "highest_card" if len(firsts) == 1 else "earliest_seat", events)

    def _begin_play(self, seat: int, reason: str, events: list[dict[str, Any]]) -> None:
        super()._begin_play(seat, reason, events)
        self.step = MAIN
        self.fresh = []
        self.extra_turns = 0

    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.stage = STAGE_TURN
        self.step = MAIN
        self.fresh = []

    # ------------------------------------------------------------------ names in move texts
    def who(self, seat: int) -> str:
        """How move texts name a seat: the name when it parses back unambiguously, else `seat N`."""
        cache = self.__dict__.setdefault("_who_cache", {})
        if seat not in cache:
            cache[seat] = self._who(seat)
        return cache[seat]

    def _who(self, seat: int) -> str:
        name = self.names[seat]
        low = name.lower()
        toks = low.split()
        if (toks and toks[0] not in am.RESERVED and not toks[0][0].isdigit() and not toks[0].startswith("#")
                and toks[0].upper() not in CELL_NAMES and toks[-1].upper() not in CELL_NAMES
                and sum(1 for other in self.names if other.lower() == low) == 1
                and not any(other.lower().startswith(low + " ") for other in self.names)):
            return name
        return f"seat {seat}"

    def parse_move(self, text: str) -> Move | ActionMove:  # type: ignore[override]
        return parse_action_move(text, self.names)

    def bind(self, seat: int, move: Move | ActionMove) -> Move | ActionMove:
        """The move as `seat` makes it and as the record will show it: `me` becomes that seat, and
        targets are written by name (or `seat N` when a name would not parse back)."""
        if not isinstance(move, ActionMove) or move.target is None:
            return move
        target = seat if move.target == am.SELF else move.target
        if not 0 <= target < self.n:
            raise IllegalMove(f"there is no seat {target} in this game")
        return dataclasses.replace(move, target=target, who=self.who(target))

    # ------------------------------------------------------------------ pending decisions
    def _visible_queue(self) -> list[dict[str, Any]]:
        """The queued decisions owed now (one per seat in the opening; a meteor batch; else the head)."""
        q = self.queue
        if not q:
            return []
        if self.phase == OPENING:
            seen: set[int] = set()
            out = []
            for e in q:
                if e["seat"] not in seen:
                    seen.add(e["seat"])
                    out.append(e)
            return out
        head = q[0]
        if head.get("batch") is not None:
            return [e for e in q if e.get("batch") == head["batch"]]
        return [head]

    def pending(self) -> list[Pending]:
        phase = self.phase
        if phase == PLAY:
            if self.queue:
                return [Pending(e["seat"], e["kind"]) for e in self._visible_queue()]
            return [Pending(self.turn, ACTION_STAGE_KINDS[self.stage])]
        if phase == OPENING:
            owed = {e["seat"]: e["kind"] for e in self._visible_queue()}
            rev = self.revealed
            for s in self.active:
                if s not in owed and rev[s] < OPENING_REVEALS:
                    owed[s] = "reveal"
            return [Pending(s, owed[s]) for s in sorted(owed)]
        return []

    def _entry_for(self, seat: int) -> dict[str, Any] | None:
        for e in self._visible_queue():
            if e["seat"] == seat:
                return e
        return None

    def legal_codes(self, seat: int) -> list[int]:
        raise NotImplementedError("SKYJO Action moves are objects: use legal_moves")

    def legal_moves(self, seat: int) -> list[Move | ActionMove]:  # type: ignore[override]
        if not isinstance(seat, int) or not 0 <= seat < self.n or self.phase == OVER:
            return []
        entry = self._entry_for(seat)
        if entry is not None:
            return self._entry_moves(seat, entry)
        if self.phase == OPENING:
            if seat in self.active and self.revealed[seat] < OPENING_REVEALS:
                f = self.face[seat]
                return [MOVE_BY_CODE[REVEAL << 4 | c] for c in range(12) if f[c] == DOWN]
            return []
        if self.phase != PLAY or self.queue or seat != self.turn:
            return []
        f = self.face[seat]
        stage = self.stage
        if stage == STAGE_TURN:
            return self._turn_moves(seat)
        if stage == STAGE_THREE:
            out: list[Move | ActionMove] = [ActionMove(am.PICK, cells=(c,), index=i)
                                            for i in range(len(self.three)) for c in range(12) if f[c] != GONE]
            out.append(ActionMove(am.PICK_NONE))
            return out
        out2: list[Move | ActionMove] = [MOVE_BY_CODE[SWAP << 4 | c] for c in range(12) if f[c] != GONE]
        if stage == STAGE_DRAWN:
            out2.extend(MOVE_BY_CODE[FLIP << 4 | c] for c in range(12) if f[c] == DOWN)
        return out2

    def _take_moves(self) -> list[ActionMove]:
        out = [ActionMove(am.ACTION_ROW, index=i) for i in range(ROW_SIZE) if self.arow[i] is not None]
        if self.adeck or self.adiscard:
            out.append(ActionMove(am.ACTION_DECK))
        return out

    def _entry_moves(self, seat: int, e: dict[str, Any]) -> list[Move | ActionMove]:
        kind = e["kind"]
        if kind == "star_trigger":
            return [*self._take_moves(), ActionMove(am.DECLINE)]
        if kind == "star_set":
            return [ActionMove(am.KEEP), ActionMove(am.REMOVE)]
        if kind == "defend":
            return [ActionMove(am.BLOCK), ActionMove(am.ALLOW)]
        f = self.face[seat]  # meteor
        out: list[Move | ActionMove] = [ActionMove(am.METEOR_CELL, cells=(c,)) for c in range(12) if f[c] != GONE]
        if DEFENSE in self.hands[seat]:
            out.append(ActionMove(am.BLOCK))
        return out

    def playable(self, seat: int) -> list[str]:
        """The kinds of action card `seat` may play or discard now: held since before this turn (A4 c)."""
        if seat != self.turn:
            return []
        left = Counter(self.hands[seat]) - Counter(self.fresh)
        return [k for k in ACTION_KINDS if left[k] > 0]

    def _has_grid(self, seat: int) -> bool:
        return any(x != GONE for x in self.face[seat])

    def turn_families(self, seat: int) -> list[tuple[tuple[Any, ...], Any]]:
        """The turn seat's moves (A4) grouped by family - (key, function returning that family's
        moves) - so a caller can pick a family before building hundreds of targeted moves."""
        fams: list[tuple[tuple[Any, ...], Any]] = []
        if self._has_grid(seat):
            if self.draw or len(self.discard) > 1:
                fams.append((("draw",), lambda: [MOVE_BY_CODE[DRAW << 4]]))
            if self.discard:
                fams.append((("take",), lambda: [MOVE_BY_CODE[TAKE << 4]]))
        if any(c is not None for c in self.arow) or self.adeck or self.adiscard:
            fams.append(((am.ACTION_ROW,), self._take_moves))
        kinds = self.playable(seat)
        for k in kinds:
            if k != REACTIVATION:
                fams.append(((am.PLAY, k, False), lambda k=k: self._card_moves(seat, k, False)))
            else:
                for inner in ACTION_KINDS:
                    if inner != REACTIVATION and inner in self.adiscard:
                        fams.append(((am.PLAY, inner, True), lambda inner=inner: self._card_moves(seat, inner, True)))
        if kinds:
            fams.append(((am.DISCARD_ACTION,), lambda: [ActionMove(am.DISCARD_ACTION, k) for k in kinds]))
        return fams

    def _turn_moves(self, seat: int) -> list[Move | ActionMove]:
        out: list[Move | ActionMove] = []
        for _, build in self.turn_families(seat):
            out.extend(build())
        if not out:
            out.append(ActionMove(am.PASS))
        return out

    def _card_moves(self, seat: int, card: str, via: bool) -> list[ActionMove]:
        """Every way to play `card` now (targets included)."""
        f = self.face[seat]
        mine = [c for c in range(12) if f[c] != GONE]
        if card == SWAP_OWN:
            return [ActionMove(am.PLAY, card, (a, b), via=via) for i, a in enumerate(mine) for b in mine[i + 1 :]]
        if card == INSIGHT:
            out = []
            for t in self.active:
                ft = self.face[t]
                for line, count in (("row", 3), ("column", 4)):
                    for i in range(count):
                        if any(ft[c] == DOWN for c in line_cells(line, i)):
                            out.append(ActionMove(am.PLAY, card, target=t, line=line, index=i, via=via,
                                                  who=self.who(t)))
            return out
        if card == SWAP_PLAYER:
            out = []
            for t in self.active:
                if t == seat:
                    continue
                theirs = [c for c in range(12) if self.face[t][c] != GONE]
                who = self.who(t)
                out.extend(ActionMove(am.PLAY, card, (a, b), target=t, via=via, who=who) for a in mine for b in theirs)
            return out
        if card == THIEF:
            out = []
            for t in range(self.n):
                if t != seat:
                    held = set(self.hands[t])
                    out.extend(ActionMove(am.PLAY, card, target=t, steal=k, via=via, who=self.who(t))
                               for k in ACTION_KINDS if k in held)
            return out
        if card == DRAW_THREE and not (self.draw or len(self.discard) > 1):
            return []
        return [ActionMove(am.PLAY, card, via=via)]

    # ------------------------------------------------------------------ playing
    def play(self, seat: int, move: Move | ActionMove | str | int) -> list[dict[str, Any]]:  # type: ignore[override]
        if isinstance(move, str):
            move = self.parse_move(move)
        elif isinstance(move, int):
            move = MOVE_BY_CODE[move]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise IllegalMove(f"there is no seat {seat} in this game")
        if isinstance(move, ActionMove):
            move = self.bind(seat, move)  # type: ignore[assignment]
        elif not isinstance(move, Move):
            raise IllegalMove("that is not a move")
        events: list[dict[str, Any]] = []
        self._dispatch(seat, move, events)
        self.moves.append(f"{seat}: {move.text()}")
        self.version += 1
        self.log.extend(events)
        return events

    def play_code(self, seat: int, code: int) -> list[dict[str, Any]]:
        return self.play(seat, MOVE_BY_CODE[code])

    def _owed_text(self, e: dict[str, Any]) -> str:
        who = self.names[e["seat"]]
        kind = e["kind"]
        if kind == "star_trigger":
            return f"{who} to take an action card for the star (action row 1-4, action deck) or decline"
        if kind == "star_set":
            return f"{who} to keep or remove the star set in {e['set'][0]} {self._set_label(e['set'])}"
        if kind == "defend":
            return f"{who} to block or allow the {_title(e['card'])}"
        return f"{who} to choose a card for the meteor shower (meteor B2)"

    def _set_label(self, sid: list[Any]) -> str:
        return COLUMN_NAMES[sid[1]] if sid[0] == "column" else str(sid[1] + 1)

    def _dispatch(self, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalMove("the game is over")
        entry = self._entry_for(seat)
        if entry is not None:
            self._answer(seat, entry, move, events)
        elif phase == OPENING:
            if seat not in self.active:
                raise IllegalMove("you are not playing in this round")
            if self.revealed[seat] >= OPENING_REVEALS:
                raise IllegalMove("you have revealed your two cards; wait for the others")
            if not (isinstance(move, Move) and move.kind == "reveal"):
                raise IllegalMove("first reveal your cards: say reveal and a cell, like reveal B2")
            cell = move.cell
            f = self.face[seat]
            if f[cell] != DOWN:  # type: ignore[index]
                raise IllegalMove(f"{CELL_NAMES[cell]} is already face-up")  # type: ignore[index]
            self._turn_up(seat, cell, events, "reveal")  # type: ignore[arg-type]
            self.revealed[seat] += 1
        else:
            if self.queue:
                waiting = "; ".join(self._owed_text(e) for e in self._visible_queue())
                raise IllegalMove(f"waiting for {waiting}")
            if seat != self.turn:
                raise IllegalMove(f"it is {self.names[self.turn]}'s turn, not yours")
            self._turn_move(seat, move, events)
        self._continue(events)

    # -- grid changes ----------------------------------------------------
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

    def _turn_up(self, seat: int, cell: int, events: list[dict[str, Any]], kind: str,
                 discarded: Any = None) -> None:
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

    def _draw_card(self, events: list[dict[str, Any]]) -> Any:
        if not self.draw:
            self._reshuffle(events)  # C11 / A10
        return self.draw.pop() if self.draw else None

    def _adraw(self, events: list[dict[str, Any]]) -> str | None:
        """The action deck's top; A10: an empty action deck is the whole action discard pile, shuffled."""
        if not self.adeck and self.adiscard:
            pile = self.adiscard
            self.adiscard = []
            self.action_reshuffles += 1
            cards.shuffle(pile, cards.derive(self._round_seed(), f"action-reshuffle-{self.action_reshuffles}"))
            self.adeck = pile
            events.append({"type": "action_reshuffle", "count": len(pile)})
        return self.adeck.pop() if self.adeck else None

    def _take_action(self, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
        if move.kind == am.ACTION_ROW:
            i = move.index
            card = self.arow[i]  # type: ignore[index]
            if card is None:
                raise IllegalMove(f"place {i + 1} of the action row is empty")  # type: ignore[operator]
            self.arow[i] = None  # type: ignore[index]
            self.arow[i] = self._adraw(events)  # type: ignore[index]
            source = f"row {i + 1}"  # type: ignore[operator]
        else:
            if not (self.adeck or self.adiscard):
                raise IllegalMove("the action deck and its discard pile are empty")
            card = self._adraw(events)
            source = "deck"
        self.hands[seat].append(card)  # type: ignore[arg-type]
        if self.phase == PLAY and seat == self.turn:
            self.fresh.append(card)  # type: ignore[arg-type]
        events.append({"type": "take_action", "seat": seat, "card": card, "source": source})

    # -- the turn seat's moves -------------------------------------------
    def _turn_move(self, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
        stage = self.stage
        if stage == STAGE_THREE:
            if not isinstance(move, ActionMove) or move.kind not in (am.PICK, am.PICK_NONE):
                raise IllegalMove("choose one of the three cards: pick 1-3 and a cell (pick 2 C3), or pick none")
            self._pick(seat, move, events)
            return
        if stage in (STAGE_DRAWN, STAGE_TAKEN):
            if not isinstance(move, Move) or move.kind not in ("swap", "flip"):
                raise IllegalMove("you have a card in hand: swap it into your grid"
                                  + (" or discard it and flip a card" if stage == STAGE_DRAWN else ""))
            self._place(seat, move, events)
            return
        if isinstance(move, Move):
            kind = move.kind
            if kind == "reveal":
                raise IllegalMove("the opening is over: draw, take, take an action card or play one")
            if kind in ("swap", "flip"):
                raise IllegalMove("first draw from the draw pile or take the discard top")
            if not self._has_grid(seat):
                raise IllegalMove("you have no grid cards left: take or play an action card, or pass")
            if kind == "draw":
                card = self._draw_card(events)
                if card is None:
                    raise IllegalMove("the draw pile is empty; take the discard top")
                self.held = card
                self.stage = STAGE_DRAWN
                events.append({"type": "draw", "seat": seat})
            else:
                if not self.discard:
                    raise IllegalMove("the discard pile is empty")
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
                raise IllegalMove(self._not_playable(seat, move.card))  # type: ignore[arg-type]
            self.hands[seat].remove(move.card)  # type: ignore[arg-type]
            self.adiscard.append(move.card)  # type: ignore[arg-type]
            events.append({"type": "discard_action", "seat": seat, "card": move.card})
            self.step = RESOLVE
        elif kind == am.PASS:
            if any(m.kind != am.PASS for m in self._turn_moves(seat)):
                raise IllegalMove("you may pass only when you have no other move")
            events.append({"type": "pass", "seat": seat})
            self.step = RESOLVE
        elif kind in (am.PICK, am.PICK_NONE):
            raise IllegalMove("there are no drawn three cards to pick from")
        else:
            raise IllegalMove(f"nobody asked you to {move.text()}: it is your turn - draw, take, "
                              "take an action card (action row 2, action deck) or play one")

    def _not_playable(self, seat: int, card: str) -> str:
        if card not in self.hands[seat]:
            return f"you hold no {_title(card)} card"
        return f"you took that {_title(card)} this turn; play it on a later turn"

    def _place(self, seat: int, move: Move, events: list[dict[str, Any]]) -> None:
        cell = move.cell
        f = self.face[seat]
        stage = self.stage
        held = self.held
        if move.kind == "swap":
            if f[cell] == GONE:  # type: ignore[index]
                raise IllegalMove(f"{CELL_NAMES[cell]} has been removed")  # type: ignore[index]
            old = self._put(seat, cell, held)  # type: ignore[arg-type]
            self.discard.append(old)
            events.append({"type": "swap", "seat": seat, "cell": CELL_NAMES[cell], "value": held,  # type: ignore[index]
                           "discarded": old, "from": "draw" if stage == STAGE_DRAWN else "discard"})
            if held == STAR:
                self._star_trigger(seat, events)
        else:
            if stage == STAGE_TAKEN:
                raise IllegalMove("you must place the card you took from the discard pile: swap it")
            if f[cell] != DOWN:  # type: ignore[index]
                raise IllegalMove(f"{CELL_NAMES[cell]} is already face-up"  # type: ignore[index]
                                  if f[cell] == UP else f"{CELL_NAMES[cell]} has been removed")  # type: ignore[index]
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
            events.append({"type": "pick", "seat": seat, "cell": None, "value": None, "discarded": list(three)})
        else:
            i = move.index
            if not 0 <= i < len(three):  # type: ignore[operator]
                raise IllegalMove(f"you drew {len(three)} cards: pick 1-{len(three)}")
            cell = move.cells[0]
            if self.face[seat][cell] == GONE:
                raise IllegalMove(f"{CELL_NAMES[cell]} has been removed")
            card = three[i]  # type: ignore[index]
            rest = three[:i] + three[i + 1 :]  # type: ignore[operator]
            old = self._put(seat, cell, card)
            self.discard.extend(rest)
            self.discard.append(old)
            events.append({"type": "pick", "seat": seat, "cell": CELL_NAMES[cell], "value": card,
                           "discarded": [*rest, old]})
            if card == STAR:
                self._star_trigger(seat, events)
        self.three = []
        self.stage = STAGE_TURN
        self.step = RESOLVE

    # -- action cards (A9) -------------------------------------------------
    def _check_targets(self, seat: int, move: ActionMove) -> None:
        card = move.card
        f = self.face[seat]
        if card == SWAP_OWN:
            a, b = move.cells
            if a == b:
                raise IllegalMove("swap-own needs two different cells")
            for c in (a, b):
                if f[c] == GONE:
                    raise IllegalMove(f"{CELL_NAMES[c]} has been removed")
        elif card == INSIGHT:
            t = move.target
            if t not in self.active:
                raise IllegalMove(f"{self.names[t]} is not playing this round")  # type: ignore[index]
            cells = line_cells(move.line, move.index)  # type: ignore[arg-type]
            if not any(self.face[t][c] == DOWN for c in cells):  # type: ignore[index]
                raise IllegalMove(f"{line_label(move.line, move.index)} of {self.names[t]}'s grid has no "  # type: ignore[arg-type,index]
                                  "face-down card")
        elif card == SWAP_PLAYER:
            t = move.target
            if t == seat:
                raise IllegalMove("swap with a player needs another player; for your own grid use swap-own")
            if t not in self.active:
                raise IllegalMove(f"{self.names[t]} is not playing this round")  # type: ignore[index]
            a, b = move.cells
            if f[a] == GONE:
                raise IllegalMove(f"your {CELL_NAMES[a]} has been removed")
            if self.face[t][b] == GONE:  # type: ignore[index]
                raise IllegalMove(f"{self.names[t]}'s {CELL_NAMES[b]} has been removed")  # type: ignore[index]
        elif card == THIEF:
            t = move.target
            if t == seat:
                raise IllegalMove("the thief steals from another player")
            if move.steal not in self.hands[t]:  # type: ignore[index]
                raise IllegalMove(f"{self.names[t]} holds no {_title(move.steal)} card")  # type: ignore[arg-type,index]
        elif card == DRAW_THREE:
            if not (self.draw or len(self.discard) > 1):
                raise IllegalMove("there are no cards to draw")

    def _play_card(self, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
        card: str = move.card  # type: ignore[assignment]
        playable = self.playable(seat)
        if move.via:
            if REACTIVATION not in playable:
                raise IllegalMove(self._not_playable(seat, REACTIVATION))
            if card not in self.adiscard:
                raise IllegalMove(f"there is no {_title(card)} on the action discard pile")
        elif card not in playable:
            raise IllegalMove(self._not_playable(seat, card))
        elif card == REACTIVATION:
            raise IllegalMove("say which card to reactivate, like: play reactivation swap-own A1 C3")
        self._check_targets(seat, move)
        ev: dict[str, Any] = {"type": "play_action", "seat": seat, "card": card, "via": move.via,
                              "move": move.text()}
        if move.via:
            self.hands[seat].remove(REACTIVATION)
            pile = self.adiscard
            del pile[len(pile) - 1 - pile[::-1].index(card)]
            pile.append(REACTIVATION)
        else:
            self.hands[seat].remove(card)
        events.append(ev)
        self.step = RESOLVE
        if card in ATTACKS:
            self.in_play.append(card)
        else:
            self.adiscard.append(card)
        if card == SWAP_OWN:
            a, b = move.cells
            v, f = self.vals[seat], self.face[seat]
            v[a], v[b] = v[b], v[a]
            f[a], f[b] = f[b], f[a]
            self._forget(seat, a)
            self._forget(seat, b)
        elif card == DOUBLE_MOVE:
            self.extra_turns += 2
        elif card == DEFENSE:
            self.extra_turns += 1
        elif card == DRAW_THREE:
            three = []
            for _ in range(3):
                c = self._draw_card(events)
                if c is None:
                    break
                three.append(c)
            self.three = three
            self.stage = STAGE_THREE
            self.step = MAIN
            events.append({"type": "draw_three", "seat": seat, "count": len(three)})
        elif card == INSIGHT:
            t: int = move.target  # type: ignore[assignment]
            mine = self.known[seat]
            for c in line_cells(move.line, move.index):  # type: ignore[arg-type]
                if self.face[t][c] == DOWN and not any(k[0] == t and k[1] == c for k in mine):
                    mine.append([t, c, self.vals[t][c]])
        elif card == SWAP_PLAYER or card == THIEF:
            t = move.target  # type: ignore[assignment]
            if card == THIEF:
                self.extra_turns += 1
            entry = {"kind": "defend", "seat": t, "attacker": seat, "card": card, "cells": list(move.cells),
                     "steal": move.steal}
            if DEFENSE in self.hands[t]:
                self.queue.append(entry)
            else:
                self._resolve_attack(entry, events)
        elif card == METEOR:
            targets = [s for s in self.active if s != seat and self._has_grid(s)]
            events.append({"type": "meteor_shower", "seat": seat, "targets": targets})
            for s in targets:
                self.queue.append({"kind": "meteor", "seat": s, "attacker": seat, "batch": self.version})

    def _resolve_attack(self, e: dict[str, Any], events: list[dict[str, Any]]) -> None:
        seat, t = e["attacker"], e["seat"]
        if e["card"] == THIEF:
            steal = e["steal"]
            self.hands[t].remove(steal)
            self.hands[seat].append(steal)
            if seat == self.turn:
                self.fresh.append(steal)
            events.append({"type": "steal", "seat": seat, "target": t, "card": steal})
            return
        a, b = e["cells"]
        mv, mf = self.vals[seat], self.face[seat]
        tv, tf = self.vals[t], self.face[t]
        mine, theirs = mv[a], tv[b]
        mine_face, their_face = mf[a], tf[b]
        mv[a], tv[b] = theirs, mine
        mf[a], tf[b] = their_face, mine_face
        self.down[seat] += (their_face == DOWN) - (mine_face == DOWN)
        self.down[t] += (mine_face == DOWN) - (their_face == DOWN)
        self._forget(seat, a)
        self._forget(t, b)
        events.append({"type": "swap_player", "seat": seat, "target": t, "cell": CELL_NAMES[a],
                       "target_cell": CELL_NAMES[b],
                       "gave": mine if mine_face == UP else None, "got": theirs if their_face == UP else None})
        if theirs == STAR and their_face == UP:
            self._star_trigger(seat, events)
        if mine == STAR and mine_face == UP:
            self._star_trigger(t, events)

    # -- answers to queued decisions ---------------------------------------
    def _answer(self, seat: int, e: dict[str, Any], move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
        kind = e["kind"]
        mk = move.kind if isinstance(move, ActionMove) else None
        if kind == "star_trigger":
            if mk in (am.ACTION_ROW, am.ACTION_DECK):
                self._take_action(seat, move, events)  # type: ignore[arg-type]
            elif mk in (am.DECLINE, am.PASS):
                events.append({"type": "decline", "seat": seat})
            else:
                raise IllegalMove("you turned up a star: take an action card (action row 1-4, action deck) "
                                  "or decline")
        elif kind == "star_set":
            sid = e["set"]
            label = f"{sid[0]} {self._set_label(sid)}"
            bonus = STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
            if mk == am.KEEP:
                self.kept[seat].append(list(sid))
                events.append({"type": "keep_star_set", "seat": seat, "set": label, "bonus": bonus})
            elif mk == am.REMOVE:
                cells_ = line_cells(sid[0], sid[1])
                for c in cells_:
                    self.face[seat][c] = GONE
                    self.discard.append(self.vals[seat][c])
                    self._forget(seat, c)
                self.banked[seat] += bonus
                self.removed_sets.append([seat, label, STAR])
                if sid[0] == "column":
                    self.removed_cols.append([seat, COLUMN_NAMES[sid[1]]])
                events.append({"type": "remove_star_set", "seat": seat, "set": label, "bonus": bonus})
                self.queue.remove(e)
                self.kept[seat] = [k for k in self.kept[seat] if self._whole_star_set(seat, k)]
                # an overlapping star set that lost a card to this one is no longer whole
                self.queue = [q for q in self.queue
                              if q["kind"] != "star_set" or self._whole_star_set(q["seat"], q["set"])]
                return
            else:
                raise IllegalMove(f"your star set in {label} is complete: keep it or remove it")
        elif kind == "defend":
            if mk == am.BLOCK:
                self._block(seat, e, events)
                return
            if mk == am.ALLOW:
                events.append({"type": "allow", "seat": seat, "attacker": e["attacker"], "card": e["card"]})
                self.queue.remove(e)
                self._resolve_attack(e, events)
                return
            else:
                raise IllegalMove(f"{self.names[e['attacker']]} attacks you with {_title(e['card'])}: "
                                  "say block (discarding your Defense) or allow")
        else:  # meteor
            if mk == am.BLOCK:
                self._block(seat, e, events)
                return
            if mk != am.METEOR_CELL:
                raise IllegalMove("a meteor shower: choose one of your grid cards to replace, like meteor B2"
                                  + (", or block" if DEFENSE in self.hands[seat] else ""))
            c = move.cells[0]  # type: ignore[union-attr]
            f = self.face[seat]
            if f[c] == GONE:
                raise IllegalMove(f"{CELL_NAMES[c]} has been removed")
            old = self.vals[seat][c]
            self.queue.remove(e)
            self.discard.append(old)
            new = self._draw_card(events)
            if new is None:  # pragma: no cover - a 120-card deck never runs dry
                self.discard.pop()
                new = old
            self.vals[seat][c] = new
            if f[c] == UP:
                f[c] = DOWN
                self.down[seat] += 1
            self._forget(seat, c)
            events.append({"type": "meteor_hit", "seat": seat, "cell": CELL_NAMES[c], "discarded": old})
            return
        self.queue.remove(e)

    def _block(self, seat: int, e: dict[str, Any], events: list[dict[str, Any]]) -> None:
        if DEFENSE not in self.hands[seat]:
            raise IllegalMove("you hold no Defense card to block with")
        self.hands[seat].remove(DEFENSE)
        self.adiscard.append(DEFENSE)
        self.queue.remove(e)
        events.append({"type": "block", "seat": seat, "attacker": e["attacker"], "card": e.get("card", METEOR)})

    # ------------------------------------------------------------------ end of turn
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
            if f[i] == UP and f[i + 1] == UP and f[i + 2] == UP and f[i + 3] == UP \
                    and v[i] == v[i + 1] == v[i + 2] == v[i + 3]:
                if v[i] == STAR:
                    stars.append(["row", i >> 2])
                else:
                    numbers.append(("row", i >> 2, v[i]))
        return numbers, stars

    def _remove_number_sets(self, seat: int, numbers: list[tuple[str, int, Any]],
                            events: list[dict[str, Any]]) -> None:
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
        order = self.active[self.active.index(self.turn):] + self.active[: self.active.index(self.turn)]
        for s in order:
            self.kept[s] = [k for k in self.kept[s] if self._whole_star_set(s, k)]
            numbers, stars = self._find_sets(s)
            if numbers:
                self._remove_number_sets(s, numbers, events)
            for sid in stars:
                if sid not in self.kept[s]:
                    bonus = STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
                    self.queue.append({"kind": "star_set", "seat": s, "set": sid})
                    events.append({"type": "star_set", "seat": s, "set": line_label(sid[0], sid[1]),
                                   "bonus": bonus})

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
        scores = list(raw)
        closer = self.closer
        doubled: list[int] = []
        if opts["doubling"] and closer >= 0:
            mine = raw[closer]
            others = [raw[s] for s in self.active if s != closer]
            strict = opts["doubling_tie"] == "strict"
            beaten = any(o <= mine for o in others) if strict else any(o < mine for o in others)  # type: ignore[operator]
            if beaten and not (opts["doubling_positive_only"] and mine <= 0):  # type: ignore[operator]
                scores[closer] = mine * 2  # type: ignore[operator]
                doubled.append(closer)
        for s in self.active:
            self.totals[s] += scores[s]  # type: ignore[operator]
        result = {"round": self.round, "closer": closer if closer >= 0 else None, "raw": raw,
                  "scores": scores, "doubled": doubled, "removed_columns": self.removed_cols,
                  "removed_sets": self.removed_sets, "action_cards": held, "star_bonus": stars,
                  "totals": list(self.totals)}
        self.rounds.append(result)
        self.queue = []
        self.step = MAIN
        events.append({"type": "round_end", **result})
        self._after_round(events)

    def _finish(self, winners: list[int], events: list[dict[str, Any]]) -> None:
        super()._finish(winners, events)
        self.queue = []
        self.fresh = []
        self.extra_turns = 0

    # ------------------------------------------------------------------ views and bots
    def extend_view(self, data: dict[str, Any], seat: int | None) -> None:
        from .view import extend_view

        extend_view(self, data, seat)

    def bot_move(self, seat: int, bot: str, rng: Any) -> Move | ActionMove:
        from .bots import bot_move

        return bot_move(self, seat, bot, rng)
