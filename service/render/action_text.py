"""SKYJO Action's moves in words: the label of a button, the sentence of a Confirm page, the status
line of a decision (A4, A6, A7, A9). Action cards are named by `cards.action_name`, never by the
engine's ids, and every sentence goes through gettext.

Moves come as the texts of the seat's view (`legal_moves`, a link's move texts) and are read with
the engine's own parser (`parse`), so a label says exactly what the move does. Only the seat's view
is read: the cards of a Draw three are named for their drawer only (they are in its view alone)."""

from __future__ import annotations

from flask_babel import gettext as _

from engine.action.moves import ActionMove, parse_action_move
from engine.errors import MoveParseError
from engine.moves import CELL_NAMES, COLUMN_NAMES
from service.render.cards import card_text, name_of
from service.words.names import action_effect, action_name, line_name

MAX_TEXT = 120  # a move text longer than this is no move of ours (links carry at most 120 characters)


def seat_names(view: dict) -> list[str]:
    """The players' names by seat (the parser names seats as the move texts do)."""
    players = view.get("players") or []
    names = ["?"] * (max((p["seat"] for p in players), default=-1) + 1)
    for p in players:
        names[p["seat"]] = p["name"]
    return names


def parse(view: dict, text: str) -> ActionMove | None:
    """An Action move text of the view read by the engine's parser; None for a classic move or
    anything unreadable."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    try:
        m = parse_action_move(text, seat_names(view))
    except (MoveParseError, ValueError, TypeError, IndexError, KeyError):
        return None
    return m if isinstance(m, ActionMove) else None


def is_viewer(view: dict, seat) -> bool:
    """The seat is the viewer's own (a sentence about "your" grid is its own msgid, never a "your" /
    "Bo's" word put into one: issue 28, genitives and "you" forms by sentence)."""
    return seat == view.get("viewer") or seat == -1


def line_of(m: ActionMove) -> str:
    label = f"column {COLUMN_NAMES[m.index]}" if m.line == "column" else f"row {(m.index or 0) + 1}"
    return line_name(label)


def three_card(view: dict, index) -> str:
    """The viewer's card `index` (0-2) of a Draw three, as a face (A9.3: seen by the drawer only)."""
    private = ((view.get("action") or {}).get("private") or {}).get("three") or []
    if isinstance(index, int) and 0 <= index < len(private):
        return card_text(private[index])
    return _("card %(n)s", n=(index or 0) + 1)


def row_card(view: dict, index) -> str | None:
    row = (view.get("action") or {}).get("row") or []
    return row[index] if isinstance(index, int) and 0 <= index < len(row) else None


def decision(view: dict, kind: str) -> dict:
    """The viewer's queued decision of `kind` (A6, A9.6, A9.9) from the view, or {}."""
    for d in (view.get("action") or {}).get("decisions") or []:
        if d.get("seat") == view.get("viewer") and d.get("kind") == kind:
            return d
    return {}


def label(view: dict, m: ActionMove) -> str:
    """A button's words for an Action move that needs no second choice."""
    k = m.kind
    if k == "action_row":
        return action_name(row_card(view, m.index))
    if k == "action_deck":
        return _("Top of the action deck (unseen)")
    if k == "decline":
        return _("Take no action card")
    if k == "discard_action":
        return _("Discard %(card)s", card=action_name(m.card))
    if k == "pick_none":
        return _("Keep none of them")
    if k == "block":
        return _("Block it with Defense")
    if k == "allow":
        return _("Let it happen")
    if k == "keep":
        return _("Keep the star set")
    if k == "remove":
        d = decision(view, "star_set")
        return _("Remove it and bank %(bonus)s", bonus=d.get("bonus", ""))
    if k == "pass":
        return _("Pass (nothing to do)")
    if k == "play" and m.card == "thief":
        return _("%(card)s from %(name)s", card=action_name(m.steal), name=name_of(view, m.target))
    if k == "play":
        return _("Play %(card)s", card=_played(m))
    return describe(view, m)


def _played(m: ActionMove) -> str:
    if m.via:
        return _("Reactivation as %(card)s", card=action_name(m.card))
    return action_name(m.card)


