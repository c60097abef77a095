"""Moves: small immutable values with the text form players type in mails (C7, RULES.md cells).

Cells are named by column letter A-D and row number 1-3; index = row * 4 + column, so the order
A1 B1 C1 D1 A2 ... D3 is index 0..11. Internally a classic move is also an int code
(`kind << 4 | cell`) so the hot path never builds objects; `MOVE_BY_CODE` maps codes to the shared,
prebuilt `Move` values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import cast

from .errors import MoveParseError

CELL_NAMES: tuple[str, ...] = tuple(f"{c}{r}" for r in "123" for c in "ABCD")
CELL_INDEX: dict[str, int] = {name: i for i, name in enumerate(CELL_NAMES)}
COLUMN_NAMES = "ABCD"

# Kind codes of classic moves.
REVEAL, DRAW, TAKE, SWAP, FLIP = 0, 1, 2, 3, 4
KIND_NAMES: tuple[str, ...] = ("reveal", "draw", "take", "swap", "flip")
KIND_CODES: dict[str, int] = {k: i for i, k in enumerate(KIND_NAMES)}
_WITH_CELL = frozenset({REVEAL, SWAP, FLIP})


def cell_name(index: int) -> str:
    return CELL_NAMES[index]


def parse_cell(text: str) -> int:
    """`B2` / `b2` / `2B` -> index. Raises MoveParseError."""
    t = text.strip().upper()
    if len(t) == 2 and t[0].isdigit() and t[1].isalpha():
        t = t[1] + t[0]
    try:
        return CELL_INDEX[t]
    except KeyError:
        raise MoveParseError.of("not_a_cell", text=text.strip().upper()) from None


@dataclass(frozen=True, slots=True)
class Move:
    """One decision. `kind` is a move name, `cell` a cell index or None; `code` is its int code
    (`kind << 4 | cell`), worked out once when the move is made: the hot path only reads it."""

    kind: str
    cell: int | None = None
    code: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", KIND_CODES[self.kind] << 4 | (self.cell or 0))

    def text(self) -> str:
        return self.kind if self.cell is None else f"{self.kind} {CELL_NAMES[self.cell]}"

    def __str__(self) -> str:
        return self.text()

    @classmethod
    def from_code(cls, code: int) -> Move:
        return MOVE_BY_CODE[code]


MOVE_BY_CODE: dict[int, Move] = {}
for _k, _name in enumerate(KIND_NAMES):
    if _k in _WITH_CELL:
        for _c in range(12):
            MOVE_BY_CODE[_k << 4 | _c] = Move(_name, _c)
    else:
        MOVE_BY_CODE[_k << 4] = Move(_name)

# The two alphabets a classic move is written in, both indexed by its code: the code itself and the
# shared `Move` value (None where no move has that code). Rules that list moves are written once
# against an alphabet (`engine.game.Game._legal`), so listing `Move`s needs no mapping pass.
CODES: tuple[int, ...] = tuple(range(FLIP << 4 | 16))
MOVES = cast(tuple[Move, ...], tuple(MOVE_BY_CODE.get(code) for code in CODES))

# "<seat>: <move>" strings of the game record, per seat indexed by code, prebuilt so the hot path
# only looks them up.
SEAT_MOVE_TEXT: list[list[str]] = [
    [f"{seat}: {MOVES[code].text()}" if code in MOVE_BY_CODE else "" for code in CODES] for seat in range(8)
]

_SPACES = re.compile(r"\s+")
_SYNONYMS = {"turn": "flip", "discard": "flip", "replace": "swap", "place": "swap", "open": "reveal"}


def parse_move(text: str) -> Move:
    """Parse a classic move's text form, case-insensitive: `reveal B2`, `draw`, `take`, `swap C1`,
    `flip D3`. Raises MoveParseError with a readable message."""
    if not isinstance(text, str):
        raise MoveParseError.of("move_not_text")
    words = _SPACES.split(text.strip().lower())
    if not words or not words[0]:
        raise MoveParseError.of("empty_move")
    kind = _SYNONYMS.get(words[0], words[0])
    if kind not in KIND_CODES:
        raise MoveParseError.of("unknown_move", word=words[0])
    code = KIND_CODES[kind]
    if code in _WITH_CELL:
        if len(words) != 2:
            raise MoveParseError.of("needs_cell", kind=kind)
        return MOVE_BY_CODE[code << 4 | parse_cell(words[1])]
    if len(words) != 1:
        raise MoveParseError.of("takes_no_cell", kind=kind)
    return MOVE_BY_CODE[code << 4]
