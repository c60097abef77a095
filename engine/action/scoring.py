"""SKYJO Action sets and scoring: number and star sets, the round's score, the game end (A5, A6, A8, A11).

Functions on the state (`engine.action.state.ActionState`), one part of
`engine.action.game.ActionGame`, on top of the classic round end
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
from . import grid, setup
from .phases import MAIN, line_cells, line_label
from .rules import HELD_CARD_PENALTY, STAR, STAR_COLUMN_BONUS, STAR_ROW_BONUS
from .state import ActionState


def whole_star_set(g: ActionState, seat: int, sid: list[Any]) -> bool:
    f, v = g.face[seat], g.vals[seat]
    return all(f[c] == UP and v[c] == STAR for c in line_cells(sid[0], sid[1]))


def find_sets(g: ActionState, seat: int) -> tuple[list[tuple[str, int, Any]], list[list[Any]]]:
    """A5/A6: (number sets as (line, index, value), star sets as [line, index]) in `seat`'s grid."""
    f, v = g.face[seat], g.vals[seat]
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


def remove_number_sets(g: ActionState, seat: int, numbers: list[tuple[str, int, Any]], events: list[dict[str, Any]]
) -> None:
    f, v = g.face[seat], g.vals[seat]
    for line, i, value in numbers:
        label = line_label(line, i)
        for c in line_cells(line, i):
            if f[c] != GONE:  # a row and a column of the same value share a card
                f[c] = GONE
                g.discard.append(v[c])
                grid.forget(g, seat, c)
        g.removed_sets.append([seat, label, value])
        if line == "column":
            g.removed_cols.append([seat, COLUMN_NAMES[i]])
        events.append({"type": "remove_set", "seat": seat, "set": label, "value": value})


def sets(g: ActionState, events: list[dict[str, Any]]) -> None:
    """A5 at the end of a turn in every grid; A6 star sets queue their owner's decision."""
    order = g.active[g.active.index(g.turn) :] + g.active[: g.active.index(g.turn)]
    for s in order:
        g.kept[s] = [k for k in g.kept[s] if whole_star_set(g, s, k)]
        numbers, stars = find_sets(g, s)
        if numbers:
            remove_number_sets(g, s, numbers, events)
        for sid in stars:
            if sid not in g.kept[s]:
                bonus = STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
                g.queue.append({"kind": "star_set", "seat": s, "set": sid})
                events.append(
                    {"type": "star_set", "seat": s, "set": line_label(sid[0], sid[1]), "bonus": bonus}
                )


def end_round(g: ActionState, events: list[dict[str, Any]]) -> None:
    """A8: turn every card up (A5 sets too, option final_reveal_removal), score, game end (A11)."""
    opts = g.options
    g._turn_up_everything(events)
    g.known = [[] for _ in range(g.n)]
    raw: list[int | None] = [None] * g.n
    held: list[int | None] = [None] * g.n
    stars: list[int | None] = [None] * g.n
    for s in g.active:
        numbers, star_sets = find_sets(g, s)
        if numbers and opts["final_reveal_removal"]:
            remove_number_sets(g, s, numbers, events)
        bonus = g.banked[s]
        for sid in star_sets:  # whole star sets count at round end, kept or not (A6)
            bonus += STAR_COLUMN_BONUS if sid[0] == "column" else STAR_ROW_BONUS
        held[s] = len(g.hands[s])
        stars[s] = bonus
        raw[s] = setup.visible_sum(g, s) + bonus + HELD_CARD_PENALTY * len(g.hands[s])
    # C10's doubling and the classic score sheet (engine.scoring), as A8 says
    extra = {"removed_sets": g.removed_sets, "action_cards": held, "star_bonus": stars}
    g._record_round(raw, extra, events)
    g.queue = []
    g.step = MAIN
    g._after_round(events)
