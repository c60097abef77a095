"""Reading a reply's command text into a Plan: the grammar of a whole turn in one message.

The grammar is in `engine.plans`' docstring. Text is cut at separators (`,` `;` `:` newlines) and
before `if`/`else`; a run of words is split into moves by asking the variant's own move parser
(`Game.parse_move`, so classic moves, C7, and SKYJO Action's, A4/A9, both work), and must read in
exactly one way. `parse_plan` reads and then checks the plan against the state (`engine.plans.plan`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import MoveParseError
from ..game import Game
from .conditions import CONDITION_HELP, clean, condition_of, split_words
from .plan import Branch, Plan, check_branches, validate_plan

MAX_PLAN_CHARS = 600
MAX_MOVE_WORDS = 12
_KEYWORDS = frozenset({"if", "when", "else", "otherwise", "elif"})
_JOINERS = frozenset({"then", "and"})
_SEPARATORS = re.compile(r"[,;:\n]")


def _split_keywords(words: list[str]) -> list[list[str]]:
    """Split a separator-free run of words before each if/else keyword (`else if` stays one)."""
    out: list[list[str]] = [[]]
    for w in words:
        lw = w.lower()
        if (
            lw in _KEYWORDS
            and out[-1]
            and not (lw == "if" and out[-1][-1].lower() == "else" and len(out[-1]) == 1)
        ):
            out.append([])
        out[-1].append(w)
    return [p for p in out if p]


class _Segmenter:
    """Splits a run of words into moves by asking the variant's own parser (memoised)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.cache: dict[str, Any] = {}

    def parse(self, text: str) -> Any:
        if text not in self.cache:
            try:
                self.cache[text] = self.game.parse_move(text)
            except MoveParseError as e:
                self.cache[text] = e
            except (ValueError, TypeError, KeyError, IndexError) as e:  # a variant parser's slip
                self.cache[text] = MoveParseError.of("not_a_move", text=text, why=e)
        return self.cache[text]

    def moves(self, words: list[str]) -> tuple[Any, ...]:
        """Exactly one way to read `words` as moves, or MoveParseError."""
        n = len(words)
        if n == 0:
            raise MoveParseError.of("move_missing")
        # ways[i] = list of move sequences reading words[i:] (at most 2 kept: we need uniqueness)
        ways: list[list[tuple[Any, ...]]] = [[] for _ in range(n + 1)]
        ways[n] = [()]
        for i in range(n - 1, -1, -1):
            if words[i].lower() in _JOINERS:
                continue
            found: list[tuple[Any, ...]] = []
            for j in range(i + 1, min(n, i + MAX_MOVE_WORDS) + 1):
                nxt = j
                while nxt < n and words[nxt].lower() in _JOINERS:
                    nxt += 1
                if nxt == n and nxt != j:
                    continue  # `draw then`: a joiner must join two moves
                if not ways[nxt]:
                    continue
                m = self.parse(" ".join(words[i:j]))
                if isinstance(m, MoveParseError):
                    continue
                found.extend((m, *rest) for rest in ways[nxt])
                if len(found) > 1:
                    break
            ways[i] = found[:2]
        if len(ways[0]) == 1:
            return ways[0][0]
        text = " ".join(words)
        if len(ways[0]) > 1:
            a, b = (", ".join(m.text() for m in w) for w in ways[0])
            raise MoveParseError.of("ambiguous_moves", text=text, a=a, b=b)
        raise self._why(words)

    def _why(self, words: list[str]) -> MoveParseError:
        """The most useful error for words that are no sequence of moves: parse from the furthest
        point that a readable prefix of moves reaches."""
        n = len(words)
        reach = {0}
        best = 0
        for i in range(n):
            if i not in reach:
                continue
            best = max(best, i)
            if words[i].lower() in _JOINERS and i > 0:
                reach.add(i + 1)
                continue
            for j in range(i + 1, min(n, i + MAX_MOVE_WORDS) + 1):
                if j < n and not isinstance(self.parse(" ".join(words[i:j])), MoveParseError):
                    reach.add(j)
        rest = " ".join(words[best:])
        err = self.parse(rest)
        if isinstance(err, MoveParseError):
            return err
        return MoveParseError.of("unreadable_moves", text=" ".join(words))


