"""SKYJO Action's turn flow: playing a move, the turn seat's moves, the end of a turn (A4, A5, A7, A8).

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame`, the top one (it calls every other part). It owns:
* `play`: a move by a seat that owes a decision - a queued decision's answer goes to
  `engine.action.effects`, an opening reveal or the turn seat's move is played here - then
  `continue_turn` runs the turn on: queued decisions first, then sets (A5, `engine.action.scoring`),
  then the close check and the next turn (A8) or an extra turn (Double move, Defense, Thief);
* the turn seat's moves (A4): a game card drawn or taken and placed as in C7, an action card taken
  from the row or the deck, a held card discarded, a Draw three pick (A9.3), a pass when nothing
  else is possible; playing a card is `engine.action.effects`, grid changes `engine.action.grid`.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalMove
from ..moves import CELL_NAMES, MOVE_BY_CODE, Move
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
    swap_event,
)
from . import effects, grid, legal, scoring, setup
from . import moves as am
from .moves import ActionMove
from .phases import ATTACK_ENTRIES, MAIN, RESOLVE, SETS, STAGE_THREE, card_refusal
from .rules import STAR
from .state import ActionState


def play(g: ActionState, seat: int, move: Move | ActionMove | str | int) -> list[dict[str, Any]]:
    if isinstance(move, str):
        move = legal.parse_move(g, move)
    elif isinstance(move, int):
        move = MOVE_BY_CODE[move]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < g.n:
        raise IllegalMove.of("no_such_seat", seat=seat)
    if isinstance(move, ActionMove):
        move = legal.bind(g, seat, move)
    elif not isinstance(move, Move):
        raise IllegalMove.of("action_not_a_move")
    events: list[dict[str, Any]] = []
    dispatch(g, seat, move, events)
    g.moves.append(f"{seat}: {move.text()}")
    g.version += 1
    g.log.extend(events)
    return events


def owed(g: ActionState, e: dict[str, Any]) -> IllegalMove:
    """What a queued decision waits for (part of the `waiting_for` refusal of another seat's move)."""
    who = g.names[e["seat"]]
    kind = e["kind"]
    if kind == "star_trigger":
        return IllegalMove.of("owes_star_trigger", who=who, moves="action row 1-4, action deck")
    if kind == "star_set":
        return IllegalMove.of("owes_star_set", who=who, line=f"{e['set'][0]} {grid.set_label(g, e['set'])}")
    if kind == "defend":
        return card_refusal(IllegalMove, "owes_defense", who=who, card=e["card"])
    return IllegalMove.of("owes_meteor", who=who, like="meteor B2")


def dispatch(g: ActionState, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
    phase = g.phase
    if phase == OVER:
        raise IllegalMove.of("game_over")
    entry = legal.entry_for(g, seat)
    reveal = isinstance(move, Move) and move.kind == "reveal"
    if entry is not None and not (reveal and phase == OPENING and g.revealed[seat] < OPENING_REVEALS):
        effects.answer(g, seat, entry, move, events)
    elif phase == OPENING:
        if seat not in g.active:
            raise IllegalMove.of("not_in_round")
        if g.revealed[seat] >= OPENING_REVEALS:
            raise IllegalMove.of("opening_done")
        if not (isinstance(move, Move) and move.kind == "reveal"):
            raise IllegalMove.of("reveal_first")
        cell = move.cell
        assert cell is not None  # a reveal names its cell
        f = g.face[seat]
        if f[cell] != DOWN:
            raise IllegalMove.of("face_up", cell=CELL_NAMES[cell])
        grid.turn_up(g, seat, cell, events, "reveal")
        g.revealed[seat] += 1
    else:
        if g.queue:
            raise IllegalMove.of("waiting_for", owed=[owed(g, e) for e in legal.visible_queue(g)])
        if seat != g.turn:
            raise g._not_your_turn(seat)
        turn_move(g, seat, move, events)
    continue_turn(g, events)


def turn_move(g: ActionState, seat: int, move: Move | ActionMove, events: list[dict[str, Any]]) -> None:
    stage = g.stage
    if stage == STAGE_THREE:
        if not isinstance(move, ActionMove) or move.kind not in (am.PICK, am.PICK_NONE):
            raise IllegalMove.of("pick_one_of_three", pick="pick 1-3", like="pick 2 C3", none="pick none")
        pick(g, seat, move, events)
        return
    if stage in (STAGE_DRAWN, STAGE_TAKEN):
        if not isinstance(move, Move) or move.kind not in ("swap", "flip"):
            raise IllegalMove.of("holding_drawn_card" if stage == STAGE_DRAWN else "holding_card")
        place(g, seat, move, events)
        return
    if isinstance(move, Move):
        kind = move.kind
        if kind == "reveal":
            raise IllegalMove.of("action_opening_over")
        if kind in ("swap", "flip"):
            raise IllegalMove.of("draw_first")
        if not legal.has_grid(g, seat):
            raise IllegalMove.of("no_grid_cards")
        if kind == "draw":
            card = setup.draw_card(g, events)
            if card is None:
                raise IllegalMove.of("draw_pile_empty")
            g.held = card
            g.stage = STAGE_DRAWN
            events.append({"type": "draw", "seat": seat})
        else:
            if not g.discard:
                raise IllegalMove.of("discard_pile_empty")
            g.held = g.discard.pop()
            g.stage = STAGE_TAKEN
            events.append({"type": "take", "seat": seat, "value": g.held})
        return
    kind = move.kind
    if kind in (am.ACTION_ROW, am.ACTION_DECK):
        grid.take_action(g, seat, move, events)
        g.step = RESOLVE
    elif kind == am.PLAY:
        effects.play_card(g, seat, move, events)
    elif kind == am.DISCARD_ACTION:
        assert move.card is not None  # `discard action <card>` names its card
        if move.card not in legal.playable(g, seat):
            raise grid.not_playable(g, seat, move.card)
        g.hands[seat].remove(move.card)
        g.adiscard.append(move.card)
        events.append({"type": "discard_action", "seat": seat, "card": move.card})
        g.step = RESOLVE
    elif kind == am.PASS:
        if any(m.kind != am.PASS for m in legal.turn_moves(g, seat)):
            raise IllegalMove.of("pass_only_when_stuck")
        events.append({"type": "pass", "seat": seat})
        g.step = RESOLVE
    elif kind in (am.PICK, am.PICK_NONE):
        raise IllegalMove.of("nothing_to_pick")
    else:
        raise IllegalMove.of("not_asked", move=move.text(), like="action row 2, action deck")


def place(g: ActionState, seat: int, move: Move, events: list[dict[str, Any]]) -> None:
    cell = move.cell
    assert cell is not None  # a swap or a flip names its cell
    f = g.face[seat]
    stage = g.stage
    held = g.held
    if move.kind == "swap":
        if f[cell] == GONE:
            raise IllegalMove.of("removed", cell=CELL_NAMES[cell])
        old = grid.put(g, seat, cell, held)
        g.discard.append(old)
        events.append(swap_event(seat, CELL_NAMES[cell], held, old, stage))
        if held == STAR:
            grid.star_trigger(g, seat, events)
    else:
        if stage == STAGE_TAKEN:
            raise IllegalMove.of("must_swap_taken")
        if f[cell] != DOWN:
            raise IllegalMove.of("face_up" if f[cell] == UP else "removed", cell=CELL_NAMES[cell])
        g.discard.append(held)
        grid.turn_up(g, seat, cell, events, "flip", held)
    g.held = None
    g.stage = STAGE_TURN
    g.step = RESOLVE


def pick(g: ActionState, seat: int, move: ActionMove, events: list[dict[str, Any]]) -> None:
    """A9.3: keep at most one of the three, swapped as in C7; the rest go to the discard pile."""
    three = g.three
    if move.kind == am.PICK_NONE:
        g.discard.extend(three)
        events.append(
            {"type": "pick", "seat": seat, "cell": None, "value": None, "discarded": list(three)}
        )
    else:
        i = move.index
        assert i is not None  # `pick <n> <cell>` names its card
        if not 0 <= i < len(three):
            raise IllegalMove.of("pick_range", n=len(three), pick=f"pick 1-{len(three)}")
        cell = move.cells[0]
        if g.face[seat][cell] == GONE:
            raise IllegalMove.of("removed", cell=CELL_NAMES[cell])
        card = three[i]
        rest = three[:i] + three[i + 1 :]
        old = grid.put(g, seat, cell, card)
        g.discard.extend(rest)
        g.discard.append(old)
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
            grid.star_trigger(g, seat, events)
    g.three = []
    g.stage = STAGE_TURN
    g.step = RESOLVE


def continue_turn(g: ActionState, events: list[dict[str, Any]]) -> None:
    while True:
        phase = g.phase
        if phase == OPENING:
            if not g.queue and all(g.revealed[s] >= OPENING_REVEALS for s in g.active):
                g._choose_starter(events)
            return
        if phase != PLAY:
            return
        if g.in_play and not any(e["kind"] in ATTACK_ENTRIES for e in g.queue):
            g.adiscard.extend(g.in_play)
            g.in_play = []
        if g.queue or g.step == MAIN:
            return
        if g.step == RESOLVE:
            g.step = SETS
            scoring.sets(g, events)
            continue
        end_turn(g, events)
        return


def end_turn(g: ActionState, events: list[dict[str, Any]]) -> None:
    """A8 close check, then an extra turn of the same seat or the next seat's turn."""
    seat = g.turn
    active = g.active
    if g.closer < 0:
        closers = [s for s in active if g.down[s] == 0]
        if closers:
            closer = seat if seat in closers else closers[0]
            g.closer = closer
            g.final_left = len(active) - 1
            g.extra_turns = 0
            events.append({"type": "close", "seat": closer})
            setup.begin_turn(g, next_after(g, seat))
            return
    elif g.extra_turns == 0:
        g.final_left -= 1
        if g.final_left <= 0:
            scoring.end_round(g, events)
            return
    if g.extra_turns > 0:
        g.extra_turns -= 1
        events.append({"type": "extra_turn", "seat": seat, "left": g.extra_turns})
        setup.begin_turn(g, seat)
        return
    setup.begin_turn(g, next_after(g, seat))


def next_after(g: ActionState, seat: int) -> int:
    nxt = g.next_seat[seat]
    if nxt == g.closer:
        nxt = g.next_seat[nxt]
    return nxt
