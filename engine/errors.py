"""Errors the engine raises. All are ValueError subclasses whose message a player can read."""

from __future__ import annotations

from typing import Any, Self

from .words import N_, fill


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input.

    The engine speaks no language but English: a refusal a player reads carries a `code` and its
    `params` (`IllegalMove.of("not_your_turn", who="Ann")`) besides the English text (`str(exc)`,
    `TEXTS[code]` filled in), so the service can say it in the player's language: `TEXTS[code]` is
    the message id the catalogues translate (service/words/sentences.py, `say`). A
    param may itself be an EngineError (a plan's step wraps the refusal of its move) or a list of
    them (SKYJO Action's decisions owed by others, one after another), and a `card` param is a SKYJO
    Action card's id (`double-move`), which the English writes by its title ("Double move", A9).
    Errors no player reads (records, saved state, options) have the code "other"."""

    def __init__(self, message: str, *, code: str = "other", params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, Any] = dict(params or {})

    @classmethod
    def of(cls, code: str, **params: Any) -> Self:
        """The refusal `code` with its English text (`TEXTS[code]` filled in with `params`)."""
        return cls(english(code, params), code=code, params=params)


class OptionError(EngineError):
    """A game could not be created: bad players or options (C2, option tables)."""


class MoveParseError(EngineError):
    """A move's text form could not be understood."""


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow now."""


class StateError(EngineError):
    """Saved state that does not load: wrong schema or broken invariants."""


class RecordError(EngineError):
    """A game record that does not replay. `move_number` is 1-based, or None for the header."""

    def __init__(self, message: str, move_number: int | None = None) -> None:
        super().__init__(message)
        self.move_number = move_number


def english(code: str, params: dict[str, Any]) -> str:
    """The English of refusal `code` (`words.fill`: a list of refusals one after another, "; "; an
    action card's title is filled in by `engine.action.phases.card_refusal`)."""
    return fill(TEXTS[code], params)


# The English of every refusal code: a gettext message id (%-format; `%(x)r` quotes its param), said
# in the reader's language by service/words. A new refusal is one line here plus its translations.
TEXTS: dict[str, str] = {
    # the classic game (engine/game.py)
    "no_such_seat": N_("there is no seat %(seat)s in this game"),
    "game_over": N_("the game is over"),
    "closer_no_turn": N_("you closed the round: everyone else plays once more, you do not; it is %(who)s's turn"),
    "not_your_turn": N_("it is %(who)s's turn, not yours"),
    "not_in_round": N_("you are not playing in this round"),
    "opening_done": N_("you have revealed your two cards; wait for the others"),
    "tie_reveal_only": N_("only the players tied for the start reveal another card now"),
    "reveal_first": N_("first reveal your cards: say reveal and a cell, like reveal B2"),
    "face_up": N_("%(cell)s is already face-up"),
    "removed": N_("%(cell)s has been removed"),
    "card_in_hand": N_("you already have a card in hand: swap it into your grid"),
    "card_in_hand_drawn": N_("you already have a card in hand: swap it into your grid or discard it and flip a card"),
    "draw_pile_empty": N_("the draw pile is empty; take the discard top"),
    "opening_over": N_("the opening is over: draw, take, swap or flip"),
    "draw_first": N_("first draw from the draw pile or take the discard top"),
    "must_swap_taken": N_("you must place the card you took from the discard pile: swap it"),
    # a move's text (engine/moves.py)
    "not_a_cell": N_("%(text)r is not a cell: use a column A-D and a row 1-3, like B2"),
    "move_not_text": N_("a move must be text"),
    "empty_move": N_("empty move: say reveal B2, draw, take, swap C1 or flip D3"),
    "unknown_move": N_("unknown move %(word)r: say reveal B2, draw, take, swap C1 or flip D3"),
    "needs_cell": N_("%(kind)s needs one cell, like '%(kind)s B2'"),
    "takes_no_cell": N_("%(kind)s takes no cell; say just '%(kind)s'"),
    # whole-turn plans (engine/plans/)
    "between_empty": N_("'between %(lo)s and %(hi)s' is empty: put the smaller number first"),
    "condition_unknown": N_("I don't understand the condition %(text)r: %(help)s"),
    "not_a_move": N_("%(text)r is not a move (%(why)s)"),
    "move_missing": N_("a move is missing"),
    "ambiguous_moves": N_("%(text)r can be read as '%(a)s' or as '%(b)s': separate the moves with commas"),
    "unreadable_moves": N_("I can't read %(text)r as moves"),
    "plan_not_text": N_("a plan must be text"),
    "plan_too_long": N_("that is too long for one turn (%(length)s characters; at most %(limit)s)"),
    "no_move_found": N_("no move found: say e.g. 'draw swap B2' or 'take swap C1'"),
    "after_conditions": N_("%(text)r follows the conditions: start it with 'if …' or 'else', or put it before the conditions"),
    "else_last": N_("nothing may follow the 'else' part: it must come last"),
    "condition_needs_draw": N_("a condition needs a card to test: start with 'draw', e.g. 'draw: if 4 or less swap B2, else flip C3'"),
    "else_without_if": N_("'else' without an 'if' before it"),
    "else_needs_move": N_("'else' needs a move, e.g. 'else flip C3'"),
    "if_needs_condition": N_("'if' needs a condition and a move, e.g. 'if 4 or less swap B2'; %(help)s"),
    "if_needs_move": N_("'if %(text)s' needs a move after the condition, e.g. 'if 4 or less swap B2'"),
    "if_ambiguous": N_("'if %(text)s' can be read in more than one way: put 'then' between the condition and the move"),
    "if_condition_unknown": N_("I don't understand the condition in 'if %(text)s': %(help)s"),
    "plan_uncovered": N_("your plan does not say what to do with every card you may draw: add an 'else' part"),
    "step_no_decision": N_("%(label)smove %(step)s (%(move)s): you have no decision to make at this point"),
    "step_no_decision_over": N_("%(label)smove %(step)s (%(move)s): you have no decision to make at this point (the game is over)"),
    "step_refused": N_("%(label)smove %(step)s (%(move)s): %(reason)s"),
    "no_drawn_card": N_("you hold no drawn card to test the conditions on"),
    "plan_not_your_turn": N_("it is not your turn: you have no decision to make now"),
    "must_end_with": N_("%(label)smove %(step)s (%(move)s): your reply must end with '%(last)s': it turns up a card you had not seen, and what may follow depends on it. Send the next moves in another reply, after you have seen the result"),
    "conditions_follow_draw": N_("conditions test the card you draw, so they must follow 'draw', e.g. 'draw: if 4 or less swap B2, else flip C3'"),
    "else_never": N_("the 'else' part can never apply: the conditions before it cover every card"),
    "no_card_is": N_("no card is %(condition)s (cards go from %(span)s)"),
    "if_never": N_("'if %(condition)s' can never apply: the conditions before it already cover those cards"),
    "uncovered_cards": N_("what if you draw %(cards)s? add an 'else' part, e.g. ', else flip C3'"),
    # SKYJO Action (engine/action/): a `card` is an action card's id, shown by its title; `line` is
    # `column B` or `row 2`; a command the player may type (`like`, `moves`, `cards`, `pick`, `keep`,
    # ...) is a param, so the service can show it in the reader's words
    # - a move and whose decision it is (turn.py)
    "action_not_a_move": N_("that is not a move"),
    "waiting_for": N_("waiting for %(owed)s"),
    "owes_star_trigger": N_("%(who)s to take an action card for the star (%(moves)s) or decline"),
    "owes_star_set": N_("%(who)s to keep or remove the star set in %(line)s"),
    "owes_defense": N_("%(who)s to block or allow the %(card)s"),
    "owes_meteor": N_("%(who)s to choose a card for the meteor shower (%(like)s)"),
    # - the turn seat's moves (turn.py, A4, A9.3)
    "action_row_place_empty": N_("place %(n)s of the action row is empty"),
    "action_decks_empty": N_("the action deck and its discard pile are empty"),
    "pick_one_of_three": N_("choose one of the three cards: %(pick)s and a cell (%(like)s), or %(none)s"),
    "holding_card": N_("you have a card in hand: swap it into your grid"),
    "holding_drawn_card": N_("you have a card in hand: swap it into your grid or discard it and flip a card"),
    "action_opening_over": N_("the opening is over: draw, take, take an action card or play one"),
    "no_grid_cards": N_("you have no grid cards left: take or play an action card, or pass"),
    "discard_pile_empty": N_("the discard pile is empty"),
    "card_not_held": N_("you hold no %(card)s card"),
    "card_taken_this_turn": N_("you took that %(card)s this turn; play it on a later turn"),
    "pass_only_when_stuck": N_("you may pass only when you have no other move"),
    "nothing_to_pick": N_("there are no drawn three cards to pick from"),
    "not_asked": N_("nobody asked you to %(move)s: it is your turn - draw, take, take an action card (%(like)s) or play one"),
    "pick_range": N_("you drew %(n)s cards: %(pick)s"),
    # - playing a card and its targets (effects.py, A9)
    "swap_own_same_cell": N_("%(kind)s needs two different cells"),
    "target_not_playing": N_("%(name)s is not playing this round"),
    "line_all_face_up": N_("%(line)s of %(name)s's grid has no face-down card"),
    "swap_player_self": N_("swap with a player needs another player; for your own grid use %(kind)s"),
    "own_cell_removed": N_("your %(cell)s has been removed"),
    "their_cell_removed": N_("%(name)s's %(cell)s has been removed"),
    "thief_self": N_("the thief steals from another player"),
    "target_holds_no_card": N_("%(name)s holds no %(card)s card"),
    "no_cards_to_draw": N_("there are no cards to draw"),
    "not_on_action_discard": N_("there is no %(card)s on the action discard pile"),
    "reactivate_which": N_("say which card to reactivate, like: %(like)s"),
    # - answers to decisions owed (effects.py, A6, A7, A9.6, A9.9)
    "star_take_or_decline": N_("you turned up a star: take an action card (%(moves)s) or %(decline)s"),
    "star_set_complete": N_("your star set in %(line)s is complete: %(keep)s it or %(remove)s it"),
    "attacked": N_("%(name)s attacks you with %(card)s: say %(block)s (discarding your Defense) or %(allow)s"),
    "meteor_choose": N_("a meteor shower: choose one of your grid cards to replace, like %(like)s"),
    "meteor_choose_or_block": N_("a meteor shower: choose one of your grid cards to replace, like %(like)s, or %(block)s"),
    "no_defense": N_("you hold no Defense card to block with"),
    # - a move's text (moves.py)
    "action_empty_move": N_("empty move: say e.g. %(moves)s"),
    "action_unknown_move": N_("unknown move %(word)r: say e.g. %(moves)s"),
    "name_a_card": N_("name an action card: %(cards)s"),
    "name_card_to_steal": N_("name the card to steal, like: %(like)s: %(cards)s"),
    "not_an_action_card": N_("%(word)r is not an action card: %(cards)s"),
    "unexpected_after_move": N_("unexpected %(text)r after %(move)s"),
    "unexpected_after_cells": N_("unexpected %(text)r after the two cells"),
    "unexpected_after_insight": N_("unexpected %(text)r after the insight target"),
    "unexpected_after_swap": N_("unexpected %(text)r after the swap"),
    "unexpected_after_steal": N_("unexpected %(text)r after the card to steal"),
    "unexpected_after_row_place": N_("unexpected %(text)r after the row place"),
    "unexpected_after_discard": N_("unexpected %(text)r after the card to discard"),
    "unexpected_after_pick": N_("unexpected %(text)r after the pick"),
    "unexpected_after_meteor_cell": N_("unexpected %(text)r after the meteor cell"),
    "move_needs_cell": N_("%(kind)s needs a cell, like B2"),
    "swap_own_second_cell": N_("%(kind)s needs two cells; it needs a cell, like B2"),
    "swap_player_their_cell": N_("%(kind)s needs the other player's cell; it needs a cell, like B2"),
    "needs_a_player": N_("%(kind)s needs a player: a name, %(seats)s or %(me)s"),
    "no_seat_number": N_("there is no seat %(seat)s (seats are 0-%(last)s)"),
    "not_a_player": N_("%(text)r is not a player here; name one of %(names)s, or say %(seats)s or %(me)s"),
    "ambiguous_player": N_("more than one player is called %(text)r; say %(a)s or %(b)s"),
    "insight_needs_line": N_("%(kind)s needs a row or column, like: %(like)s"),
    "not_a_row": N_("%(text)r is not a row: rows are 1-3"),
    "not_a_column": N_("%(text)r is not a column: columns are A-D"),
    "action_row_places": N_("the action row has places 1-4, like: %(like)s"),
    "take_action_how": N_("take an action card with: %(row)s, or %(deck)s"),
    "reactivate_name": N_("name the card to reactivate from the action discard pile, like: %(like)s"),
    "reactivate_reactivation": N_("Reactivation cannot reactivate another Reactivation"),
    "pick_how": N_("say %(pick)s and a cell (%(like)s), or %(none)s"),
}
