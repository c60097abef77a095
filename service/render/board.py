"""The board as data for the `boards` macro (templates/_board.html): every player's grid with its
name, tags and totals, then the piles, from a seat's view only (C13: a face-down cell carries no
value, so no template can draw one; a drawn card's value is in the view only for its drawer).

This module is also render/'s front: web/, play/ and mail/ call `render.<name>` on it, and the
templates see it as the global `r` (set up in `service.create_app`), so it re-exports the
functions of its sibling modules that those callers use:
- cards: card texts and classes, the players in the viewer's order;
- links: paths, URLs and move slugs;
- moves: the move groups and pickers, the Confirm sentence, the status line;
- sheet: score rows, chart data (SVG for pages, table bars for mails), standings, the text sheet;
- results: a round's end (final boards, score parts), as data and as text;
- reply_box: the reply examples of a mail that asks for a decision;
- text: the plain-text board and links of mails;
- clock_text: the clock's sentences.
`_` is Flask-Babel's `gettext` (code that calls `render._` gets the standard function)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from flask_babel import gettext as _

from service.render import a11y
from service.render.action_moves import held_names, pick_highlight, row_cards
from service.render.cards import (
    COLUMNS,
    ROWS,
    action_effect,
    action_name,
    card,
    card_class,
    card_text,
    grid_rows,
    held_value,
    name_of,
    players_in_order,
)
from service.render.clock_text import clock_lines, local_text, others_lines, own_line, rules_line
from service.render.links import (
    base_url,
    is_cell,
    move_form_token,
    move_path,
    move_url,
    prefs_url,
    seat_path,
    seat_url,
    slug_for,
    split_move,
    texts_of_slug,
    unsubscribe_url,
    watch_path,
    watch_url,
)
from service.render.moves import describe, done_words, highlight_cells, move_groups, picker_rows, status_line
from service.render.reply_box import reply_examples
from service.render.results import round_result, round_text
from service.render.sheet import bar_chart, score_chart, score_rows, sheet_text, sheet_totals, standings
from service.render.text import links_text, text_board

__all__ = [
    "COLUMNS",
    "ROWS",
    "_",
    "action_effect",
    "action_name",
    "bar_chart",
    "base_url",
    "board",
    "card",
    "card_class",
    "card_text",
    "clock_lines",
    "describe",
    "done_words",
    "grid_rows",
    "held_value",
    "highlight_cells",
    "is_cell",
    "links_text",
    "local_text",
    "move_form_token",
    "move_groups",
    "move_path",
    "move_url",
    "name_of",
    "others_lines",
    "own_line",
    "pick_highlight",
    "picker_rows",
    "players_in_order",
    "prefs_url",
    "reply_examples",
    "round_result",
    "round_text",
    "rules_line",
    "score_chart",
    "score_rows",
    "seat_path",
    "seat_url",
    "sheet_text",
    "sheet_totals",
    "slug_for",
    "split_move",
    "standings",
    "status_line",
    "text_board",
    "texts_of_slug",
    "unsubscribe_url",
    "watch_path",
    "watch_url",
]


def board(view: dict, highlight: Iterable[str] = ()) -> dict:
    """The board of `view` for the `boards` macro: `players` (the viewer's first, see `player`),
    `discard` (a `card`), `draw_count`, `action` (SKYJO Action's row and deck count, or None) and
    `held` (the card in a player's hand, or None). `highlight`: cells to outline on the viewer's
    own grid (the Confirm page's move)."""
    me = view.get("viewer")
    action = view.get("action")
    return {
        "players": [player(view, p, highlight if p["seat"] == me else ()) for p in players_in_order(view)],
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


def player(view: dict, p: dict, highlight: Iterable[str] = ()) -> dict:
    """One player's part of the board: name and seat, the tags (`mine`, `turn`: to play, `closer`:
    closed the round, `deciding`: owes a decision out of turn), the total and the visible score,
    the action cards held (A4), the grid's rows of cells (`cell`, `face`, `name` for screen readers;
    a face-up cell adds `value`, `text` and colour `cls`; `hl`: outlined) and its `caption`."""
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
            {"number": number, "cells": [_cell(c, highlight) for c in row]}
            for number, row in enumerate(grid_rows(p), start=1)
        ],
    }


def _cell(c: dict, highlight: Iterable[str]) -> dict:
    shown = {"cell": c["cell"], "face": c["face"], "hl": c["cell"] in highlight, "name": a11y.cell_name(c)}
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
