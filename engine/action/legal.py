"""SKYJO Action: who owes what, and the legal moves (A4, A6, A7, A9), with seats named in move texts.

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame`. It owns:
* `pending()`: the turn seat's stage, or the queued decisions owed now - one per seat in the opening
  (a star revealed there triggers A7), all targets of one Meteor shower at once (A9.9), else the
  queue's head (A6 star sets, A7 star triggers, A9.6 Defense);
* `legal_moves()`: a queued decision's answers, or the turn seat's moves (A4: a game card as C7, an
  action card from the row or the deck, or a card held since before this turn played with each of
  its targets, A9, or discarded), grouped by family in `turn_families` for the bots;
* how move texts name a seat (`who`, `bind`): the name when it parses back, else `seat N`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from ..errors import IllegalMove
from ..moves import CELL_NAMES, DRAW, FLIP, MOVE_BY_CODE, REVEAL, SWAP, TAKE, Move
from ..phases import DOWN, GONE, OPENING, OPENING_REVEALS, OVER, PLAY, STAGE_DRAWN, STAGE_TURN, Pending
from . import moves as am
from .moves import ActionMove, parse_action_move
from .phases import ACTION_STAGE_KINDS, STAGE_THREE, line_cells
from .rules import (
    ACTION_KINDS,
    DEFENSE,
    DRAW_THREE,
    INSIGHT,
    REACTIVATION,
    ROW_SIZE,
    SWAP_OWN,
    SWAP_PLAYER,
    THIEF,
)
from .state import ActionState


def who(g: ActionState, seat: int) -> str:
    """How move texts name a seat: the name when it parses back unambiguously, else `seat N`."""
    cache = g.__dict__.setdefault("_who_cache", {})
    if seat not in cache:
        cache[seat] = who_text(g, seat)
    return cache[seat]


def who_text(g: ActionState, seat: int) -> str:
    name = g.names[seat]
    low = name.lower()
    toks = low.split()
    if (
        toks
        and toks[0] not in am.RESERVED
        and not toks[0][0].isdigit()
        and not toks[0].startswith("#")
        and toks[0].upper() not in CELL_NAMES
        and toks[-1].upper() not in CELL_NAMES
        and sum(1 for other in g.names if other.lower() == low) == 1
        and not any(other.lower().startswith(low + " ") for other in g.names)
    ):
        return name
    return f"seat {seat}"


def parse_move(g: ActionState, text: str) -> Move | ActionMove:
    """The move `text` says; a player it names is written as `who` says (A9.4, A9.7, A9.8), so
    `... with seat 1 A1` and `... with bo A1` both read back as `... with Bo A1`."""
    move = parse_action_move(text, g.names)
    if isinstance(move, ActionMove) and move.target is not None and 0 <= move.target < g.n:
        return dataclasses.replace(move, who=who(g, move.target))
    return move


def bind(g: ActionState, seat: int, move: Move | ActionMove) -> Move | ActionMove:
    """The move as `seat` makes it and as the record will show it: `me` becomes that seat, and
    targets are written by name (or `seat N` when a name would not parse back)."""
    if not isinstance(move, ActionMove) or move.target is None:
        return move
    target = seat if move.target == am.SELF else move.target
    if not 0 <= target < g.n:
        raise IllegalMove.of("no_such_seat", seat=target)
    return dataclasses.replace(move, target=target, who=who(g, target))


def visible_queue(g: ActionState) -> list[dict[str, Any]]:
    """The queued decisions owed now (one per seat in the opening; a meteor batch; else the head)."""
    q = g.queue
    if not q:
        return []
    if g.phase == OPENING:
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


def pending(g: ActionState) -> list[Pending]:
    phase = g.phase
    if phase == PLAY:
        if g.queue:
            return [Pending(e["seat"], e["kind"]) for e in visible_queue(g)]
        return [Pending(g.turn, ACTION_STAGE_KINDS[g.stage])]
    if phase == OPENING:
        owed = {e["seat"]: e["kind"] for e in visible_queue(g)}
        rev = g.revealed
        for s in g.active:
            if s not in owed and rev[s] < OPENING_REVEALS:
                owed[s] = "reveal"
        return [Pending(s, owed[s]) for s in sorted(owed)]
    return []


def entry_for(g: ActionState, seat: int) -> dict[str, Any] | None:
    for e in visible_queue(g):
        if e["seat"] == seat:
            return e
    return None


def legal_moves(g: ActionState, seat: int) -> list[Move | ActionMove]:
    if not isinstance(seat, int) or not 0 <= seat < g.n or g.phase == OVER:
        return []
    entry = entry_for(g, seat)
    if entry is not None:
        return entry_moves(g, seat, entry) + opening_reveals(g, seat)
    if g.phase == OPENING:
        if seat in g.active and g.revealed[seat] < OPENING_REVEALS:
            f = g.face[seat]
            return [MOVE_BY_CODE[REVEAL << 4 | c] for c in range(12) if f[c] == DOWN]
        return []
    if g.phase != PLAY or g.queue or seat != g.turn:
        return []
    f = g.face[seat]
    stage = g.stage
    if stage == STAGE_TURN:
        return turn_moves(g, seat)
    if stage == STAGE_THREE:
        out: list[Move | ActionMove] = [
            ActionMove(am.PICK, cells=(c,), index=i)
            for i in range(len(g.three))
            for c in range(12)
            if f[c] != GONE
        ]
        out.append(ActionMove(am.PICK_NONE))
        return out
    out2: list[Move | ActionMove] = [MOVE_BY_CODE[SWAP << 4 | c] for c in range(12) if f[c] != GONE]
    if stage == STAGE_DRAWN:
        out2.extend(MOVE_BY_CODE[FLIP << 4 | c] for c in range(12) if f[c] == DOWN)
    return out2


def opening_reveals(g: ActionState, seat: int) -> list[Move | ActionMove]:
    """A seat whose first opening reveal turned up a star may take its A7 action card before or
    after its second reveal (A3: the two reveals are one decision, as in C4), so both reveals
    can be sent at once whatever the first one shows."""
    if g.phase != OPENING or seat not in g.active or g.revealed[seat] >= OPENING_REVEALS:
        return []
    f = g.face[seat]
    return [MOVE_BY_CODE[REVEAL << 4 | c] for c in range(12) if f[c] == DOWN]


def take_moves(g: ActionState) -> list[ActionMove]:
    out = [ActionMove(am.ACTION_ROW, index=i) for i in range(ROW_SIZE) if g.arow[i] is not None]
    if g.adeck or g.adiscard:
        out.append(ActionMove(am.ACTION_DECK))
    return out


def entry_moves(g: ActionState, seat: int, e: dict[str, Any]) -> list[Move | ActionMove]:
    kind = e["kind"]
    if kind == "star_trigger":
        return [*take_moves(g), ActionMove(am.DECLINE)]
    if kind == "star_set":
        return [ActionMove(am.KEEP), ActionMove(am.REMOVE)]
    if kind == "defend":
        return [ActionMove(am.BLOCK), ActionMove(am.ALLOW)]
    f = g.face[seat]  # meteor
    out: list[Move | ActionMove] = [
        ActionMove(am.METEOR_CELL, cells=(c,)) for c in range(12) if f[c] != GONE
    ]
    if DEFENSE in g.hands[seat]:
        out.append(ActionMove(am.BLOCK))
    return out


def playable(g: ActionState, seat: int) -> list[str]:
    """The kinds of action card `seat` may play or discard now: held since before this turn (A4 c)."""
    if seat != g.turn:
        return []
    left = Counter(g.hands[seat]) - Counter(g.fresh)
    return [k for k in ACTION_KINDS if left[k] > 0]


def has_grid(g: ActionState, seat: int) -> bool:
    return any(x != GONE for x in g.face[seat])


def turn_families(g: ActionState, seat: int) -> list[tuple[tuple[Any, ...], Any]]:
    """The turn seat's moves (A4) grouped by family - (key, function returning that family's
    moves) - so a caller can pick a family before building hundreds of targeted moves."""
    fams: list[tuple[tuple[Any, ...], Any]] = []
    if has_grid(g, seat):
        if g.draw or len(g.discard) > 1:
            fams.append((("draw",), lambda: [MOVE_BY_CODE[DRAW << 4]]))
        if g.discard:
            fams.append((("take",), lambda: [MOVE_BY_CODE[TAKE << 4]]))
    if any(c is not None for c in g.arow) or g.adeck or g.adiscard:
        fams.append(((am.ACTION_ROW,), lambda: take_moves(g)))
    kinds = playable(g, seat)
    for k in kinds:
        if k != REACTIVATION:
            fams.append(((am.PLAY, k, False), lambda k=k: card_moves(g, seat, k, False)))
        else:
            for inner in ACTION_KINDS:
                if inner != REACTIVATION and inner in g.adiscard:
                    fams.append(
                        ((am.PLAY, inner, True), lambda inner=inner: card_moves(g, seat, inner, True))
                    )
    if kinds:
        fams.append(((am.DISCARD_ACTION,), lambda: [ActionMove(am.DISCARD_ACTION, k) for k in kinds]))
    return fams


def turn_moves(g: ActionState, seat: int) -> list[Move | ActionMove]:
    out: list[Move | ActionMove] = []
    for _, build in turn_families(g, seat):
        out.extend(build())
    if not out:
        out.append(ActionMove(am.PASS))
    return out


def card_moves(g: ActionState, seat: int, card: str, via: bool) -> list[ActionMove]:
    """Every way to play `card` now (targets included)."""
    f = g.face[seat]
    mine = [c for c in range(12) if f[c] != GONE]
    if card == SWAP_OWN:
        return [
            ActionMove(am.PLAY, card, (a, b), via=via) for i, a in enumerate(mine) for b in mine[i + 1 :]
        ]
    if card == INSIGHT:
        out = []
        for t in g.active:
            ft = g.face[t]
            for line, count in (("row", 3), ("column", 4)):
                for i in range(count):
                    if any(ft[c] == DOWN for c in line_cells(line, i)):
                        out.append(
                            ActionMove(
                                am.PLAY, card, target=t, line=line, index=i, via=via, who=who(g, t)
                            )
                        )
        return out
    if card == SWAP_PLAYER:
        out = []
        for t in g.active:
            if t == seat:
                continue
            theirs = [c for c in range(12) if g.face[t][c] != GONE]
            name = who(g, t)
            out.extend(
                ActionMove(am.PLAY, card, (a, b), target=t, via=via, who=name)
                for a in mine
                for b in theirs
            )
        return out
    if card == THIEF:
        out = []
        for t in range(g.n):
            if t != seat:
                held = set(g.hands[t])
                out.extend(
                    ActionMove(am.PLAY, card, target=t, steal=k, via=via, who=who(g, t))
                    for k in ACTION_KINDS
                    if k in held
                )
        return out
    if card == DRAW_THREE and not (g.draw or len(g.discard) > 1):
        return []
    return [ActionMove(am.PLAY, card, via=via)]
