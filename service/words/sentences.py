"""The engine's sentences in the reader's language (issues 17, 27): refusals, events, the reply help.

The engine writes each sentence once, in English, as a gettext message id (engine/words.py): a
refusal's `engine.errors.TEXTS[code]`, an event's `engine.view.sentence`, the help's
`engine.plans.COMMAND_HELP_LINES`. Here the same message id is looked up in the current locale's
catalogue and filled in with the same params, each said in the reader's language too: a nested
sentence or refusal (or a list of them), a SKYJO Action card by its name (`names.action_name`, A9),
a grid line by `names.line_name`, players joined by `names.joined_names`, and a move or a command
the player may type in their own words (`reply_words.in_words_of`), so it can be typed back. In
English that is the engine's text, byte for byte (bench/words_english.py compares).

A refusal whose code the engine's table does not know (an error no player reads: "other") is shown
in the engine's English, never an error.
"""

from __future__ import annotations

from typing import Any

from flask_babel import get_locale
from flask_babel import gettext as _

from engine.action.text import ActionCard
from engine.errors import TEXTS, EngineError
from engine.plans import COMMAND_HELP_LINES
from engine.view import sentence
from engine.words import Listed, Names, Said
from service.words.names import action_name, joined_names, line_name
from service.words.reply_words import in_words_of

# the params of refusals that are the engine's move words, and the commands SKYJO Action's refusals
# name (`action row 2`, `pick none`, the cards' ids): shown in the reader's words
MOVE_PARAMS = frozenset({"move", "last", "a", "b", "kind", "condition", "label", "like", "moves", "cards", "pick",
                         "none", "row", "deck", "seats", "me", "keep", "remove", "block", "allow", "decline"})
# SKYJO Action's own moves (A4 b, A7, A9, A9.3), as the help shows them in the reader's words
ACTION_EXAMPLES = ("action row 2", "play double-move", "play insight column B of me", "pick 2 C3", "decline")


def lang() -> str:
    locale = get_locale()
    return str(locale) if locale is not None else "en"


def said(value: Any) -> Any:
    """A sentence or a param of one in the current language (a plain value as it is)."""
    if isinstance(value, Said):
        text = _(value.text)
        return text % {k: said(v) for k, v in value.params.items()} if value.params else text
    if isinstance(value, EngineError):
        return say(value)
    if isinstance(value, ActionCard):
        return action_name(value.id)
    if isinstance(value, Names):
        return joined_names(list(value))
    if isinstance(value, Listed):
        return ", ".join(str(said(v)) for v in value)
    return value


def _refusal_param(key: str, value: Any) -> Any:
    if isinstance(value, EngineError):
        return say(value)
    if isinstance(value, list):  # refusals one after another (engine.words.fill)
        return "; ".join(say(e) if isinstance(e, EngineError) else str(e) for e in value)
    if key == "card":
        return action_name(value)
    if key == "line":
        return line_name(value)
    if key in MOVE_PARAMS and isinstance(value, str):
        return in_words_of(value, lang())
    return value


def say(exc: Exception) -> str:
    """`exc` (an engine refusal) in the current language; its English when the code is unknown."""
    code = getattr(exc, "code", None)
    text = TEXTS.get(code) if isinstance(code, str) else None
    if text is None:
        return str(exc)
    params = getattr(exc, "params", {})
    if not params:
        return _(text)
    return _(text) % {k: _refusal_param(k, v) for k, v in params.items()}


def event_text(event: dict, names: list[str]) -> str:
    """`event` as a sentence in the current language (the engine's English `text` when its fields
    are not what its type needs)."""
    try:
        return str(said(sentence(event, names)))
    except (KeyError, IndexError, TypeError):
        return event.get("text", "")


def with_texts(events: list[dict], names: list[str]) -> list[dict]:
    return [{**e, "text": event_text(e, names)} for e in events]


def command_help(action: bool = False) -> list[str]:
    """How to answer by mail, line by line (mails that ask for a decision), in the reader's
    language with its words for the moves (`reply_words` reads them; a test plays each language's
    examples). A SKYJO Action game's help adds its own moves by name."""
    lines = [_(line) for line in COMMAND_HELP_LINES]
    if action:
        examples = " | ".join(in_words_of(e, lang()) for e in ACTION_EXAMPLES)
        lines.append(_("SKYJO Action's moves: %(examples)s.", examples=examples))
    return lines
