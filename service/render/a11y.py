"""What a screen reader says for the board (issue 30.3): the names of grids, cells, piles and move
buttons, in the reader's language, from a seat's view only.

Each name says what a sighted player sees there and nothing more: a face-down cell is "C3, face
down" (its value is not in the view, C13), a removed one "D1, removed" (C11). A move button says
the whole move ("Put the drawn 4 at B2, now 9"), "now" naming the card the seat sees at that cell.
The templates put these names in `aria-label`s and table captions (templates/_board.html,
templates/_moves.html); the visible text stays as it is."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import ngettext

from service.render.cards import card_text


def cell_name(cell: dict) -> str:
    """A grid cell as seen: "B2, 7", "C3, face down", "D1, removed"."""
    if cell["face"] == "up":
        return _("%(cell)s, %(card)s", cell=cell["cell"], card=card_text(cell.get("value")))
    if cell["face"] == "removed":
        return _("%(cell)s, removed", cell=cell["cell"])
    return _("%(cell)s, face down", cell=cell["cell"])


def changed_name(name: str) -> str:
    """A cell the others changed since the viewer last looked (issue 28.1): "B2, 7, changed"."""
    return _("%(cell)s, changed", cell=name)


def grid_caption(name: str, mine: bool, cells: list[dict]) -> str:
    """A grid's caption: whose it is and how many of its cards are face down."""
    down = sum(1 for c in cells if c["face"] == "down")
    if mine:
        return ngettext("Your grid, %(num)s face down", "Your grid, %(num)s face down", down)
    return ngettext("%(name)s's grid, %(num)s face down", "%(name)s's grid, %(num)s face down", down, name=name)


def discard_name(value) -> str:
    """The discard pile: "discard pile: 3" (or empty)."""
    if value is None:
        return _("discard pile: empty")
    return _("discard pile: %(card)s", card=card_text(value))


def draw_name(count) -> str:
    """The draw pile: "draw pile: 100 cards"."""
    if count is None:
        return _("draw pile")
    return ngettext("draw pile: %(num)s card", "draw pile: %(num)s cards", count)


def held_name(mine: bool, name: str, value) -> str:
    """A card in a player's hand: its value to its drawer only (C7, C13)."""
    if mine:
        return _("your card: %(card)s", card=card_text(value)) if value is not None else _("your card")
    return _("%(name)s holds a card", name=name)


def _there(cell: dict | None) -> str:
    """What the seat sees at a cell of its own grid, for "now ..."."""
    if cell is None or cell["face"] == "down":
        return _("face down")
    return card_text(cell.get("value"))


def move_name(verb: str, cell: str, grid: dict[str, dict], card=None) -> str | None:
    """A classic move on one of the viewer's cells, in words: what the button does and (for a
    swap) the card the seat sees there now. None: the visible label says it already."""
    if verb == "reveal":
        return _("Turn over %(cell)s", cell=cell)
    if verb == "swap" and card is not None:
        return _("Put the drawn %(card)s at %(cell)s, now %(there)s", card=card_text(card), cell=cell,
                 there=_there(grid.get(cell)))
    if verb == "flip" and card is not None:
        return _("Discard the drawn %(card)s and turn over %(cell)s", card=card_text(card), cell=cell)
    if verb == "take" and card is not None:
        return _("Take the %(card)s from the discard pile and put it at %(cell)s, now %(there)s",
                 card=card_text(card), cell=cell, there=_there(grid.get(cell)))
    return None
