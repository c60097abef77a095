"""SKYJO Action's own refusals in the player's language (issue 17). The Action engine raises them
without a code (`engine.action`: plain English); this reads the English back by pattern and says
it in the current locale. A text not here (nor in a classic code's English, `refusals._BY_TEXT`)
stays English. A card is named by `cards.action_name` (A9); a command to type stays as written
(the reply grammar reads SKYJO Action's moves in English)."""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _

from engine.action.rules import ACTION_TITLES
from service.render.cards import action_name

_KIND = {title: kind for kind, title in ACTION_TITLES.items()}


def _card(title: str) -> str:
    return action_name(_KIND.get(title, title))


ACTION_REFUSALS: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (re.compile(p), say) for p, say in (
        (r"that is not a move", lambda: _("that is not a move")),
        (r"waiting for (?P<who>.+)", lambda who: _("waiting for %(who)s", who=who)),
        (r"place (?P<n>\d) of the action row is empty", lambda n: _("place %(n)s of the action row is empty", n=n)),
        (r"the action deck and its discard pile are empty", lambda: _("the action deck and its discard pile are empty")),
        (r"the opening is over: draw, take, take an action card or play one",
         lambda: _("the opening is over: draw, take, take an action card or play one")),
        (r"you have no grid cards left: take or play an action card, or pass",
         lambda: _("you have no grid cards left: take or play an action card, or pass")),
        (r"the discard pile is empty", lambda: _("the discard pile is empty")),
        (r"you may pass only when you have no other move", lambda: _("you may pass only when you have no other move")),
        (r"there are no drawn three cards to pick from", lambda: _("there are no drawn three cards to pick from")),
        (r"you drew (?P<n>\d+) cards: pick 1-(?P=n)", lambda n: _("you drew %(n)s cards: pick 1-%(n)s", n=n)),
        (r"you hold no (?P<title>.+?) card", lambda title: _("you hold no %(card)s card", card=_card(title))),
        (r"you took that (?P<title>.+?) this turn; play it on a later turn",
         lambda title: _("you took that %(card)s this turn; play it on a later turn", card=_card(title))),
        (r"there is no (?P<title>.+?) on the action discard pile",
         lambda title: _("there is no %(card)s on the action discard pile", card=_card(title))),
        (r"(?P<name>.+?) holds no (?P<title>.+?) card",
         lambda name, title: _("%(name)s holds no %(card)s card", name=name, card=_card(title))),
        (r"(?P<name>.+?) is not playing this round",
         lambda name: _("%(name)s is not playing this round", name=name)),
        (r"you hold no Defense card to block with", lambda: _("you hold no Defense card to block with")),
        (r"the thief steals from another player", lambda: _("the thief steals from another player")),
        (r"there are no cards to draw", lambda: _("there are no cards to draw")),
        (r"your star set in (?P<line>.+?) is complete: keep it or remove it",
         lambda line: _("your star set in %(line)s is complete: keep it or remove it", line=line)),
    )
]


def say_action(english: str) -> str | None:
    """A SKYJO Action refusal's English in the current language; None if it is not in the table."""
    for pattern, say in ACTION_REFUSALS:
        m = pattern.fullmatch(english)
        if m is not None:
            return say(**m.groupdict())
    return None
