"""The words the game state is made of, shared by every layer of the engine.

Cell faces (C3 face-down deal, C7 face-up cards, C8 removed columns), the phases of a round (C4
opening reveal, C5 tie reveal, C7-C9 play, C12 game over), the two stages of a turn (C7: the turn
itself, then placing the drawn or taken card) and `Pending`, the answer to "who owes which decision
now" (RULES.md, decisions made out of turn). This module imports nothing of the engine, so the state,
record, view and bot modules can use these names without depending on `engine.game`.
"""

from __future__ import annotations

from typing import Any

DOWN, UP, GONE = 0, 1, 2
OPENING, TIE_REVEAL, PLAY, OVER = "opening", "tie_reveal", "play", "game_over"
STAGE_TURN, STAGE_DRAWN, STAGE_TAKEN = 0, 1, 2
STAGE_KINDS = ("turn", "place_drawn", "place_taken")
OPENING_REVEALS = 2  # C4


class Pending(tuple[int, str]):
    """(seat, kind): `seat` owes a decision of `kind` (reveal, tie_reveal, turn, place_drawn,
    place_taken)."""

    __slots__ = ()

    def __new__(cls, seat: int, kind: str) -> Pending:
        return tuple.__new__(cls, (seat, kind))

    @property
    def seat(self) -> int:
        return self[0]

    @property
    def kind(self) -> str:
        return self[1]

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self[0], "kind": self[1]}


def swap_event(seat: int, cell: str, value: Any, discarded: Any, stage: int) -> dict[str, Any]:
    """The public `swap` event (C6, A4): the held card put on `cell`, the card that lay there
    discarded; `from` tells a drawn card from the discard pile's."""
    return {"type": "swap", "seat": seat, "cell": cell, "value": value, "discarded": discarded,
            "from": "draw" if stage == STAGE_DRAWN else "discard"}
