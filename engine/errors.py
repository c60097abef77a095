"""Errors the engine raises. All are ValueError subclasses whose message a player can read."""

from __future__ import annotations

from typing import Any, Self


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input.

    The engine speaks no language but English: a refusal a player reads carries a `code` and its
    `params` (`IllegalMove.of("not_your_turn", who="Ann")`) besides the English text (`str(exc)`,
    from `TEXTS`), so the service can say it in the player's language (service/refusals.py). A
    param may itself be an EngineError (a plan's step wraps the refusal of its move). Errors no
    player reads (records, saved state) have the code "other"."""

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
    return TEXTS[code].format(**{k: str(v) for k, v in params.items()})


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
}
