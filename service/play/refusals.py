"""The engine's refusals in the player's language (issue 17). The engine raises errors with a code
and parameters (`engine.errors.TEXTS` has their English); `say(exc)` is the text a page, a mail
or a reply's answer shows, in the current locale. A code this table does not know (the errors no
player reads, or one added to the engine later) is shown in the engine's English, never an error.
Params are shown in the reader's language too: a nested refusal (or a list of them) said, a SKYJO
Action card by its name (`cards.action_name`, A9), a grid line by `cards.line_name`, and a move or
a command the player may type in their own words (`reply_words.in_words_of`), so it can be typed
back. tests/service/test_i18n.py checks that every engine code is here and that both English texts
agree; tests/service/test_i18n_action_refusals.py says SKYJO Action's refusals in every language."""

from __future__ import annotations

from collections.abc import Callable
from string import Formatter
from typing import Any

from flask_babel import gettext as _

from engine.errors import TEXTS, EngineError
from service.i18n import current
from service.play.reply_words import in_words_of
from service.render.cards import action_name, line_name

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
    # SKYJO Action (engine/action/)
    "action_not_a_move": lambda **p: _("that is not a move"),
    "waiting_for": lambda **p: _("waiting for %(owed)s", **p),
    "owes_star_trigger": lambda **p: _("%(who)s to take an action card for the star (%(moves)s) or decline", **p),
    "owes_star_set": lambda **p: _("%(who)s to keep or remove the star set in %(line)s", **p),
    "owes_defense": lambda **p: _("%(who)s to block or allow the %(card)s", **p),
    "owes_meteor": lambda **p: _("%(who)s to choose a card for the meteor shower (%(like)s)", **p),
    "action_row_place_empty": lambda **p: _("place %(n)s of the action row is empty", **p),
    "action_decks_empty": lambda **p: _("the action deck and its discard pile are empty"),
    "pick_one_of_three": lambda **p: _(
        "choose one of the three cards: %(pick)s and a cell (%(like)s), or %(none)s", **p),
    "holding_card": lambda **p: _("you have a card in hand: swap it into your grid"),
    "holding_drawn_card": lambda **p: _(
        "you have a card in hand: swap it into your grid or discard it and flip a card"),
    "action_opening_over": lambda **p: _("the opening is over: draw, take, take an action card or play one"),
    "no_grid_cards": lambda **p: _("you have no grid cards left: take or play an action card, or pass"),
    "discard_pile_empty": lambda **p: _("the discard pile is empty"),
    "card_not_held": lambda **p: _("you hold no %(card)s card", **p),
    "card_taken_this_turn": lambda **p: _("you took that %(card)s this turn; play it on a later turn", **p),
    "pass_only_when_stuck": lambda **p: _("you may pass only when you have no other move"),
    "nothing_to_pick": lambda **p: _("there are no drawn three cards to pick from"),
    "not_asked": lambda **p: _(
        "nobody asked you to %(move)s: it is your turn - draw, take, take an action card (%(like)s) or play one",
        **p),
    "pick_range": lambda **p: _("you drew %(n)s cards: %(pick)s", **p),
    "swap_own_same_cell": lambda **p: _("%(kind)s needs two different cells", **p),
    "target_not_playing": lambda **p: _("%(name)s is not playing this round", **p),
    "line_all_face_up": lambda **p: _("%(line)s of %(name)s's grid has no face-down card", **p),
    "swap_player_self": lambda **p: _(
        "swap with a player needs another player; for your own grid use %(kind)s", **p),
    "own_cell_removed": lambda **p: _("your %(cell)s has been removed", **p),
    "their_cell_removed": lambda **p: _("%(name)s's %(cell)s has been removed", **p),
    "thief_self": lambda **p: _("the thief steals from another player"),
    "target_holds_no_card": lambda **p: _("%(name)s holds no %(card)s card", **p),
    "no_cards_to_draw": lambda **p: _("there are no cards to draw"),
    "not_on_action_discard": lambda **p: _("there is no %(card)s on the action discard pile", **p),
    "reactivate_which": lambda **p: _("say which card to reactivate, like: %(like)s", **p),
    "star_take_or_decline": lambda **p: _(
        "you turned up a star: take an action card (%(moves)s) or %(decline)s", **p),
    "star_set_complete": lambda **p: _(
        "your star set in %(line)s is complete: %(keep)s it or %(remove)s it", **p),
    "attacked": lambda **p: _(
        "%(name)s attacks you with %(card)s: say %(block)s (discarding your Defense) or %(allow)s", **p),
    "meteor_choose": lambda **p: _(
        "a meteor shower: choose one of your grid cards to replace, like %(like)s", **p),
    "meteor_choose_or_block": lambda **p: _(
        "a meteor shower: choose one of your grid cards to replace, like %(like)s, or %(block)s", **p),
    "no_defense": lambda **p: _("you hold no Defense card to block with"),
    "action_empty_move": lambda **p: _("empty move: say e.g. %(moves)s", **p),
    "action_unknown_move": lambda **p: _("unknown move %(word)s: say e.g. %(moves)s", **p),
    "name_a_card": lambda **p: _("name an action card: %(cards)s", **p),
    "name_card_to_steal": lambda **p: _("name the card to steal, like: %(like)s: %(cards)s", **p),
    "not_an_action_card": lambda **p: _("%(word)s is not an action card: %(cards)s", **p),
    "unexpected_after_move": lambda **p: _("unexpected %(text)s after %(move)s", **p),
    "unexpected_after_cells": lambda **p: _("unexpected %(text)s after the two cells", **p),
    "unexpected_after_insight": lambda **p: _("unexpected %(text)s after the insight target", **p),
    "unexpected_after_swap": lambda **p: _("unexpected %(text)s after the swap", **p),
    "unexpected_after_steal": lambda **p: _("unexpected %(text)s after the card to steal", **p),
    "unexpected_after_row_place": lambda **p: _("unexpected %(text)s after the row place", **p),
    "unexpected_after_discard": lambda **p: _("unexpected %(text)s after the card to discard", **p),
    "unexpected_after_pick": lambda **p: _("unexpected %(text)s after the pick", **p),
    "unexpected_after_meteor_cell": lambda **p: _("unexpected %(text)s after the meteor cell", **p),
    "move_needs_cell": lambda **p: _("%(kind)s needs a cell, like B2", **p),
    "swap_own_second_cell": lambda **p: _("%(kind)s needs two cells; it needs a cell, like B2", **p),
    "swap_player_their_cell": lambda **p: _("%(kind)s needs the other player's cell; it needs a cell, like B2", **p),
    "needs_a_player": lambda **p: _("%(kind)s needs a player: a name, %(seats)s or %(me)s", **p),
    "no_seat_number": lambda **p: _("there is no seat %(seat)s (seats are 0-%(last)s)", **p),
    "not_a_player": lambda **p: _(
        "%(text)s is not a player here; name one of %(names)s, or say %(seats)s or %(me)s", **p),
    "ambiguous_player": lambda **p: _("more than one player is called %(text)s; say %(a)s or %(b)s", **p),
    "insight_needs_line": lambda **p: _("%(kind)s needs a row or column, like: %(like)s", **p),
    "not_a_row": lambda **p: _("%(text)s is not a row: rows are 1-3", **p),
    "not_a_column": lambda **p: _("%(text)s is not a column: columns are A-D", **p),
    "action_row_places": lambda **p: _("the action row has places 1-4, like: %(like)s", **p),
    "take_action_how": lambda **p: _("take an action card with: %(row)s, or %(deck)s", **p),
    "reactivate_name": lambda **p: _(
        "name the card to reactivate from the action discard pile, like: %(like)s", **p),
    "reactivate_reactivation": lambda **p: _("Reactivation cannot reactivate another Reactivation"),
    "pick_how": lambda **p: _("say %(pick)s and a cell (%(like)s), or %(none)s", **p),
}


