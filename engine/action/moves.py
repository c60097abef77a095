"""SKYJO Action moves: value objects with the text players type in mails, and their parser.

The grammar is a superset of classic's (`reveal B2`, `draw`, `take`, `swap C1`, `flip D3` parse as in
classic games). New moves, case-insensitive, extra spaces allowed:

    action row 2 | action deck                 take an action card (A4 b; also after a star, A7)
    decline                                    do not take an action card after a star (A7)
    play swap-own A1 C3                        A9.1
    play double-move                           A9.2
    play draw-three   then  pick 2 C3 | pick none   A9.3
    play insight column B of Bo | play insight row 2 of me     A9.4
    play reactivation <card and its targets>   A9.5, e.g. play reactivation swap-own A1 C3
    play defense                               A9.6: an extra turn
    play swap-with-player A1 with Bo C3        A9.7: my A1 for Bo's C3
    play thief from Bo double-move             A9.8
    play meteor-shower                         A9.9
    discard action defense                     A4 c: discard a held card without effect
    block | allow                              when attacked while holding Defense (A9.6)
    meteor B2                                  a Meteor shower target's choice (A9.9)
    keep | remove                              a star set (A6)

Players are named by name (any case), `seat N` (0-based, as in records) or `me`. Card names take
spaces or hyphens (`swap own`, `double move`, `draw three`, `meteor shower`, `swap with player`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import MoveParseError
from ..moves import CELL_NAMES, COLUMN_NAMES, Move, parse_cell, parse_move
from .rules import (
    ACTION_KINDS,
    DEFENSE,
    DOUBLE_MOVE,
    DRAW_THREE,
    INSIGHT,
    METEOR,
    REACTIVATION,
    SWAP_OWN,
    SWAP_PLAYER,
    THIEF,
)

# Move kinds
ACTION_ROW, ACTION_DECK, PLAY, DISCARD_ACTION = "action_row", "action_deck", "play", "discard_action"
BLOCK, ALLOW, METEOR_CELL, KEEP, REMOVE, DECLINE, PICK, PICK_NONE, PASS = (
    "block",
    "allow",
    "meteor",
    "keep",
    "remove",
    "decline",
    "pick",
    "pick_none",
    "pass",
)

SELF = -1  # target "me" before the game binds it to the mover's seat

_CARD_ALIASES: dict[str, str] = {k: k for k in ACTION_KINDS}
_CARD_ALIASES.update(
    {
        "swapown": SWAP_OWN,
        "own-swap": SWAP_OWN,
        "double": DOUBLE_MOVE,
        "doublemove": DOUBLE_MOVE,
        "double-turn": DOUBLE_MOVE,
        "draw3": DRAW_THREE,
        "drawthree": DRAW_THREE,
        "draw-3": DRAW_THREE,
        "peek": INSIGHT,
        "reactivate": REACTIVATION,
        "defence": DEFENSE,
        "swap-player": SWAP_PLAYER,
        "swapwithplayer": SWAP_PLAYER,
        "swap-with": SWAP_PLAYER,
        "meteor": METEOR,
        "meteorshower": METEOR,
        "meteor-rain": METEOR,
        "steal": THIEF,
    }
)
_PHRASES = [
    (re.compile(r"\bswap with (?:a |another )?player\b"), "swap-with-player"),
    (re.compile(r"\bswap own\b"), "swap-own"),
    (re.compile(r"\bdouble (?:move|turn)\b"), "double-move"),
    (re.compile(r"\bdraw (?:three|3)\b"), "draw-three"),
    (re.compile(r"\bmeteor (?:shower|rain)\b"), "meteor-shower"),
]
_SPACES = re.compile(r"\s+")
_SELF_WORDS = frozenset({"me", "my", "mine", "myself", "own"})
RESERVED = frozenset(
    {
        "of",
        "in",
        "from",
        "with",
        "and",
        "on",
        "row",
        "column",
        "col",
        "seat",
        "me",
        "my",
        "mine",
        "myself",
        "own",
        "none",
        "to",
        "swap",
    }
) | frozenset(_CARD_ALIASES)

# the moves a refusal of an empty or unknown move names (the `moves` of `action_empty_move`)
EXAMPLES = (
    "draw, take, swap C1, flip D3, action row 2, action deck, play swap-own A1 C3, "
    "play insight column B of Bo, discard action defense, block, allow, meteor B2, keep, remove, "
    "decline, pick 2 C3"
)
CARDS = ", ".join(ACTION_KINDS)  # the cards' ids, as a player types them
SEATS = {"seats": "seat 0-7", "me": "me"}  # how a refusal says a player may be named


@dataclass(frozen=True, slots=True)
class ActionMove:
    """One SKYJO Action decision. Fields by kind:

    action_row: index (slot 0-3) · play/discard_action: card · play swap-own: cells (a, b) ·
    play insight: target, line ("row"/"column"), index · play swap-with-player: cells (mine, theirs),
    target · play thief: target, steal · via: played through Reactivation · meteor: cells (c,) ·
    pick: index (0-2), cells (c,)."""

    kind: str
    card: str | None = None
    cells: tuple[int, ...] = ()
    target: int | None = None
    line: str | None = None
    index: int | None = None
    steal: str | None = None
    via: bool = False
    who: str | None = field(default=None, compare=False)  # the target as written in the text

    def text(self) -> str:
        k = self.kind
        if k == ACTION_ROW:
            assert self.index is not None
            return f"action row {self.index + 1}"
        if k == ACTION_DECK:
            return "action deck"
        if k == METEOR_CELL:
            return f"meteor {CELL_NAMES[self.cells[0]]}"
        if k == PICK:
            assert self.index is not None
            return f"pick {self.index + 1} {CELL_NAMES[self.cells[0]]}"
        if k == PICK_NONE:
            return "pick none"
        if k == DISCARD_ACTION:
            return f"discard action {self.card}"
        if k != PLAY:
            return k
        who = self.who or ("me" if self.target == SELF else f"seat {self.target}")
        head = "play reactivation " if self.via else "play "
        card = self.card
        if card == SWAP_OWN:
            return f"{head}{card} {CELL_NAMES[self.cells[0]]} {CELL_NAMES[self.cells[1]]}"
        if card == INSIGHT:
            assert self.index is not None
            label = COLUMN_NAMES[self.index] if self.line == "column" else str(self.index + 1)
            return f"{head}{card} {self.line} {label} of {who}"
        if card == SWAP_PLAYER:
            return f"{head}{card} {CELL_NAMES[self.cells[0]]} with {who} {CELL_NAMES[self.cells[1]]}"
        if card == THIEF:
            return f"{head}{card} from {who} {self.steal}"
        return f"{head}{card}"

    def __str__(self) -> str:
        return self.text()


def _card(word: str | None, missing: str = "name_a_card", **params: str) -> str:
    """The card `word` names; `missing`: the refusal's code when there is no word."""
    if word is None:
        raise MoveParseError.of(missing, cards=CARDS, **params)
    try:
        return _CARD_ALIASES[word]
    except KeyError:
        raise MoveParseError.of("not_an_action_card", word=word, cards=CARDS) from None


