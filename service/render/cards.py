"""Cards and seats as the board shows them: a card's text and colour class, the grid's columns and
rows, the players in the order a seat sees them (its own grid first).

Everything here reads a seat's view (`engine.view`), never the state: a face-down card has no value
in a view, so nothing here can draw one (C13). SKYJO Action's cards are named by `service.words.names`."""

from __future__ import annotations

COLUMNS = "ABCD"  # a cell is named by column letter and row number: A1 top-left, D3 bottom-right
ROWS = 3


def card_text(value) -> str:
    """A card's face: its number, ★ for a star (A6), nothing for no card."""
    if value is None:
        return ""
    if value == "star":
        return "★"
    return str(value)


def card_class(value) -> str:
    """The style sheet's colour class of a card (`down` for a card whose face nobody sees)."""
    if value is None:
        return "down"
    if value == "star":
        return "star"
    if isinstance(value, int):
        if value < 0:
            return "neg"
        if value == 0:
            return "zero"
        if value <= 4:
            return "low"
        if value <= 8:
            return "mid"
        return "high"
    return "other"


def picker_rows(cells: dict[str, dict]) -> list[dict]:
    """A picker's rows (1-3), each with its cells (A-D): the cell's name and its option or None."""
    return [
        {
            "number": number,
            "cells": [{"cell": f"{col}{number}", "option": cells.get(f"{col}{number}")} for col in COLUMNS],
        }
        for number in range(1, ROWS + 1)
    ]


def card(value) -> dict:
    """A card on a pile, for the `card` macro: its value (None: no card), text and class."""
    return {"value": value, "text": card_text(value), "cls": "none" if value is None else card_class(value)}


def grid_rows(player: dict) -> list[list[dict]]:
    """A player's grid (the view's 12 cells, row by row) as 3 rows of 4 cells."""
    grid = player["grid"]
    width = len(COLUMNS)
    return [grid[r * width : (r + 1) * width] for r in range(ROWS)]


def players_in_order(view: dict) -> list[dict]:
    """The viewer's grid first, then the others in seat order."""
    players = list(view["players"])
    me = view.get("viewer")
    if me is None:
        return players
    return [p for p in players if p["seat"] == me] + [p for p in players if p["seat"] != me]


def name_of(view: dict, seat) -> str:
    for p in view["players"]:
        if p["seat"] == seat:
            return p["name"]
    return "?"


def held_value(view: dict):
    """The value of the card the viewer holds (drawn, C7), or None (it holds none, or another seat
    does: that card's value is not in this view)."""
    held = view.get("held")
    if held and held.get("seat") == view.get("viewer"):
        return held.get("value")
    return None