def _quoted(code: str) -> set[str]:
    """The fields of `code`'s English text written with `!r` (a quoted text)."""
    return {field for _lit, field, _spec, conv in Formatter().parse(TEXTS.get(code, "")) if field and conv == "r"}


# the engine's move words, and the commands SKYJO Action's refusals name (`action row 2`, `pick none`,
# the cards' ids): shown in the reader's words
MOVE_PARAMS = frozenset({"move", "last", "a", "b", "kind", "condition", "label", "like", "moves", "cards", "pick",
                         "none", "row", "deck", "seats", "me", "keep", "remove", "block", "allow", "decline"})


def params_for(code: str, params: dict[str, Any]) -> dict[str, Any]:
    quoted = _quoted(code)
    lang = current()
    out = {}
    for k, v in params.items():
        if isinstance(v, EngineError):
            out[k] = say(v)
        elif isinstance(v, list):  # refusals one after another (engine.errors.english)
            out[k] = "; ".join(say(e) if isinstance(e, EngineError) else str(e) for e in v)
        elif k == "card":
            out[k] = action_name(v)
        elif k == "line":
            out[k] = line_name(v)
        elif k in MOVE_PARAMS and isinstance(v, str):
            out[k] = in_words_of(v, lang)
        elif k in quoted:
            out[k] = repr(str(v))
        else:
            out[k] = v
    return out


def say(exc: Exception) -> str:
    """`exc` (an engine refusal) in the current language; its English when the code is unknown."""
    code = getattr(exc, "code", None)
    text = REFUSALS.get(code) if isinstance(code, str) else None
    if text is None:
        return str(exc)
    return text(**params_for(code, getattr(exc, "params", {})))