class _Words:
    def __init__(self, words: list[str], names: list[str]) -> None:
        self.w = words
        self.i = 0
        self.names = names

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.w[j] if j < len(self.w) else None

    def next(self) -> str | None:
        w = self.peek()
        if w is not None:
            self.i += 1
        return w

    def skip(self, *words: str) -> None:
        while self.peek() in words:
            self.i += 1

    def done(self, code: str, **params: str) -> None:
        """Nothing may follow; else the refusal `code` (`unexpected_after_...`) with the rest as `text`."""
        if self.i < len(self.w):
            raise MoveParseError.of(code, text=" ".join(self.w[self.i :]), **params)

    def cell(self, kind: str, code: str = "move_needs_cell") -> int:
        """A cell of the move `kind`; `code`: the refusal when there is none."""
        w = self.next()
        if w is None:
            raise MoveParseError.of(code, kind=kind)
        return parse_cell(w)

    def seat(self, kind: str) -> tuple[int, str | None]:
        """A player: a name, `seat N`, `#N`, `N` or `me`. Returns (seat or SELF, written form)."""
        w = self.peek()
        if w is None:
            raise MoveParseError.of("needs_a_player", kind=kind, **SEATS)
        if w in _SELF_WORDS:
            self.i += 1
            return SELF, None
        num = None
        after = self.peek(1)
        if w == "seat" and after is not None and after.isdigit():
            num = self.peek(1)
            self.i += 2
        elif w.startswith("#") and w[1:].isdigit():
            num = w[1:]
            self.i += 1
        elif w.isdigit():
            num = w
            self.i += 1
        if num is not None:
            seat = int(num)
            if not 0 <= seat < len(self.names):
                raise MoveParseError.of("no_seat_number", seat=seat, last=len(self.names) - 1)
            return seat, None
        matches: list[tuple[int, int]] = []
        for s, name in enumerate(self.names):
            toks = name.lower().split()
            if toks and self.w[self.i : self.i + len(toks)] == toks:
                matches.append((len(toks), s))
        if not matches:
            raise MoveParseError.of("not_a_player", text=w, names=", ".join(self.names), **SEATS)
        best = max(k for k, _ in matches)
        seats = [s for k, s in matches if k == best]
        if len(seats) > 1:
            raise MoveParseError.of("ambiguous_player", text=w, a=f"seat {seats[0]}", b=f"seat {seats[1]}")
        self.i += best
        return seats[0], None


