"""SKYJO Action's public events in the reader's language (issue 17): the same sentences as
`engine.action.text` (English identical, a test plays whole bot games), said from the event's
fields with each card named by `cards.action_name` (A9). `events.event_text` looks here for the
types the classic table does not know."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from engine.action.moves import parse_action_move
from engine.action.rules import INSIGHT, SWAP_OWN, SWAP_PLAYER, THIEF
from engine.errors import MoveParseError
from engine.moves import CELL_NAMES, COLUMN_NAMES
from service.render.cards import action_name


def _v(v: Any) -> str:
    return _("a star") if v == "star" else str(v)


def _seat(names: list[str], s: Any) -> str:
    return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"


def _take_action(e: dict, n: list[str]) -> str:
    source, name, card = str(e.get("source", "")), _seat(n, e["seat"]), action_name(e["card"])
    if source.startswith("row "):
        return _("%(name)s took %(card)s from the action row (place %(place)s).", name=name, card=card,
                 place=source[4:])
    return _("%(name)s took %(card)s from the action deck.", name=name, card=card)


def _played(e: dict, n: list[str]) -> str:
    """What a played card aimed at (`engine.action.text._targets`), in one sentence."""
    name = _seat(n, e["seat"])
    card = (_("Reactivation as %(card)s", card=action_name(e["card"])) if e.get("via")
            else action_name(e["card"]))
    try:
        m = parse_action_move(str(e.get("move", "")), n)
    except (MoveParseError, ValueError, TypeError, IndexError, KeyError):
        m = None
    kind = getattr(m, "card", None)
    if kind == SWAP_OWN:
        return _("%(name)s played %(card)s on %(a)s and %(b)s.", name=name, card=card,
                 a=CELL_NAMES[m.cells[0]], b=CELL_NAMES[m.cells[1]])
    if kind == INSIGHT:
        line = (_("column %(c)s", c=COLUMN_NAMES[m.index]) if m.line == "column"
                else _("row %(n)s", n=(m.index or 0) + 1))
        if m.target in (-1, e.get("seat")):
            return _("%(name)s played %(card)s on their own %(line)s.", name=name, card=card, line=line)
        return _("%(name)s played %(card)s on %(whose)s's %(line)s.", name=name, card=card,
                 whose=_seat(n, m.target), line=line)
    if kind in (SWAP_PLAYER, THIEF):
        return _("%(name)s played %(card)s against %(target)s.", name=name, card=card, target=_seat(n, m.target))
    return _("%(name)s played %(card)s.", name=name, card=card)


def _pick(e: dict, n: list[str]) -> str:
    discarded = ", ".join(_v(v) for v in e["discarded"])
    if e["cell"] is None:
        return _("%(name)s kept none of the drawn cards and discarded %(cards)s.", name=_seat(n, e["seat"]),
                 cards=discarded)
    return _("%(name)s put the %(card)s on %(cell)s and discarded %(cards)s.", name=_seat(n, e["seat"]),
             card=_v(e["value"]), cell=e["cell"], cards=discarded)


ACTION_EVENTS: dict[str, Callable[[dict, list[str]], str]] = {
    "take_action": _take_action,
    "action_reshuffle": lambda e, n: _(
        "The action deck was empty: %(n)s action cards are shuffled into a new one.", n=e["count"]),
    "play_action": _played,
    "discard_action": lambda e, n: _("%(name)s discarded %(card)s without effect.", name=_seat(n, e["seat"]),
                                     card=action_name(e["card"])),
    "draw_three": lambda e, n: _("%(name)s drew %(n)s cards to choose from.", name=_seat(n, e["seat"]),
                                 n=e["count"]),
    "pick": _pick,
    "steal": lambda e, n: _("%(name)s stole %(card)s from %(target)s.", name=_seat(n, e["seat"]),
                            card=action_name(e["card"]), target=_seat(n, e["target"])),
    "block": lambda e, n: _("%(name)s blocked %(attacker)s's %(card)s with Defense.", name=_seat(n, e["seat"]),
                            attacker=_seat(n, e["attacker"]), card=action_name(e["card"])),
    "allow": lambda e, n: _("%(name)s did not block %(attacker)s's %(card)s.", name=_seat(n, e["seat"]),
                            attacker=_seat(n, e["attacker"]), card=action_name(e["card"])),
    "star_trigger": lambda e, n: _("%(name)s turned up a star and may take an action card.",
                                   name=_seat(n, e["seat"])),
    "decline": lambda e, n: _("%(name)s took no action card.", name=_seat(n, e["seat"])),
    "extra_turn": lambda e, n: _("%(name)s takes an extra turn.", name=_seat(n, e["seat"])),
    "pass": lambda e, n: _("%(name)s has nothing to do and passes.", name=_seat(n, e["seat"])),
}


def action_event_text(event: dict, names: list[str]) -> str | None:
    """`event` (a SKYJO Action type) in the current language; None for a type not in the table."""
    say = ACTION_EVENTS.get(event.get("type", ""))
    return None if say is None else say(event, names)
