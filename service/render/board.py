"""The board as data for the `boards` macro (templates/_board.html): every player's grid with its
name, tags and totals, then the piles, from a seat's view only (C13: a face-down cell carries no
value, so no template can draw one; a drawn card's value is in the view only for its drawer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from service.render import a11y
from service.render.action_moves import held_names, row_cards
from service.render.cards import card, card_class, card_text, grid_rows, name_of, players_in_order
from service.words.names import action_name


def board(view: dict, highlight: Iterable[str] = (), changed: Iterable[dict] = ()) -> dict:
    """The board of `view` for the `boards` macro: `players` (the viewer's first, see `player`),
    `discard` (a `card`), `draw_count`, `action` (SKYJO Action's row and deck count, or None) and
    `held` (the card in a player's hand, or None). `highlight`: cells to outline on the viewer's
    own grid (the Confirm page's move). `changed`: the cells (`{"seat", "cell"}`) the others changed
    since the viewer last looked (`render.since`, issue 28.1), marked on every grid."""
    me = view.get("viewer")
    action = view.get("action")
    marks = [(m["seat"], m["cell"]) for m in changed or ()]
    return {
        "players": [player(view, p, highlight if p["seat"] == me else (),
                           {cell for seat, cell in marks if seat == p["seat"]})
                    for p in players_in_order(view)],
        "discard": card(view.get("discard_top")),
        "discard_name": a11y.discard_name(view.get("discard_top")),
        "draw_count": view.get("draw_count"),
        "draw_name": a11y.draw_name(view.get("draw_count")),
        "action": (
            {
                "row": row_cards(view),
                "deck_count": action.get("deck_count"),
                "discard_top": action_name(action["discard_top"]) if action.get("discard_top") else None,
            }
            if action and isinstance(action, Mapping)
            else None
        ),
        "held": _held(view),
    }


def player(view: dict, p: dict, highlight: Iterable[str] = (), changed: Iterable[str] = ()) -> dict:
    """One player's part of the board: name and seat, the tags (`mine`, `turn`: to play, `closer`:
    closed the round, `deciding`: owes a decision out of turn), the total and the visible score,
    the action cards held (A4), the grid's rows of cells (`cell`, `face`, `name` for screen readers;
    a face-up cell adds `value`, `text` and colour `cls`; `hl`: outlined; `changed`: changed since
    the viewer last looked, which its name says too) and its `caption`."""
    seat = p["seat"]
    turn = view.get("turn")
    cards = held_names(p.get("action_cards"))
    return {
        "seat": seat,
        "name": p["name"],
        "mine": seat == view.get("viewer"),
        "turn": turn == seat,
        "closer": view.get("closer") == seat,
        "deciding": bool(p.get("owes")) and turn != seat,
        "total": p["total"],
        "visible": p["visible_score"],
        "action_cards": cards or None,
        "caption": a11y.grid_caption(p["name"], seat == view.get("viewer"), p["grid"]),
        "rows": [
            {"number": number, "cells": [_cell(c, highlight, changed) for c in row]}
            for number, row in enumerate(grid_rows(p), start=1)
        ],
    }


def _cell(c: dict, highlight: Iterable[str], changed: Iterable[str] = ()) -> dict:
    new = c["cell"] in changed
    shown = {"cell": c["cell"], "face": c["face"], "hl": c["cell"] in highlight, "changed": new,
             "name": a11y.changed_name(a11y.cell_name(c)) if new else a11y.cell_name(c)}
    if c["face"] == "up":  # the only face whose value a view gives
        shown.update(value=c["value"], text=card_text(c["value"]), cls=card_class(c["value"]))
    return shown


def _held(view: dict) -> dict | None:
    """A drawn card in a player's hand: shown face up to its drawer only (C7, C13)."""
    held = view.get("held")
    if not held:
        return None
    value = held.get("value")
    mine, name = held.get("seat") == view.get("viewer"), name_of(view, held.get("seat"))
    return {
        "mine": mine,
        "name": name,
        "card": card(value) if value is not None else None,
        "label": a11y.held_name(mine, name, value),
    }
