"""Names said in the reader's language: SKYJO Action's cards (A9) and grid lines, players one after
another. SKYJO Action's cards are named for people here and nowhere else: `action_name` ("Swap
own") and `action_effect` (one line), through gettext; the engine's ids (`swap-own`) never reach a
page or mail as names (the engine's English titles, `engine.action.rules.ACTION_TITLES`, are the
same words)."""

from __future__ import annotations

from flask_babel import gettext as _


def joined_names(names: list[str]) -> str:
    """`Ann`, `Ann and Bo`, `Ann, Bo and Cy` in the reader's language."""
    if len(names) == 1:
        return names[0]
    return _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


def _action_names() -> dict[str, str]:
    return {
        "swap-own": _("Swap own"),
        "double-move": _("Double move"),
        "draw-three": _("Draw three"),
        "insight": _("Insight"),
        "reactivation": _("Reactivation"),
        "defense": _("Defense"),
        "swap-with-player": _("Swap with a player"),
        "thief": _("Thief"),
        "meteor-shower": _("Meteor shower"),
    }


def _action_effects() -> dict[str, str]:
    return {
        "swap-own": _("Swap two cards of your own grid; each keeps its face, no peeking."),
        "double-move": _("After this turn you take two more turns in a row."),
        "draw-three": _("Draw 3 cards, keep at most one (swap it into your grid), discard the rest."),
        "insight": _("See the face-down cards of one row or column of any grid; they stay face-down."),
        "reactivation": _("Play a card from the action discard pile at once."),
        "defense": _("Cancel an attack on you; or, on your turn, take one extra turn."),
        "swap-with-player": _("Attack: swap one of your cards with one of another player's."),
        "thief": _("Attack: take an action card from another player, then take another turn."),
        "meteor-shower": _("Attack: every other player loses a card of their choice to an unseen one."),
    }


def action_name(kind) -> str:
    """An action card's name for people (A9): `swap-own` -> "Swap own" (in the reader's language)."""
    return _action_names().get(kind, str(kind))


def action_effect(kind) -> str:
    """What an action card does, in one line (A9)."""
    return _action_effects().get(kind, "")


def line_name(label: str) -> str:
    """A grid line as the engine labels it (`column B`, `row 2`, A5/A6/A9.4) in the reader's language."""
    line, _sep, which = str(label).partition(" ")
    if line == "column":
        return _("column %(c)s", c=which)
    if line == "row":
        return _("row %(n)s", n=which)
    return str(label)
