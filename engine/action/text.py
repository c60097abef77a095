"""English sentences for the public events SKYJO Action adds (registered in engine.view.EVENT_TEXT).

Action cards are named by their titles (`rules.ACTION_TITLES`: "Swap own", A9), never by their ids
(`swap-own`); a played card's targets are said in words (`_targets`), not as the move's text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import MoveParseError
from ..moves import CELL_NAMES, COLUMN_NAMES
from .moves import parse_action_move
from .rules import ACTION_TITLES, INSIGHT, SWAP_OWN, SWAP_PLAYER, THIEF


def _t(card: Any) -> str:
    return ACTION_TITLES.get(card, str(card))


def _v(v: Any) -> str:
    return "a star" if v == "star" else str(v)


def _seat(names: list[str], s: Any) -> str:
    return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"


def _source(e: dict[str, Any]) -> str:
    """`row (place 2)` or `deck`: where a taken action card came from (A4 b)."""
    source = str(e.get("source", ""))
    if source.startswith("row "):
        return f"row (place {source[4:]})"
    return source


def _targets(e: dict[str, Any], names: list[str]) -> str:
    """What a played card aimed at, in words (` on A1 and C3`, ` on Bo's column B`), or ""."""
    try:
        m = parse_action_move(str(e.get("move", "")), names)
    except (MoveParseError, ValueError, TypeError, IndexError, KeyError):
        return ""
    card = getattr(m, "card", None)
    if card == SWAP_OWN:
        return f" on {CELL_NAMES[m.cells[0]]} and {CELL_NAMES[m.cells[1]]}"
    if card == INSIGHT:
        who = "their own" if m.target in (-1, e.get("seat")) else f"{_seat(names, m.target)}'s"
        line = f"column {COLUMN_NAMES[m.index]}" if m.line == "column" else f"row {(m.index or 0) + 1}"
        return f" on {who} {line}"
    if card in (SWAP_PLAYER, THIEF):
        return f" against {_seat(names, m.target)}"
    return ""


TEXTS: dict[str, Callable[[dict[str, Any], list[str]], str]] = {
    "take_action": lambda e, n: f"{_seat(n, e['seat'])} took {_t(e['card'])} from the action {_source(e)}.",
    "action_reshuffle": lambda e, n: (
        f"The action deck was empty: {e['count']} action cards are shuffled into a new one."
    ),
    "play_action": lambda e, n: (
        f"{_seat(n, e['seat'])} played "
        + (f"Reactivation as {_t(e['card'])}" if e.get("via") else _t(e["card"]))
        + _targets(e, n)
        + "."
    ),
    "discard_action": lambda e, n: f"{_seat(n, e['seat'])} discarded {_t(e['card'])} without effect.",
    "draw_three": lambda e, n: f"{_seat(n, e['seat'])} drew {e['count']} cards to choose from.",
    "pick": lambda e, n: (
        f"{_seat(n, e['seat'])} kept none of the drawn cards and discarded "
        f"{', '.join(_v(v) for v in e['discarded'])}."
        if e["cell"] is None
        else f"{_seat(n, e['seat'])} put the {_v(e['value'])} on {e['cell']} and discarded "
        f"{', '.join(_v(v) for v in e['discarded'])}."
    ),
    "swap_player": lambda e, n: (
        f"{_seat(n, e['seat'])} swapped their {e['cell']}"
        + (f" ({_v(e['gave'])})" if e["gave"] is not None else " (face-down)")
        + f" with {_seat(n, e['target'])}'s {e['target_cell']}"
        + (f" ({_v(e['got'])})." if e["got"] is not None else " (face-down).")
    ),
    "steal": lambda e, n: f"{_seat(n, e['seat'])} stole {_t(e['card'])} from {_seat(n, e['target'])}.",
    "block": lambda e, n: (
        f"{_seat(n, e['seat'])} blocked {_seat(n, e['attacker'])}'s {_t(e['card'])} with Defense."
    ),
    "allow": lambda e, n: f"{_seat(n, e['seat'])} did not block {_seat(n, e['attacker'])}'s {_t(e['card'])}.",
    "meteor_shower": lambda e, n: (
        "Meteor shower! "
        + (", ".join(_seat(n, s) for s in e["targets"]) or "Nobody")
        + " must each replace a grid card."
    ),
    "meteor_hit": lambda e, n: (
        f"{_seat(n, e['seat'])} discarded {e['cell']} ({_v(e['discarded'])}) "
        "and got an unseen card face-down there."
    ),
    "star_trigger": lambda e, n: f"{_seat(n, e['seat'])} turned up a star and may take an action card.",
    "decline": lambda e, n: f"{_seat(n, e['seat'])} took no action card.",
    "remove_set": lambda e, n: f"{_seat(n, e['seat'])}'s {e['set']} of {_v(e['value'])}s is removed.",
    "star_set": lambda e, n: (
        f"{_seat(n, e['seat'])} completed a star set in {e['set']} ({e['bonus']}): keep it or remove it."
    ),
    "keep_star_set": lambda e, n: f"{_seat(n, e['seat'])} keeps the star set in {e['set']}.",
    "remove_star_set": lambda e, n: (
        f"{_seat(n, e['seat'])} removed the star set in {e['set']} and banks {e['bonus']}."
    ),
    "extra_turn": lambda e, n: f"{_seat(n, e['seat'])} takes an extra turn.",
    "pass": lambda e, n: f"{_seat(n, e['seat'])} has nothing to do and passes.",
}
