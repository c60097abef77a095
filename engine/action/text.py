"""The sentences of the public events SKYJO Action adds (registered as the variant's event_text, engine.variants), as
`Said` message ids (engine.words): English here, the reader's language in service/words.

Action cards are named by their titles (`ActionCard`: `rules.ACTION_TITLES`, "Swap own", A9), never
by their ids (`swap-own`); a played card's targets are said in words (`_played`), not as the move's
text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import MoveParseError
from ..moves import CELL_NAMES, COLUMN_NAMES
from ..view import card_said
from ..words import N_, Listed, Said
from .moves import parse_action_move
from .rules import ACTION_TITLES, INSIGHT, SWAP_OWN, SWAP_PLAYER, THIEF


class ActionCard:
    """An action card in a sentence: its title in English ("Swap own", `rules.ACTION_TITLES`, A9);
    the service names it in the reader's language by its `id`."""

    __slots__ = ("id",)

    def __init__(self, card: Any) -> None:
        self.id = card

    def __str__(self) -> str:
        return ACTION_TITLES.get(self.id, str(self.id))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActionCard) and other.id == self.id

    __hash__ = None  # type: ignore[assignment]


def _seat(names: list[str], s: Any) -> str:
    return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"


def _take_action(e: dict[str, Any], n: list[str]) -> Said:
    """From the action row (place 2) or the deck (A4 b)."""
    source, name, card = str(e.get("source", "")), _seat(n, e["seat"]), ActionCard(e["card"])
    if source.startswith("row "):
        return Said(N_("%(name)s took %(card)s from the action row (place %(place)s)."), name=name, card=card,
                    place=source[4:])
    return Said(N_("%(name)s took %(card)s from the action deck."), name=name, card=card)


def _played(e: dict[str, Any], names: list[str]) -> Said:
    """A played card and what it aimed at, in words (`on A1 and C3`, `on Bo's column B`), never as
    the move's text."""
    name = _seat(names, e["seat"])
    card: Any = Said(N_("Reactivation as %(card)s"), card=ActionCard(e["card"])) if e.get("via") \
        else ActionCard(e["card"])
    try:
        m = parse_action_move(str(e.get("move", "")), names)
    except (MoveParseError, ValueError, TypeError, IndexError, KeyError):
        m = None
    kind = getattr(m, "card", None)
    if kind == SWAP_OWN:
        return Said(N_("%(name)s played %(card)s on %(a)s and %(b)s."), name=name, card=card,
                    a=CELL_NAMES[m.cells[0]], b=CELL_NAMES[m.cells[1]])  # type: ignore[union-attr]
    if kind == INSIGHT:
        line = (Said(N_("column %(c)s"), c=COLUMN_NAMES[m.index]) if m.line == "column"  # type: ignore[union-attr, index]
                else Said(N_("row %(n)s"), n=(m.index or 0) + 1))  # type: ignore[union-attr]
        if m.target in (-1, e.get("seat")):  # type: ignore[union-attr]
            return Said(N_("%(name)s played %(card)s on their own %(line)s."), name=name, card=card, line=line)
        return Said(N_("%(name)s played %(card)s on %(whose)s's %(line)s."), name=name, card=card,
                    whose=_seat(names, m.target), line=line)  # type: ignore[union-attr]
    if kind in (SWAP_PLAYER, THIEF):
        return Said(N_("%(name)s played %(card)s against %(target)s."), name=name, card=card,
                    target=_seat(names, m.target))  # type: ignore[union-attr]
    return Said(N_("%(name)s played %(card)s."), name=name, card=card)


def _pick(e: dict[str, Any], n: list[str]) -> Said:
    """Draw three's pick (A9.3): one card kept (or none), the rest discarded."""
    cards = Listed(card_said(v) for v in e["discarded"])
    if e["cell"] is None:
        return Said(N_("%(name)s kept none of the drawn cards and discarded %(cards)s."), name=_seat(n, e["seat"]),
                    cards=cards)
    return Said(N_("%(name)s put the %(card)s on %(cell)s and discarded %(cards)s."), name=_seat(n, e["seat"]),
                card=card_said(e["value"]), cell=e["cell"], cards=cards)