def _play_args(ws: _Words, card: str, via: bool) -> ActionMove:
    if card == SWAP_OWN:
        a = ws.cell("swap-own")
        ws.skip("and", "with", "to")
        b = ws.cell("swap-own", "swap_own_second_cell")
        ws.done("unexpected_after_cells")
        return ActionMove(PLAY, card, (a, b), via=via)
    if card == INSIGHT:
        w = ws.next()
        if w in ("row", "column", "col"):
            line = "row" if w == "row" else "column"
            w = ws.next()
        else:
            line = "row" if w is not None and w.isdigit() else "column"
        if w is None:
            raise MoveParseError.of("insight_needs_line", kind="insight", like="play insight column B of Bo")
        if line == "row":
            if w not in ("1", "2", "3"):
                raise MoveParseError.of("not_a_row", text=w)
            index = int(w) - 1
        else:
            if w.upper() not in COLUMN_NAMES or len(w) != 1:
                raise MoveParseError.of("not_a_column", text=w)
            index = COLUMN_NAMES.index(w.upper())
        ws.skip("of", "in", "from")
        target = SELF
        if ws.peek() is not None:
            target, _ = ws.seat("insight")
        ws.done("unexpected_after_insight")
        return ActionMove(PLAY, card, target=target, line=line, index=index, via=via)
    if card == SWAP_PLAYER:
        a = ws.cell("swap-with-player")
        ws.skip("with", "and", "for", "of")
        target, _ = ws.seat("swap-with-player")
        ws.skip("'s", "at", "on")
        b = ws.cell("swap-with-player", "swap_player_their_cell")
        ws.done("unexpected_after_swap")
        return ActionMove(PLAY, card, (a, b), target=target, via=via)
    if card == THIEF:
        ws.skip("from", "of")
        target, _ = ws.seat("thief")
        ws.skip("the", "their", "a", "card")
        steal = _card(ws.next(), "name_card_to_steal", like="play thief from Bo double-move")
        ws.done("unexpected_after_steal")
        return ActionMove(PLAY, card, target=target, steal=steal, via=via)
    ws.done("unexpected_after_move", move=card)
    return ActionMove(PLAY, card, via=via)


