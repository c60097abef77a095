"""SKYJO Action card effects and the answers to queued decisions (A6, A7, A9).

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame`. It owns:
* playing an action card (A9, directly or through Reactivation, A9.5): its targets checked, then its
  effect - Swap own, Double move, Draw three, Insight, Defense's extra turn, and the attacks (Swap
  with a player, Thief, Meteor shower), which wait in `in_play` while their targets may defend;
* the answers to queued decisions: take an action card or decline after a star (A7), keep or remove
  a star set (A6), block or allow an attack (A9.6), a Meteor shower target's card (A9.9).
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalMove
from ..moves import CELL_NAMES, COLUMN_NAMES, Move
from ..phases import DOWN, GONE, UP
from . import grid, legal, scoring, setup
from . import moves as am
from .moves import ActionMove
from .phases import MAIN, RESOLVE, STAGE_THREE, card_refusal, line_cells, line_label
from .rules import (
    ATTACKS,
    DEFENSE,
    DOUBLE_MOVE,
    DRAW_THREE,
    INSIGHT,
    METEOR,
    REACTIVATION,
    STAR,
    STAR_COLUMN_BONUS,
    STAR_ROW_BONUS,
    SWAP_OWN,
    SWAP_PLAYER,
    THIEF,
)
from .state import ActionState


def check_targets(g: ActionState, seat: int, move: ActionMove) -> None:
    card = move.card
    f = g.face[seat]
    if card == SWAP_OWN:
        a, b = move.cells
        if a == b:
            raise IllegalMove.of("swap_own_same_cell", kind="swap-own")
        for c in (a, b):
            if f[c] == GONE:
                raise IllegalMove.of("removed", cell=CELL_NAMES[c])
    elif card == INSIGHT:
        t = move.target
        assert t is not None and move.line is not None and move.index is not None  # parsed so (A9.4)
        if t not in g.active:
            raise IllegalMove.of("target_not_playing", name=g.names[t])
        cells = line_cells(move.line, move.index)
        if not any(g.face[t][c] == DOWN for c in cells):
            raise IllegalMove.of(
                "line_all_face_up", line=line_label(move.line, move.index), name=g.names[t]
            )
    elif card == SWAP_PLAYER:
        t = move.target
        assert t is not None  # parsed so (A9.7)
        if t == seat:
            raise IllegalMove.of("swap_player_self", kind="swap-own")
        if t not in g.active:
            raise IllegalMove.of("target_not_playing", name=g.names[t])
        a, b = move.cells
        if f[a] == GONE:
            raise IllegalMove.of("own_cell_removed", cell=CELL_NAMES[a])
        if g.face[t][b] == GONE:
            raise IllegalMove.of("their_cell_removed", name=g.names[t], cell=CELL_NAMES[b])
    elif card == THIEF:
        t = move.target
        assert t is not None  # parsed so (A9.8)
        if t == seat:
            raise IllegalMove.of("thief_self")
        if move.steal not in g.hands[t]:
            raise card_refusal(IllegalMove, "target_holds_no_card", name=g.names[t], card=move.steal)
    elif card == DRAW_THREE:
        if not (g.draw or len(g.discard) > 1):
            raise IllegalMove.of("no_cards_to_draw")


def play_card(g: ActionState, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
    card = move.card
    assert card is not None  # `play <card>` names its card
    playable = legal.playable(g, seat)
    if move.via:
        if REACTIVATION not in playable:
            raise grid.not_playable(g, seat, REACTIVATION)
        if card not in g.adiscard:
            raise card_refusal(IllegalMove, "not_on_action_discard", card=card)
    elif card not in playable:
        raise grid.not_playable(g, seat, card)
    elif card == REACTIVATION:
        raise IllegalMove.of("reactivate_which", like="play reactivation swap-own A1 C3")
    check_targets(g, seat, move)
    ev: dict[str, Any] = {
        "type": "play_action",
        "seat": seat,
        "card": card,
        "via": move.via,
        "move": move.text(),
    }
    if move.via:
        g.hands[seat].remove(REACTIVATION)
        pile = g.adiscard
        del pile[len(pile) - 1 - pile[::-1].index(card)]
        pile.append(REACTIVATION)
    else:
        g.hands[seat].remove(card)
    events.append(ev)
    g.step = RESOLVE
    if card in ATTACKS:
        g.in_play.append(card)
    else:
        g.adiscard.append(card)
    if card == SWAP_OWN:
        a, b = move.cells
        v, f = g.vals[seat], g.face[seat]
        v[a], v[b] = v[b], v[a]
        f[a], f[b] = f[b], f[a]
        grid.forget(g, seat, a)
        grid.forget(g, seat, b)
    elif card == DOUBLE_MOVE:
        g.extra_turns += 2
    elif card == DEFENSE:
        g.extra_turns += 1
    elif card == DRAW_THREE:
        three = []
        for _ in range(3):
            c = setup.draw_card(g, events)
            if c is None:
                break
            three.append(c)
        g.three = three
        g.stage = STAGE_THREE
        g.step = MAIN
        events.append({"type": "draw_three", "seat": seat, "count": len(three)})
    elif card == INSIGHT:
        t = move.target
        assert t is not None and move.line is not None and move.index is not None  # parsed so (A9.4)
        mine = g.known[seat]
        for c in line_cells(move.line, move.index):
            if g.face[t][c] == DOWN and not any(k[0] == t and k[1] == c for k in mine):
                mine.append([t, c, g.vals[t][c]])
    elif card == SWAP_PLAYER or card == THIEF:
        t = move.target
        assert t is not None  # parsed so (A9.7, A9.8)
        if card == THIEF:
            g.extra_turns += 1
        entry = {
            "kind": "defend",
            "seat": t,
            "attacker": seat,
            "card": card,
            "cells": list(move.cells),
            "steal": move.steal,
        }
        if DEFENSE in g.hands[t]:
            g.queue.append(entry)
        else:
            resolve_attack(g, entry, events)
    elif card == METEOR:
        targets = [s for s in g.active if s != seat and legal.has_grid(g, s)]
        events.append({"type": "meteor_shower", "seat": seat, "targets": targets})
        for s in targets:
            g.queue.append({"kind": "meteor", "seat": s, "attacker": seat, "batch": g.version})


def resolve_attack(g: ActionState, e: dict[str, Any], events: list[dict[str, Any]]) -> None:
    seat, t = e["attacker"], e["seat"]
    if e["card"] == THIEF:
        steal = e["steal"]
        g.hands[t].remove(steal)
        g.hands[seat].append(steal)
        if seat == g.turn:
            g.fresh.append(steal)
        events.append({"type": "steal", "seat": seat, "target": t, "card": steal})
        return
    a, b = e["cells"]
    mv, mf = g.vals[seat], g.face[seat]
    tv, tf = g.vals[t], g.face[t]
    mine, theirs = mv[a], tv[b]
    mine_face, their_face = mf[a], tf[b]
    mv[a], tv[b] = theirs, mine
    mf[a], tf[b] = their_face, mine_face
    g.down[seat] += (their_face == DOWN) - (mine_face == DOWN)
    g.down[t] += (mine_face == DOWN) - (their_face == DOWN)
    grid.forget(g, seat, a)
    grid.forget(g, t, b)
    events.append(
        {
            "type": "swap_player",
            "seat": seat,
            "target": t,
            "cell": CELL_NAMES[a],
            "target_cell": CELL_NAMES[b],
            "gave": mine if mine_face == UP else None,
            "got": theirs if their_face == UP else None,
        }
    )
    if theirs == STAR and their_face == UP:
        grid.star_trigger(g, seat, events)
    if mine == STAR and mine_face == UP:
        grid.star_trigger(g, t, events)


def answer(g: ActionState, seat: int, e: dict[str, Any], move: Move | ActionMove, events: list[dict[str, Any]]
) -> None:
    kind = e["kind"]
    mk = move.kind if isinstance(move, ActionMove) else None
    if kind == "star_trigger":
        if isinstance(move, ActionMove) and mk in (am.ACTION_ROW, am.ACTION_DECK):
            grid.take_action(g, seat, move, events)
        elif mk in (am.DECLINE, am.PASS):
            events.append({"type": "decline", "seat": seat})
        else:
            raise IllegalMove.of("star_take_or_decline", moves="action row 1-4, action deck", decline="decline")
    elif kind == "star_set":
        sid = e["set"]
        label = f"{sid[0]} {grid.set_label(g, sid)}"
        bonus = STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
        if mk == am.KEEP:
            g.kept[seat].append(list(sid))
            events.append({"type": "keep_star_set", "seat": seat, "set": label, "bonus": bonus})
        elif mk == am.REMOVE:
            cells_ = line_cells(sid[0], sid[1])
            for c in cells_:
                g.face[seat][c] = GONE
                g.discard.append(g.vals[seat][c])
                grid.forget(g, seat, c)
            g.banked[seat] += bonus
            g.removed_sets.append([seat, label, STAR])
            if sid[0] == "column":
                g.removed_cols.append([seat, COLUMN_NAMES[sid[1]]])
            events.append({"type": "remove_star_set", "seat": seat, "set": label, "bonus": bonus})
            g.queue.remove(e)
            g.kept[seat] = [k for k in g.kept[seat] if scoring.whole_star_set(g, seat, k)]
            # an overlapping star set that lost a card to this one is no longer whole
            g.queue = [
                q
                for q in g.queue
                if q["kind"] != "star_set" or scoring.whole_star_set(g, q["seat"], q["set"])
            ]
            return
        else:
            raise IllegalMove.of("star_set_complete", line=label, keep="keep", remove="remove")
    elif kind == "defend":
        if mk == am.BLOCK:
            block(g, seat, e, events)
            return
        if mk == am.ALLOW:
            events.append({"type": "allow", "seat": seat, "attacker": e["attacker"], "card": e["card"]})
            g.queue.remove(e)
            resolve_attack(g, e, events)
            return
        else:
            raise card_refusal(
                IllegalMove, "attacked", name=g.names[e["attacker"]], card=e["card"], block="block", allow="allow"
            )
    else:  # meteor
        if mk == am.BLOCK:
            block(g, seat, e, events)
            return
        if mk != am.METEOR_CELL:
            if DEFENSE in g.hands[seat]:
                raise IllegalMove.of("meteor_choose_or_block", like="meteor B2", block="block")
            raise IllegalMove.of("meteor_choose", like="meteor B2")
        assert isinstance(move, ActionMove)  # `meteor <cell>`
        c = move.cells[0]
        f = g.face[seat]
        if f[c] == GONE:
            raise IllegalMove.of("removed", cell=CELL_NAMES[c])
        old = g.vals[seat][c]
        g.queue.remove(e)
        g.discard.append(old)
        new = setup.draw_card(g, events)
        if new is None:  # pragma: no cover - a 120-card deck never runs dry
            g.discard.pop()
            new = old
        g.vals[seat][c] = new
        if f[c] == UP:
            f[c] = DOWN
            g.down[seat] += 1
        grid.forget(g, seat, c)
        events.append({"type": "meteor_hit", "seat": seat, "cell": CELL_NAMES[c], "discarded": old})
        return
    g.queue.remove(e)


def block(g: ActionState, seat: int, e: dict[str, Any], events: list[dict[str, Any]]) -> None:
    if DEFENSE not in g.hands[seat]:
        raise IllegalMove.of("no_defense")
    g.hands[seat].remove(DEFENSE)
    g.adiscard.append(DEFENSE)
    g.queue.remove(e)
    events.append(
        {"type": "block", "seat": seat, "attacker": e["attacker"], "card": e.get("card", METEOR)}
    )
