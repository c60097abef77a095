"""Errors the engine raises. All are ValueError subclasses whose message a player can read."""

from __future__ import annotations

from typing import Any, Self


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input.

    The engine speaks no language but English: a refusal a player reads carries a `code` and its
    `params` (`IllegalMove.of("not_your_turn", who="Ann")`) besides the English text (`str(exc)`,
    from `TEXTS`), so the service can say it in the player's language (service/refusals.py). A
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
    return TEXTS[code].format(**{k: _english_param(v) for k, v in params.items()})


def _english_param(value: Any) -> str:
    """A param as the English text shows it: a list of refusals one after another ("; "), anything
    else as str() (an action card's title is filled in by `engine.action.phases.card_refusal`)."""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return str(value)


# The English text of every refusal code (str.format fields). service/refusals.py has each one's
# translation, and a test checks that both agree in English and that no code is missing there.
TEXTS: dict[str, str] = {
    # the classic game (engine/game.py)
    "no_such_seat": "there is no seat {seat} in this game",
    "game_over": "the game is over",
    "closer_no_turn": "you closed the round: everyone else plays once more, you do not; it is {who}'s turn",
    "not_your_turn": "it is {who}'s turn, not yours",
    "not_in_round": "you are not playing in this round",
    "opening_done": "you have revealed your two cards; wait for the others",
    "tie_reveal_only": "only the players tied for the start reveal another card now",
    "reveal_first": "first reveal your cards: say reveal and a cell, like reveal B2",
    "face_up": "{cell} is already face-up",
    "removed": "{cell} has been removed",
    "card_in_hand": "you already have a card in hand: swap it into your grid",
    "card_in_hand_drawn": "you already have a card in hand: swap it into your grid or discard it and flip a card",
    "draw_pile_empty": "the draw pile is empty; take the discard top",
    "opening_over": "the opening is over: draw, take, swap or flip",
    "draw_first": "first draw from the draw pile or take the discard top",
    "must_swap_taken": "you must place the card you took from the discard pile: swap it",
    # a move's text (engine/moves.py)
    "not_a_cell": "{text!r} is not a cell: use a column A-D and a row 1-3, like B2",
    "move_not_text": "a move must be text",
    "empty_move": "empty move: say reveal B2, draw, take, swap C1 or flip D3",
    "unknown_move": "unknown move {word!r}: say reveal B2, draw, take, swap C1 or flip D3",
    "needs_cell": "{kind} needs one cell, like '{kind} B2'",
    "takes_no_cell": "{kind} takes no cell; say just '{kind}'",
    # whole-turn plans (engine/plans/)
    "between_empty": "'between {lo} and {hi}' is empty: put the smaller number first",
    "condition_unknown": "I don't understand the condition {text!r}: {help}",
    "not_a_move": "{text!r} is not a move ({why})",
    "move_missing": "a move is missing",
    "ambiguous_moves": "{text!r} can be read as '{a}' or as '{b}': separate the moves with commas",
    "unreadable_moves": "I can't read {text!r} as moves",
    "plan_not_text": "a plan must be text",
    "plan_too_long": "that is too long for one turn ({length} characters; at most {limit})",
    "no_move_found": "no move found: say e.g. 'draw swap B2' or 'take swap C1'",
    "after_conditions": "{text!r} follows the conditions: start it with 'if …' or 'else', or put it before the conditions",
    "else_last": "nothing may follow the 'else' part: it must come last",
    "condition_needs_draw": "a condition needs a card to test: start with 'draw', e.g. 'draw: if 4 or less swap B2, else flip C3'",
    "else_without_if": "'else' without an 'if' before it",
    "else_needs_move": "'else' needs a move, e.g. 'else flip C3'",
    "if_needs_condition": "'if' needs a condition and a move, e.g. 'if 4 or less swap B2'; {help}",
    "if_needs_move": "'if {text}' needs a move after the condition, e.g. 'if 4 or less swap B2'",
    "if_ambiguous": "'if {text}' can be read in more than one way: put 'then' between the condition and the move",
    "if_condition_unknown": "I don't understand the condition in 'if {text}': {help}",
    "plan_uncovered": "your plan does not say what to do with every card you may draw: add an 'else' part",
    "step_no_decision": "{label}move {step} ({move}): you have no decision to make at this point",
    "step_no_decision_over": "{label}move {step} ({move}): you have no decision to make at this point (the game is over)",
    "step_refused": "{label}move {step} ({move}): {reason}",
    "no_drawn_card": "you hold no drawn card to test the conditions on",
    "plan_not_your_turn": "it is not your turn: you have no decision to make now",
    "must_end_with": "{label}move {step} ({move}): your reply must end with '{last}': it turns up a card you had not seen, and what may follow depends on it. Send the next moves in another reply, after you have seen the result",
    "conditions_follow_draw": "conditions test the card you draw, so they must follow 'draw', e.g. 'draw: if 4 or less swap B2, else flip C3'",
    "else_never": "the 'else' part can never apply: the conditions before it cover every card",
    "no_card_is": "no card is {condition} (cards go from {span})",
    "if_never": "'if {condition}' can never apply: the conditions before it already cover those cards",
    "uncovered_cards": "what if you draw {cards}? add an 'else' part, e.g. ', else flip C3'",
    # SKYJO Action (engine/action/): a `card` is an action card's id, shown by its title; `line` is
    # `column B` or `row 2`; a command the player may type (`like`, `moves`, `cards`, `pick`, `keep`,
    # ...) is a param, so the service can show it in the reader's words
    # - a move and whose decision it is (turn.py)
    "action_not_a_move": "that is not a move",
    "waiting_for": "waiting for {owed}",
    "owes_star_trigger": "{who} to take an action card for the star ({moves}) or decline",
    "owes_star_set": "{who} to keep or remove the star set in {line}",
    "owes_defense": "{who} to block or allow the {card}",
    "owes_meteor": "{who} to choose a card for the meteor shower ({like})",
    # - the turn seat's moves (turn.py, A4, A9.3)
    "action_row_place_empty": "place {n} of the action row is empty",
    "action_decks_empty": "the action deck and its discard pile are empty",
    "pick_one_of_three": "choose one of the three cards: {pick} and a cell ({like}), or {none}",
    "holding_card": "you have a card in hand: swap it into your grid",
    "holding_drawn_card": "you have a card in hand: swap it into your grid or discard it and flip a card",
    "action_opening_over": "the opening is over: draw, take, take an action card or play one",
    "no_grid_cards": "you have no grid cards left: take or play an action card, or pass",
    "discard_pile_empty": "the discard pile is empty",
    "card_not_held": "you hold no {card} card",
    "card_taken_this_turn": "you took that {card} this turn; play it on a later turn",
    "pass_only_when_stuck": "you may pass only when you have no other move",
    "nothing_to_pick": "there are no drawn three cards to pick from",
    "not_asked": "nobody asked you to {move}: it is your turn - draw, take, take an action card ({like}) or play one",
    "pick_range": "you drew {n} cards: {pick}",
    # - playing a card and its targets (effects.py, A9)
    "swap_own_same_cell": "{kind} needs two different cells",
    "target_not_playing": "{name} is not playing this round",
    "line_all_face_up": "{line} of {name}'s grid has no face-down card",
    "swap_player_self": "swap with a player needs another player; for your own grid use {kind}",
    "own_cell_removed": "your {cell} has been removed",
    "their_cell_removed": "{name}'s {cell} has been removed",
    "thief_self": "the thief steals from another player",
    "target_holds_no_card": "{name} holds no {card} card",
    "no_cards_to_draw": "there are no cards to draw",
    "not_on_action_discard": "there is no {card} on the action discard pile",
    "reactivate_which": "say which card to reactivate, like: {like}",
    # - answers to decisions owed (effects.py, A6, A7, A9.6, A9.9)
    "star_take_or_decline": "you turned up a star: take an action card ({moves}) or {decline}",
    "star_set_complete": "your star set in {line} is complete: {keep} it or {remove} it",
    "attacked": "{name} attacks you with {card}: say {block} (discarding your Defense) or {allow}",
    "meteor_choose": "a meteor shower: choose one of your grid cards to replace, like {like}",
    "meteor_choose_or_block": "a meteor shower: choose one of your grid cards to replace, like {like}, or {block}",
    "no_defense": "you hold no Defense card to block with",
    # - a move's text (moves.py)
    "action_empty_move": "empty move: say e.g. {moves}",
    "action_unknown_move": "unknown move {word!r}: say e.g. {moves}",
    "name_a_card": "name an action card: {cards}",
    "name_card_to_steal": "name the card to steal, like: {like}: {cards}",
    "not_an_action_card": "{word!r} is not an action card: {cards}",
    "unexpected_after_move": "unexpected {text!r} after {move}",
    "unexpected_after_cells": "unexpected {text!r} after the two cells",
    "unexpected_after_insight": "unexpected {text!r} after the insight target",
    "unexpected_after_swap": "unexpected {text!r} after the swap",
    "unexpected_after_steal": "unexpected {text!r} after the card to steal",
    "unexpected_after_row_place": "unexpected {text!r} after the row place",
    "unexpected_after_discard": "unexpected {text!r} after the card to discard",
    "unexpected_after_pick": "unexpected {text!r} after the pick",
    "unexpected_after_meteor_cell": "unexpected {text!r} after the meteor cell",
    "move_needs_cell": "{kind} needs a cell, like B2",
    "swap_own_second_cell": "{kind} needs two cells; it needs a cell, like B2",
    "swap_player_their_cell": "{kind} needs the other player's cell; it needs a cell, like B2",
    "needs_a_player": "{kind} needs a player: a name, {seats} or {me}",
    "no_seat_number": "there is no seat {seat} (seats are 0-{last})",
    "not_a_player": "{text!r} is not a player here; name one of {names}, or say {seats} or {me}",
    "ambiguous_player": "more than one player is called {text!r}; say {a} or {b}",
    "insight_needs_line": "{kind} needs a row or column, like: {like}",
    "not_a_row": "{text!r} is not a row: rows are 1-3",
    "not_a_column": "{text!r} is not a column: columns are A-D",
    "action_row_places": "the action row has places 1-4, like: {like}",
    "take_action_how": "take an action card with: {row}, or {deck}",
    "reactivate_name": "name the card to reactivate from the action discard pile, like: {like}",
    "reactivate_reactivation": "Reactivation cannot reactivate another Reactivation",
    "pick_how": "say {pick} and a cell ({like}), or {none}",
}