@dataclass
class _Clause:
    kind: str  # "moves" | "if" | "else"
    words: list[str]
    pending_moves: bool = False


def parse_plan(game: Game, seat: int, text: str) -> Plan:
    """Read a reply's command text as a Plan for `seat` and check it against what the seat sees
    (`validate_plan`, C13): every move of every branch must be legal where it would be played, as
    far as the seat's view decides it. Raises MoveParseError for text that does not read as a plan,
    IllegalMove for a plan the rules do not allow now; messages are for the player and name no
    hidden card. Nothing is applied."""
    plan = read_plan(game, text)
    validate_plan(game, seat, plan)
    return plan


def read_plan(game: Game, text: str) -> Plan:
    """The grammar alone (uses the state only to know the variant's moves and deck)."""
    if not isinstance(text, str):
        raise MoveParseError.of("plan_not_text")
    if len(text) > MAX_PLAN_CHARS:
        raise MoveParseError.of("plan_too_long", length=len(text), limit=MAX_PLAN_CHARS)
    seg = _Segmenter(game)
    parts = [split_words(p) for p in _SEPARATORS.split(clean(text))]
    clauses: list[_Clause] = []
    for part in parts:
        for words in _split_keywords(part):
            head = words[0].lower()
            if head in ("if", "when", "elif") or (
                head == "else" and len(words) > 1 and words[1].lower() == "if"
            ):
                body = words[2:] if head == "else" else words[1:]
                clauses.append(_Clause("if", body))
            elif head in ("else", "otherwise"):
                clauses.append(_Clause("else", words[1:]))
            else:
                if clauses:  # `draw, then swap B2`
                    while len(words) > 1 and words[0].lower() in _JOINERS:
                        words = words[1:]
                clauses.append(_Clause("moves", words))
    if not clauses:
        raise MoveParseError.of("no_move_found")
    # `if 4 or less, swap B2`: a condition alone takes the moves part that follows it
    merged: list[_Clause] = []
    for c in clauses:
        if c.kind == "moves" and merged and merged[-1].kind in ("if", "else") and merged[-1].pending_moves:
            merged[-1].words = merged[-1].words + c.words
            merged[-1].pending_moves = False
            continue
        c.pending_moves = c.kind == "if" and condition_of([w.lower() for w in c.words]) is not None
        if c.kind == "else" and not c.words:
            c.pending_moves = True
        merged.append(c)

    head_moves: list[Any] = []
    branches: list[Branch] = []
    seen_else = False
    for c in merged:
        if c.kind == "moves":
            if branches:
                raise MoveParseError.of("after_conditions", text=" ".join(c.words))
            head_moves.extend(seg.moves(c.words))
            continue
        if seen_else:
            raise MoveParseError.of("else_last")
        if not head_moves:
            raise MoveParseError.of("condition_needs_draw")
        if c.kind == "else":
            if not branches:
                raise MoveParseError.of("else_without_if")
            if not c.words:
                raise MoveParseError.of("else_needs_move")
            branches.append(Branch(None, seg.moves(c.words)))
            seen_else = True
        else:
            branches.append(_if_branch(seg, c.words))
    if not head_moves:
        raise MoveParseError.of("no_move_found")
    plan = Plan(tuple(head_moves), tuple(branches))
    if branches:
        check_branches(game, plan)
    return plan


def _if_branch(seg: _Segmenter, words: list[str]) -> Branch:
    lower = [w.lower() for w in words]
    if not words:
        raise MoveParseError.of("if_needs_condition", help=CONDITION_HELP)
    found: list[Branch] = []
    last_error: MoveParseError | None = None
    for k in range(1, len(words) + 1):
        cond = condition_of(lower[:k])
        if cond is None:
            continue
        rest = words[k:]
        if rest and rest[0].lower() in ("then", "do"):
            rest = rest[1:]
        if not rest:
            last_error = MoveParseError.of("if_needs_move", text=" ".join(words))
            continue
        try:
            found.append(Branch(cond, seg.moves(rest)))
        except MoveParseError as e:
            last_error = e
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise MoveParseError.of("if_ambiguous", text=" ".join(words))
    if last_error is not None:
        raise last_error
    raise MoveParseError.of("if_condition_unknown", text=" ".join(words), help=CONDITION_HELP)
