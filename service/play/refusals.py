"""The engine's refusals in the player's language (issue 17). The engine raises errors with a code
and parameters (`engine.errors.TEXTS` has their English); `say(exc)` is the text a page, a mail
or a reply's answer shows, in the current locale. A code this table does not know (the errors no
player reads, or one added to the engine later) is shown in the engine's English, never an error.
tests/service/test_i18n_refusals.py checks that every engine code is here and that both English
texts agree."""

from __future__ import annotations

import re
from collections.abc import Callable
from string import Formatter
from typing import Any

from flask_babel import gettext as _

from engine.errors import TEXTS, EngineError
from service.i18n import current
from service.play.action_refusals import say_action
from service.play.reply_words import in_words_of

# code -> its text in the current language; params as in engine.errors.TEXTS (a `!r` field
# arrives quoted, a nested refusal already said)
REFUSALS: dict[str, Callable[..., str]] = {
    "no_such_seat": lambda **p: _("there is no seat %(seat)s in this game", **p),
    "game_over": lambda **p: _("the game is over"),
    "closer_no_turn": lambda **p: _(
        "you closed the round: everyone else plays once more, you do not; it is %(who)s's turn", **p),
    "not_your_turn": lambda **p: _("it is %(who)s's turn, not yours", **p),
    "not_in_round": lambda **p: _("you are not playing in this round"),
    "opening_done": lambda **p: _("you have revealed your two cards; wait for the others"),
    "tie_reveal_only": lambda **p: _("only the players tied for the start reveal another card now"),
    "reveal_first": lambda **p: _("first reveal your cards: say reveal and a cell, like reveal B2"),
    "face_up": lambda **p: _("%(cell)s is already face-up", **p),
    "removed": lambda **p: _("%(cell)s has been removed", **p),
    "card_in_hand": lambda **p: _("you already have a card in hand: swap it into your grid"),
    "card_in_hand_drawn": lambda **p: _(
        "you already have a card in hand: swap it into your grid or discard it and flip a card"),
    "draw_pile_empty": lambda **p: _("the draw pile is empty; take the discard top"),
    "opening_over": lambda **p: _("the opening is over: draw, take, swap or flip"),
    "draw_first": lambda **p: _("first draw from the draw pile or take the discard top"),
    "must_swap_taken": lambda **p: _("you must place the card you took from the discard pile: swap it"),
    "not_a_cell": lambda **p: _("%(text)s is not a cell: use a column A-D and a row 1-3, like B2", **p),
    "move_not_text": lambda **p: _("a move must be text"),
    "empty_move": lambda **p: _("empty move: say reveal B2, draw, take, swap C1 or flip D3"),
    "unknown_move": lambda **p: _("unknown move %(word)s: say reveal B2, draw, take, swap C1 or flip D3", **p),
    "needs_cell": lambda **p: _("%(kind)s needs one cell, like '%(kind)s B2'", **p),
    "takes_no_cell": lambda **p: _("%(kind)s takes no cell; say just '%(kind)s'", **p),
    "between_empty": lambda **p: _("'between %(lo)s and %(hi)s' is empty: put the smaller number first", **p),
    "condition_unknown": lambda **p: _("I don't understand the condition %(text)s: %(help)s", **p),
    "not_a_move": lambda **p: _("%(text)s is not a move (%(why)s)", **p),
    "move_missing": lambda **p: _("a move is missing"),
    "ambiguous_moves": lambda **p: _(
        "%(text)s can be read as '%(a)s' or as '%(b)s': separate the moves with commas", **p),
    "unreadable_moves": lambda **p: _("I can't read %(text)s as moves", **p),
    "plan_not_text": lambda **p: _("a plan must be text"),
    "plan_too_long": lambda **p: _("that is too long for one turn (%(length)s characters; at most %(limit)s)", **p),
    "no_move_found": lambda **p: _("no move found: say e.g. 'draw swap B2' or 'take swap C1'"),
    "after_conditions": lambda **p: _(
        "%(text)s follows the conditions: start it with 'if …' or 'else', or put it before the conditions", **p),
    "else_last": lambda **p: _("nothing may follow the 'else' part: it must come last"),
    "condition_needs_draw": lambda **p: _(
        "a condition needs a card to test: start with 'draw', e.g. 'draw: if 4 or less swap B2, else flip C3'"),
    "else_without_if": lambda **p: _("'else' without an 'if' before it"),
    "else_needs_move": lambda **p: _("'else' needs a move, e.g. 'else flip C3'"),
    "if_needs_condition": lambda **p: _(
        "'if' needs a condition and a move, e.g. 'if 4 or less swap B2'; %(help)s", **p),
    "if_needs_move": lambda **p: _(
        "'if %(text)s' needs a move after the condition, e.g. 'if 4 or less swap B2'", **p),
    "if_ambiguous": lambda **p: _(
        "'if %(text)s' can be read in more than one way: put 'then' between the condition and the move", **p),
    "if_condition_unknown": lambda **p: _("I don't understand the condition in 'if %(text)s': %(help)s", **p),
    "plan_uncovered": lambda **p: _(
        "your plan does not say what to do with every card you may draw: add an 'else' part"),
    "step_no_decision": lambda **p: _(
        "%(label)smove %(step)s (%(move)s): you have no decision to make at this point", **p),
    "step_no_decision_over": lambda **p: _(
        "%(label)smove %(step)s (%(move)s): you have no decision to make at this point (the game is over)", **p),
    "step_refused": lambda **p: _("%(label)smove %(step)s (%(move)s): %(reason)s", **p),
    "no_drawn_card": lambda **p: _("you hold no drawn card to test the conditions on"),
    "plan_not_your_turn": lambda **p: _("it is not your turn: you have no decision to make now"),
    "must_end_with": lambda **p: _(
        "%(label)smove %(step)s (%(move)s): your reply must end with '%(last)s': it turns up a card you had "
        "not seen, and what may follow depends on it. Send the next moves in another reply, after you have "
        "seen the result", **p),
    "conditions_follow_draw": lambda **p: _(
        "conditions test the card you draw, so they must follow 'draw', e.g. "
        "'draw: if 4 or less swap B2, else flip C3'"),
    "else_never": lambda **p: _("the 'else' part can never apply: the conditions before it cover every card"),
    "no_card_is": lambda **p: _("no card is %(condition)s (cards go from %(span)s)", **p),
    "if_never": lambda **p: _(
        "'if %(condition)s' can never apply: the conditions before it already cover those cards", **p),
    "uncovered_cards": lambda **p: _("what if you draw %(cards)s? add an 'else' part, e.g. ', else flip C3'", **p),
}