def parse_action_move(text: str, names: list[str]) -> Move | ActionMove:
    """Parse any move of a SKYJO Action game (classic moves included). Raises MoveParseError."""
    if not isinstance(text, str):
        raise MoveParseError.of("move_not_text")
    t = _SPACES.sub(" ", text.strip().lower())
    for pattern, repl in _PHRASES:
        t = pattern.sub(repl, t)
    words = t.split(" ") if t else []
    if not words:
        raise MoveParseError.of("action_empty_move", moves=EXAMPLES)
    ws = _Words(words, names)
    first = ws.next()
    if first == "action":
        w = ws.next()
        if w == "row" or (w is not None and w.isdigit()):
            n = ws.next() if w == "row" else w
            if n not in ("1", "2", "3", "4"):
                raise MoveParseError.of("action_row_places", like="action row 2")
            ws.done("unexpected_after_row_place")
            return ActionMove(ACTION_ROW, index=int(n) - 1)
        if w == "deck":
            ws.done("unexpected_after_move", move="action deck")
            return ActionMove(ACTION_DECK)
        raise MoveParseError.of("take_action_how", row="action row 1-4", deck="action deck")
    if first == "discard" and (ws.peek() == "action" or ws.peek() in _CARD_ALIASES):
        ws.skip("action", "card")
        card = _card(ws.next())
        ws.done("unexpected_after_discard")
        return ActionMove(DISCARD_ACTION, card)
    if first in _CARD_ALIASES and first not in ("meteor", "defense", "defence", "steal"):
        ws.i = 0  # "swap-own A1 C3" = "play swap-own A1 C3"
        first = "play"
    if first in ("play", "use"):
        card = _card(ws.next())
        via = False
        if card == REACTIVATION:
            if ws.peek() is None:
                raise MoveParseError.of("reactivate_name", like="play reactivation swap-own A1 C3")
            via = True
            card = _card(ws.next())
            if card == REACTIVATION:
                raise MoveParseError.of("reactivate_reactivation")
        return _play_args(ws, card, via)
    nxt = ws.peek()
    if first == "pick" or (
        first == "keep" and nxt is not None and (nxt.isdigit() or nxt in ("none", "nothing"))
    ):
        w = ws.next()
        if w in ("none", "nothing", "no"):
            ws.done("unexpected_after_move", move="pick none")
            return ActionMove(PICK_NONE)
        if w not in ("1", "2", "3"):
            raise MoveParseError.of("pick_how", pick="pick 1-3", like="pick 2 C3", none="pick none")
        ws.skip("on", "to", "at", "swap", "into")
        c = ws.cell("pick")
        ws.done("unexpected_after_pick")
        return ActionMove(PICK, cells=(c,), index=int(w) - 1)
    if first == "meteor" and ws.peek() is not None:
        ws.skip("on", "at")
        c = ws.cell("meteor")
        ws.done("unexpected_after_meteor_cell")
        return ActionMove(METEOR_CELL, cells=(c,))
    single = {
        "block": BLOCK,
        "defend": BLOCK,
        "allow": ALLOW,
        "accept": ALLOW,
        "keep": KEEP,
        "remove": REMOVE,
        "bank": REMOVE,
        "decline": DECLINE,
        "no": DECLINE,
        "skip": DECLINE,
        "pass": PASS,
    }
    if first in single:
        ws.skip("it", "thanks", "action", "the", "set")
        ws.done("unexpected_after_move", move=first)
        return ActionMove(single[first])
    try:
        return parse_move(text)
    except MoveParseError as exc:
        if exc.code == "unknown_move":
            raise MoveParseError.of("action_unknown_move", word=first, moves=EXAMPLES) from None
        raise