def describe(view: dict, m: ActionMove) -> str:
    """The Confirm page's sentence: what exactly this move does, in words."""
    k = m.kind
    if k == "action_row":
        card = row_card(view, m.index)
        return _(
            "Take %(card)s from the action row. You can play it on a later turn: %(effect)s",
            card=action_name(card),
            effect=action_effect(card),
        )
    if k == "action_deck":
        return _("Take the top card of the action deck; you see it when you have it.")
    if k == "decline":
        return _("Take no action card for your star.")
    if k == "discard_action":
        return _("Discard %(card)s without effect.", card=action_name(m.card))
    if k == "pick":
        return _(
            "Keep the %(card)s and put it at %(cell)s; the card there and the other drawn cards go "
            "to the discard pile.",
            card=three_card(view, m.index),
            cell=CELL_NAMES[m.cells[0]],
        )
    if k == "pick_none":
        return _("Keep none of the drawn cards: they all go to the discard pile.")
    if k == "meteor":
        return _(
            "Give up your %(cell)s to the meteor shower: it goes to the discard pile and an unseen "
            "card takes its place face-down.",
            cell=CELL_NAMES[m.cells[0]],
        )
    if k in ("block", "allow"):
        return _defend(view, k)
    if k == "keep":
        d = decision(view, "star_set")
        return _("Keep your star set in %(line)s in your grid.", line=line_name(d.get("set", "")))
    if k == "remove":
        d = decision(view, "star_set")
        return _(
            "Remove your star set in %(line)s and bank %(bonus)s for this round.",
            line=line_name(d.get("set", "")),
            bonus=d.get("bonus", ""),
        )
    if k == "pass":
        return _("Pass: you have nothing to do this turn.")
    return _play(view, m)


def done(view: dict, m: ActionMove) -> str:
    """A move just made, in words (the view is the one after it: the row has moved on, the drawn
    cards are gone)."""
    if m.kind == "action_row":
        return _("took an action card from the action row (place %(n)s)", n=(m.index or 0) + 1)
    if m.kind == "pick":
        return _("kept a drawn card at %(cell)s", cell=CELL_NAMES[m.cells[0]])
    if m.kind in ("block", "allow"):
        return label(view, m)
    return describe(view, m)


def _defend(view: dict, kind: str) -> str:
    d = decision(view, "defend") or decision(view, "meteor")
    attacker = name_of(view, d.get("attacker"))
    card = action_name(d.get("card", "meteor-shower"))
    if kind == "block":
        return _(
            "Discard your Defense to cancel %(name)s's %(card)s on you.", name=attacker, card=card
        )
    return _("Do not block %(name)s's %(card)s: it takes effect.", name=attacker, card=card)


def _play(view: dict, m: ActionMove) -> str:
    card = m.card
    head = _played(m)
    if card == "swap-own":
        return _(
            "Play %(card)s: swap your %(a)s and %(b)s; each keeps its face.",
            card=head,
            a=CELL_NAMES[m.cells[0]],
            b=CELL_NAMES[m.cells[1]],
        )
    if card == "swap-with-player":
        return _(
            "Play %(card)s: your %(a)s for %(name)s's %(b)s; each keeps its face.",
            card=head,
            a=CELL_NAMES[m.cells[0]],
            name=name_of(view, m.target),
            b=CELL_NAMES[m.cells[1]],
        )
    if card == "insight":
        if is_viewer(view, m.target):
            return _("Play %(card)s: see the face-down cards of your %(line)s (only you see them).",
                     card=head, line=line_of(m))
        return _(
            "Play %(card)s: see the face-down cards of %(line)s of %(name)s's grid (only you see them).",
            card=head,
            name=name_of(view, m.target),
            line=line_of(m),
        )
    if card == "thief":
        return _(
            "Play %(card)s: take %(steal)s from %(name)s, then take another turn.",
            card=head,
            steal=action_name(m.steal),
            name=name_of(view, m.target),
        )
    return _("Play %(card)s: %(effect)s", card=head, effect=action_effect(card))


def status(view: dict, kind: str) -> str | None:
    """The status line for a decision SKYJO Action adds, or None (classic's words apply)."""
    if kind == "turn":
        return _("Your turn: draw a card, take the discard, or take or play an action card.")
    if kind == "pick_three":
        return _("Draw three: keep one of the drawn cards, or none.")
    if kind == "star_trigger":
        if any(t.startswith("reveal ") for t in view.get("legal_moves") or []):  # A3: in the opening
            return _("You turned up a star: you may take an action card, before or after turning over your second card.")
        return _("You turned up a star: you may take an action card.")
    if kind == "star_set":
        d = decision(view, "star_set")
        return _("You completed a star set in %(line)s: keep it or remove it.", line=line_name(d.get("set", "")))
    if kind == "defend":
        d = decision(view, "defend")
        return _(
            "%(name)s plays %(card)s on you: block it with your Defense, or let it happen.",
            name=name_of(view, d.get("attacker")),
            card=action_name(d.get("card")),
        )
    if kind == "meteor":
        d = decision(view, "meteor")
        return _(
            "Meteor shower from %(name)s: choose the card you give up.", name=name_of(view, d.get("attacker"))
        )
    return None