def _quoted(code: str) -> set[str]:
    """The fields of `code`'s English text written with `!r` (a quoted text)."""
    return {field for _lit, field, _spec, conv in Formatter().parse(TEXTS.get(code, "")) if field and conv == "r"}


MOVE_PARAMS = frozenset({"move", "last", "a", "b", "kind", "condition", "label"})  # the engine's move words


def params_for(code: str, params: dict[str, Any]) -> dict[str, Any]:
    quoted = _quoted(code)
    lang = current()
    out = {}
    for k, v in params.items():
        if isinstance(v, EngineError):
            out[k] = say(v)
        elif k in MOVE_PARAMS and isinstance(v, str):
            out[k] = in_words_of(v, lang)
        elif k in quoted:
            out[k] = repr(str(v))
        else:
            out[k] = v
    return out


def _pattern(english: str) -> re.Pattern[str] | None:
    """A regex reading `english` (a TEXTS template) back into its fields; None for a template with
    a quoted (`!r`) field or one made of fields only (it would read anything)."""
    out, literal = [], ""
    for lit, field, _spec, conv in Formatter().parse(english):
        literal += lit or ""
        out.append(re.escape(lit or ""))
        if field is not None:
            if conv:
                return None
            out.append(f"(?P<{field}>.+?)" if f"(?P<{field}>" not in "".join(out) else f"(?P={field})")
    return re.compile("".join(out)) if literal.strip() else None


# The SKYJO Action engine raises some refusals without a code, in the same English as a classic
# code ("the game is over", "B2 has been removed"): read back to that code (fewest fields first).
_BY_TEXT = sorted(((code, pat) for code, english in TEXTS.items() if code in REFUSALS
                   for pat in [_pattern(english)] if pat is not None), key=lambda cp: cp[1].groups)


def _coded(exc: Exception) -> tuple[str | None, dict[str, Any]]:
    code = getattr(exc, "code", None)
    if code in REFUSALS:
        return code, getattr(exc, "params", {})
    english = str(exc)
    for code, pat in _BY_TEXT:
        m = pat.fullmatch(english)
        if m is not None:
            return code, m.groupdict()
    return None, {}


def say(exc: Exception) -> str:
    """`exc` (an engine refusal) in the current language; its English when the code is unknown
    (a refusal without a code in the English of a known one is said as that one)."""
    code, params = _coded(exc)
    text = REFUSALS.get(code) if code else None
    if text is None:
        return say_action(str(exc)) or str(exc)
    return text(**params_for(code, params))
