"""The words of a SKYJO Action turn and grid, shared by the game, its view and its bots (A4-A9).

* Turn steps (A4): `main` (the turn seat owes its move), `resolve` (the main move is done; queued
  decisions first), `sets` (A5 sets are done; A6 star-set decisions first).
* `STAGE_THREE`: the turn seat picks one of the three cards of a Draw three (A9.3), after classic's
  stages turn / place_drawn / place_taken (C7).
* Kinds of queued decisions: `star_trigger` (A7), `star_set` (A6), `defend` (A9.6), `meteor` (A9.9).
* Lines of a grid (A5, A6, A9.4): columns of three and rows of four cells, and how texts name them.
This module imports no game class, so the view and the bots use these names without a cycle.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..errors import EngineError, english
from ..moves import COLUMN_NAMES
from .rules import ACTION_TITLES

E = TypeVar("E", bound=EngineError)

MAIN, RESOLVE, SETS = "main", "resolve", "sets"
STAGE_THREE = 3
ACTION_STAGE_KINDS = ("turn", "place_drawn", "place_taken", "pick_three")
QUEUE_KINDS = ("star_trigger", "star_set", "defend", "meteor")
ATTACK_ENTRIES = frozenset({"defend", "meteor"})

COLUMNS = tuple((c, c + 4, c + 8) for c in range(4))
ROWS = tuple(tuple(range(4 * r, 4 * r + 4)) for r in range(3))


def line_cells(line: str, index: int) -> tuple[int, ...]:
    return COLUMNS[index] if line == "column" else ROWS[index]


def line_label(line: str, index: int) -> str:
    return f"column {COLUMN_NAMES[index]}" if line == "column" else f"row {index + 1}"


def title(card: str) -> str:
    """An action card's name for people (`swap-own` -> `Swap own`)."""
    return ACTION_TITLES.get(card, card)


def card_refusal(cls: type[E], code: str, **params: Any) -> E:
    """`cls.of(code, **params)` for a refusal about an action card: its English names the `card`
    param by its title ("you hold no Double move card"); the params keep the card's id, which the
    service names in the reader's language (A9)."""
    return cls(english(code, {**params, "card": title(params["card"])}), code=code, params=params)
