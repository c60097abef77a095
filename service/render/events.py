"""The public events of a move in the reader's language (issue 17). The engine describes each
event in English (`engine.view.describe`, the `text` of an event); this says the same from the
event's fields in the current locale (SKYJO Action's own types: `action_events`). An event type
neither table knows keeps the engine's English text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from service.i18n import joined_names
from service.render.action_events import action_event_text


def _card(v: Any) -> str:
    return _("a star") if v == "star" else str(v)


def _start(e: dict, who: str) -> str:
    why = {
        "previous_closer": lambda: _("%(name)s starts (closed the last round).", name=who),
        "previous_winner": lambda: _("%(name)s starts (won the last round).", name=who),
        "highest_reveal": lambda: _("%(name)s starts (revealed the highest cards).", name=who),
        "highest_card": lambda: _("%(name)s starts (revealed the highest card).", name=who),
        "earliest_seat": lambda: _("%(name)s starts (sits first among the tied).", name=who),
    }.get(e.get("reason", ""))
    return why() if why else _("%(name)s starts.", name=who)


def _round_end(e: dict, names: list[str]) -> str:
    scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(e["scores"]) if v is not None)
    if e.get("doubled"):
        return _("Round %(n)s scores: %(scores)s (%(doubled)s doubled).", n=e["round"], scores=scores,
                 doubled=", ".join(names[s] for s in e["doubled"]))
    return _("Round %(n)s scores: %(scores)s.", n=e["round"], scores=scores)


EVENTS: dict[str, Callable[[dict, str, list[str]], str]] = {
    "round_start": lambda e, who, names: _("Round %(n)s is dealt; everyone reveals two cards.", n=e["round"]),
    "reveal": lambda e, who, names: _("%(name)s revealed %(cell)s: %(card)s.", name=who, cell=e["cell"],
                                      card=_card(e["value"])),
    "start_tie": lambda e, who, names: _("%(names)s are tied for the start and reveal one more card.",
                                         names=", ".join(names[s] for s in e["seats"])),
    "start": lambda e, who, names: _start(e, who),
    "draw": lambda e, who, names: _("%(name)s drew a card from the draw pile.", name=who),
    "take": lambda e, who, names: _("%(name)s took the %(card)s from the discard pile.", name=who,
                                    card=_card(e["value"])),
    "swap": lambda e, who, names: _("%(name)s put the %(card)s on %(cell)s and discarded the %(old)s.", name=who,
                                    card=_card(e["value"]), cell=e["cell"], old=_card(e["discarded"])),
    "flip": lambda e, who, names: _("%(name)s discarded the %(old)s and turned up %(cell)s: %(card)s.", name=who,
                                    old=_card(e["discarded"]), cell=e["cell"], card=_card(e["value"])),
    "remove_column": lambda e, who, names: _("%(name)s's column %(column)s of %(card)ss is removed.", name=who,
                                             column=e["column"], card=_card(e["value"])),
    "close": lambda e, who, names: _(
        "%(name)s has no face-down card left and closes the round; everyone else plays once more.", name=who),
    "reshuffle": lambda e, who, names: _(
        "The draw pile was empty: %(n)s discarded cards are shuffled into a new one.", n=e["count"]),
    "final_reveal": lambda e, who, names: _("All remaining cards are turned up."),
    "round_end": lambda e, who, names: _round_end(e, names),
    "extra_round": lambda e, who, names: _("%(names)s are tied for the lowest total and play one more round.",
                                           names=", ".join(names[s] for s in e["seats"])),
    "game_over": lambda e, who, names: _("Game over: %(names)s won.",
                                         names=joined_names([names[s] for s in e["winners"]])),
}


def event_text(event: dict, names: list[str]) -> str:
    """`event` as a sentence in the current language (the engine's English `text` for a type not
    in EVENTS, or when its fields are not what this table expects)."""
    say = EVENTS.get(event.get("type", ""))
    if say is None:  # SKYJO Action's own types (the rest keep the engine's English)
        try:
            return action_event_text(event, names) or event.get("text", "")
        except (KeyError, IndexError, TypeError):
            return event.get("text", "")
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else ""
    try:
        return say(event, who, names)
    except (KeyError, IndexError, TypeError):
        return event.get("text", "")


def with_texts(events: list[dict], names: list[str]) -> list[dict]:
    return [{**e, "text": event_text(e, names)} for e in events]