def _swap_player(e: dict[str, Any], n: list[str]) -> Said:
    """Swap with a player (A9.7): each card with its face, or face-down."""
    def face(v: Any) -> Any:
        return Said(N_("face-down")) if v is None else card_said(v)

    return Said(N_("%(name)s swapped their %(cell)s (%(gave)s) with %(target)s's %(target_cell)s (%(got)s)."),
                name=_seat(n, e["seat"]), cell=e["cell"], gave=face(e["gave"]), target=_seat(n, e["target"]),
                target_cell=e["target_cell"], got=face(e["got"]))


def _meteor_shower(e: dict[str, Any], n: list[str]) -> Said:
    targets = ", ".join(_seat(n, s) for s in e["targets"])
    return Said(N_("Meteor shower! %(names)s must each replace a grid card."), names=targets or Said(N_("Nobody")))


def _line(label: Any) -> Any:
    """A grid line as the engine labels it (`column B`, `row 2`) in a sentence."""
    line, _sep, which = str(label).partition(" ")
    if line == "column":
        return Said(N_("column %(c)s"), c=which)
    if line == "row":
        return Said(N_("row %(n)s"), n=which)
    return label


def _card(e: dict[str, Any]) -> ActionCard:
    return ActionCard(e["card"])


# SKYJO Action's event types -> their sentence
TEXTS: dict[str, Callable[[dict[str, Any], list[str]], Said]] = {
    "take_action": _take_action,
    "action_reshuffle": lambda e, n: Said(
        N_("The action deck was empty: %(n)s action cards are shuffled into a new one."), n=e["count"]),
    "play_action": _played,
    "discard_action": lambda e, n: Said(N_("%(name)s discarded %(card)s without effect."), name=_seat(n, e["seat"]),
                                        card=_card(e)),
    "draw_three": lambda e, n: Said(N_("%(name)s drew %(n)s cards to choose from."), name=_seat(n, e["seat"]),
                                    n=e["count"]),
    "pick": _pick,
    "swap_player": _swap_player,
    "steal": lambda e, n: Said(N_("%(name)s stole %(card)s from %(target)s."), name=_seat(n, e["seat"]),
                               card=_card(e), target=_seat(n, e["target"])),
    "block": lambda e, n: Said(N_("%(name)s blocked %(attacker)s's %(card)s with Defense."),
                               name=_seat(n, e["seat"]), attacker=_seat(n, e["attacker"]), card=_card(e)),
    "allow": lambda e, n: Said(N_("%(name)s did not block %(attacker)s's %(card)s."), name=_seat(n, e["seat"]),
                               attacker=_seat(n, e["attacker"]), card=_card(e)),
    "meteor_shower": _meteor_shower,
    "meteor_hit": lambda e, n: Said(
        N_("%(name)s discarded %(cell)s (%(card)s) and got an unseen card face-down there."),
        name=_seat(n, e["seat"]), cell=e["cell"], card=card_said(e["discarded"])),
    "star_trigger": lambda e, n: Said(N_("%(name)s turned up a star and may take an action card."),
                                      name=_seat(n, e["seat"])),
    "decline": lambda e, n: Said(N_("%(name)s took no action card."), name=_seat(n, e["seat"])),
    "remove_set": lambda e, n: Said(N_("%(name)s's %(set)s of %(card)ss is removed."), name=_seat(n, e["seat"]),
                                    set=_line(e["set"]), card=card_said(e["value"])),
    "star_set": lambda e, n: Said(N_("%(name)s completed a star set in %(set)s (%(bonus)s): keep it or remove it."),
                                  name=_seat(n, e["seat"]), set=_line(e["set"]), bonus=e["bonus"]),
    "keep_star_set": lambda e, n: Said(N_("%(name)s keeps the star set in %(set)s."), name=_seat(n, e["seat"]),
                                       set=_line(e["set"])),
    "remove_star_set": lambda e, n: Said(N_("%(name)s removed the star set in %(set)s and banks %(bonus)s."),
                                         name=_seat(n, e["seat"]), set=_line(e["set"]), bonus=e["bonus"]),
    "extra_turn": lambda e, n: Said(N_("%(name)s takes an extra turn."), name=_seat(n, e["seat"])),
    "pass": lambda e, n: Said(N_("%(name)s has nothing to do and passes."), name=_seat(n, e["seat"])),
}
