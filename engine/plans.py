"""A whole turn in one message: plans of moves with conditions on the drawn card (pure, no I/O).

Players who answer by mail write one reply per turn, so a reply may carry several moves and a
decision that depends on the card they are about to draw, which only the server sees:

    take swap B2                          take the discard top and put it on B2
    draw swap B2 / draw flip C3           draw, then place it / discard it and turn up C3
    draw: if 4 or less swap B2, else flip C3
    draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1
    reveal A1, reveal C3                  both opening reveals at once

Grammar (case-insensitive; newlines, `,` `;` `:` separate parts; `then` / `and` may separate moves):

    plan      := moves [conditions]
    moves     := move (sep move)*          each move is the variant's own text (Game.parse_move),
                                           so SKYJO Action moves work too
    conditions:= ("if" cond moves sep)+ ["else" moves]      only right after `draw`
    cond      := N or less | N or more | at most N | at least N | <= N | >= N | < N | > N
               | = N | is N | N | is not N | != N | between N and M | N to M | star | negative
               | positive           (N a whole number, -2 to 12; `it is`, `card is` may lead)

The first condition that matches the drawn card wins. An `else` is required unless the conditions
together cover every card of the game's deck; a condition that can never apply (nothing matches it,
or earlier ones catch everything it would) is an error. Every move of every branch is checked against
the current state before anything is applied, and `Plan.apply` is all-or-nothing.

No peeking: a plan ends with the move that turns up a card or places the drawn card (only classic's
opening reveals may follow each other), because what may follow could depend on the hidden value and
a refused plan would give it away.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import CLASSIC_COUNTS
from .errors import EngineError, IllegalMove, MoveParseError
from .game import Game

MAX_PLAN_CHARS = 600
MAX_MOVE_WORDS = 12
_KEYWORDS = frozenset({"if", "when", "else", "otherwise", "elif"})
_JOINERS = frozenset({"then", "and"})
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}
_SEPARATORS = re.compile(r"[,;:\n]")
_OPERATOR = re.compile(r"(<=|>=|=<|=>|==|!=|<>|[<>=≤≥≠])")

# Two lines for every turn mail and error answer (plain text; the mail layer may wrap them).
COMMAND_HELP = (
    "Reply with your move on the first line: draw swap B2 | draw flip C3 | take swap C1 | reveal A1.\n"
    "Decide on the card you draw: draw: if 4 or less swap B2, if 9 or more flip C3, else swap A1."
)

CONDITION_HELP = ("say e.g. 'if 4 or less', 'if 9 or more', 'if 5', 'if between 3 and 6', "
                  "'if < 3', 'if >= 10'")


# ---------------------------------------------------------------------------------- conditions
@dataclass(frozen=True, slots=True)
class Condition:
    """A test on the drawn card: a number range [lo, hi] (None = open end), optionally negated,
    or the star card (SKYJO Action). Stars never match a number range."""

    lo: int | None = None
    hi: int | None = None
    negate: bool = False
    star: bool = False

    def matches(self, card: Any) -> bool:
        if self.star:
            hit = card == "star"
        elif isinstance(card, bool) or not isinstance(card, int):
            hit = False
        else:
            hit = (self.lo is None or card >= self.lo) and (self.hi is None or card <= self.hi)
        return hit != self.negate

    def text(self) -> str:
        if self.star:
            return "not star" if self.negate else "star"
        lo, hi = self.lo, self.hi
        if lo is not None and lo == hi:
            body = f"{lo}"
            return f"not {body}" if self.negate else body
        if lo is None and hi is None:
            body = "any"
        elif lo is None:
            body = f"{hi} or less"
        elif hi is None:
            body = f"{lo} or more"
        else:
            body = f"between {lo} and {hi}"
        return f"not {body}" if self.negate else body

    def __str__(self) -> str:
        return self.text()


_N = r"(-?\d{1,3})"
_LEAD = r"(?:(?:it is|it's|its|the card is|card is|the card|card|value is|value|it) )?"
_IS = r"(?:is |it's |are )?"
_LESS = r"(?:less|lower|below|smaller|under|fewer)"
_MORE = r"(?:more|higher|above|greater|bigger|over|larger)"
_COND_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(_IS + r"(?:a )?stars?"), lambda m: Condition(star=True)),
    (re.compile(r"(?:is not|isn't|not|no) (?:a )?stars?"), lambda m: Condition(star=True, negate=True)),
    (re.compile(_IS + r"negative"), lambda m: Condition(hi=-1)),
    (re.compile(_IS + r"positive"), lambda m: Condition(lo=1)),
    (re.compile(_IS + _N + r" or " + _LESS), lambda m: Condition(hi=int(m[1]))),
    (re.compile(_IS + _N + r" or " + _MORE), lambda m: Condition(lo=int(m[1]))),
    (re.compile(_IS + r"(?:at most|max|maximum|no more than|not more than|up to) " + _N),
     lambda m: Condition(hi=int(m[1]))),
    (re.compile(_IS + r"(?:at least|min|minimum|no less than|not less than) " + _N),
     lambda m: Condition(lo=int(m[1]))),
    (re.compile(r"(?:is )?(?:<=|=<|≤) ?" + _N), lambda m: Condition(hi=int(m[1]))),
    (re.compile(r"(?:is )?(?:>=|=>|≥) ?" + _N), lambda m: Condition(lo=int(m[1]))),
    (re.compile(r"(?:is )?(?:<|" + _LESS + r" than|below|under) ?" + _N), lambda m: Condition(hi=int(m[1]) - 1)),
    (re.compile(r"(?:is )?(?:>|" + _MORE + r" than|above|over) ?" + _N), lambda m: Condition(lo=int(m[1]) + 1)),
    (re.compile(r"(?:is not|isn't|not|!=|<>|≠) ?" + _N), lambda m: Condition(int(m[1]), int(m[1]), negate=True)),
    (re.compile(r"(?:is |= ?|== ?|equals |is equal to |exactly |is exactly )?(?:a )?" + _N),
     lambda m: Condition(int(m[1]), int(m[1]))),
    (re.compile(_IS + r"(?:between|from) " + _N + r" (?:and|to) " + _N), lambda m: _range(m[1], m[2])),
    (re.compile(_IS + _N + r" ?(?:to|\.\.|through|thru) ?" + _N), lambda m: _range(m[1], m[2])),
]


def _range(a: str, b: str) -> Condition:
    lo, hi = int(a), int(b)
    if lo > hi:
        raise MoveParseError(f"'between {lo} and {hi}' is empty: put the smaller number first")
    return Condition(lo, hi)


def parse_condition(text: str) -> Condition:
    """`4 or less`, `>= 9`, `between 3 and 5`, `is 5`, `star` ... -> Condition. Raises MoveParseError."""
    words = _words(_clean(text))
    cond = _condition_of([w.lower() for w in words])
    if cond is None:
        raise MoveParseError(f"I don't understand the condition {text.strip()!r}: {CONDITION_HELP}")
    return cond


def _condition_of(words: Sequence[str]) -> Condition | None:
    t = " ".join(_NUMBER_WORDS.get(w, w) for w in words)
    t = re.sub(r"\bminus (\d)", r"-\1", t)
    t = re.sub(r"^" + _LEAD, "", t) or t
    for pattern, build in _COND_PATTERNS:
        m = pattern.fullmatch(t)
        if m:
            return build(m)
    return None


# ---------------------------------------------------------------------------------- plans
@dataclass(frozen=True, slots=True)
class Branch:
    """`if <condition> <moves>`, or `else <moves>` when condition is None."""

    condition: Condition | None
    moves: tuple[Any, ...]

    def text(self) -> str:
        moves = ", ".join(m.text() for m in self.moves)
        return f"else {moves}" if self.condition is None else f"if {self.condition.text()} {moves}"


@dataclass(frozen=True, slots=True)
class Plan:
    """Moves to play in order (`moves`), then, if `branches`, the first branch whose condition the
    card just drawn matches. Build with `parse_plan`; `Plan.apply` plays it."""

    moves: tuple[Any, ...]
    branches: tuple[Branch, ...] = ()

    @property
    def is_conditional(self) -> bool:
        return bool(self.branches)

    def text(self) -> str:
        """Canonical form, e.g. `draw: if 4 or less swap B2, else flip C3`; parses back to this plan."""
        head = ", ".join(m.text() for m in self.moves)
        if not self.branches:
            return head
        return head + ": " + ", ".join(b.text() for b in self.branches)

    def __str__(self) -> str:
        return self.text()

    def all_moves(self) -> list[Any]:
        return [*self.moves, *(m for b in self.branches for m in b.moves)]

    def branch_for(self, card: Any) -> Branch:
        for b in self.branches:
            if b.condition is None or b.condition.matches(card):
                return b
        # validate_plan guarantees coverage of the deck (and the card is not named: no peeking)
        raise IllegalMove("your plan does not say what to do with every card you may draw: add an 'else' part")

    def apply(self, game: Game, seat: int) -> list[tuple[Any, list[dict[str, Any]]]]:
        """Play the plan for `seat` on `game` in place; return [(move, events)] in order (events
        with their English `text`). All-or-nothing: the plan is first played on a copy, and if any
        step is illegal IllegalMove is raised with `game` untouched."""
        validate_plan(game, seat, self)
        self._run(_copy(game), seat)
        return self._run(game, seat)  # the engine is deterministic: same moves, same result

    def applied(self, game: Game, seat: int) -> tuple[Game, list[tuple[Any, list[dict[str, Any]]]]]:
        """Pure form of `apply`: a new game with the plan played; `game` is left unchanged."""
        validate_plan(game, seat, self)
        new = _copy(game)
        return new, self._run(new, seat)

    def _run(self, game: Game, seat: int) -> list[tuple[Any, list[dict[str, Any]]]]:
        from .view import with_text

        steps: list[tuple[Any, list[dict[str, Any]]]] = []
        for i, move in enumerate(self.moves, 1):
            events = _play_step(game, seat, i, move)
            steps.append((move, [with_text(e, game.names) for e in events]))
        if self.branches:
            branch = self.branch_for(_drawn_card(game, seat))
            for i, move in enumerate(branch.moves, len(self.moves) + 1):
                events = _play_step(game, seat, i, move)
                steps.append((move, [with_text(e, game.names) for e in events]))
        return steps


def _owes(game: Game, seat: int) -> bool:
    return any(p[0] == seat for p in game.pending())


def _play_step(game: Game, seat: int, i: int, move: Any, label: str = "") -> list[dict[str, Any]]:
    if not _owes(game, seat):
        raise IllegalMove(label + _step(i, move, "you have no decision to make at this point"
                                        + (" (the game is over)" if game.is_over else "")))
    try:
        return game.play(seat, move)
    except EngineError as e:
        raise IllegalMove(label + _step(i, move, str(e))) from None


def _step(i: int, move: Any, message: str) -> str:
    return f"move {i} ({move.text()}): {message}"


def _copy(game: Game) -> Game:
    return type(game).from_json(game.to_json())


def _drawn_card(game: Game, seat: int) -> Any:
    from .view import view

    held = view(game, seat).get("held")
    if not held or held.get("seat") != seat or held.get("value") is None:
        raise IllegalMove("you hold no drawn card to test the conditions on")
    return held["value"]


def deck_values(game: Game) -> list[Any]:
    """The distinct card values of the game's deck as views show them (ints, "star")."""
    counts = getattr(game, "deck_counts", None) or CLASSIC_COUNTS
    conv = getattr(game, "card_json", None)
    out = []
    for v in counts:
        j = conv(v) if conv is not None else v
        if j not in out:
            out.append(j)
    return sorted(v for v in out if isinstance(v, int)) + sorted(v for v in out if not isinstance(v, int))


# ---------------------------------------------------------------------------------- parsing
def _words(text: str) -> list[str]:
    return [w for w in text.split() if w]


def _clean(text: str) -> str:
    t = (text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2212", "-").replace("\u2013", "-")
         .replace("\u00a0", " ").replace("\u2264", " <= ").replace("\u2265", " >= ").replace("\u2260", " != "))
    t = _OPERATOR.sub(r" \1 ", t)
    # a sentence's final full stop or exclamation mark is not part of a move
    t = re.sub(r"(?<=\w)[.!]+(?=\s|$)", " ", t)
    return t


def _split_keywords(words: list[str]) -> list[list[str]]:
    """Split a separator-free run of words before each if/else keyword (`else if` stays one)."""
    out: list[list[str]] = [[]]
    for w in words:
        lw = w.lower()
        if lw in _KEYWORDS and out[-1] and not (lw == "if" and out[-1][-1].lower() == "else" and len(out[-1]) == 1):
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
                self.cache[text] = MoveParseError(f"{text!r} is not a move ({e})")
        return self.cache[text]

    def moves(self, words: list[str]) -> tuple[Any, ...]:
        """Exactly one way to read `words` as moves, or MoveParseError."""
        n = len(words)
        if n == 0:
            raise MoveParseError("a move is missing")
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
            raise MoveParseError(f"{text!r} can be read as '{a}' or as '{b}': separate the moves with commas")
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
        return MoveParseError(f"I can't read {' '.join(words)!r} as moves")


@dataclass
class _Clause:
    kind: str  # "moves" | "if" | "else"
    words: list[str]
    pending_moves: bool = False


def parse_plan(game: Game, seat: int, text: str) -> Plan:
    """Read a reply's command text as a Plan for `seat` and check it against the current state:
    every move of every branch must be legal where it would be played. Raises MoveParseError for text
    that does not read as a plan, IllegalMove for a plan the rules do not allow now; messages are
    for the player. Nothing is applied."""
    plan = read_plan(game, text)
    validate_plan(game, seat, plan)
    return plan


def read_plan(game: Game, text: str) -> Plan:
    """The grammar alone (uses the state only to know the variant's moves and deck)."""
    if not isinstance(text, str):
        raise MoveParseError("a plan must be text")
    if len(text) > MAX_PLAN_CHARS:
        raise MoveParseError(f"that is too long for one turn ({len(text)} characters; at most {MAX_PLAN_CHARS})")
    seg = _Segmenter(game)
    parts = [_words(p) for p in _SEPARATORS.split(_clean(text))]
    clauses: list[_Clause] = []
    for part in parts:
        for words in _split_keywords(part):
            head = words[0].lower()
            if head in ("if", "when", "elif") or (head == "else" and len(words) > 1 and words[1].lower() == "if"):
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
        raise MoveParseError("no move found: say e.g. 'draw swap B2' or 'take swap C1'")
    # `if 4 or less, swap B2`: a condition alone takes the moves part that follows it
    merged: list[_Clause] = []
    for c in clauses:
        if c.kind == "moves" and merged and merged[-1].kind in ("if", "else") and merged[-1].pending_moves:
            merged[-1].words = merged[-1].words + c.words
            merged[-1].pending_moves = False
            continue
        c.pending_moves = c.kind == "if" and _condition_of([w.lower() for w in c.words]) is not None
        if c.kind == "else" and not c.words:
            c.pending_moves = True
        merged.append(c)

    head_moves: list[Any] = []
    branches: list[Branch] = []
    seen_else = False
    for c in merged:
        if c.kind == "moves":
            if branches:
                raise MoveParseError(
                    f"{' '.join(c.words)!r} follows the conditions: start it with 'if …' or 'else', "
                    "or put it before the conditions")
            head_moves.extend(seg.moves(c.words))
            continue
        if seen_else:
            raise MoveParseError("nothing may follow the 'else' part: it must come last")
        if not head_moves:
            raise MoveParseError("a condition needs a card to test: start with 'draw', e.g. "
                                 "'draw: if 4 or less swap B2, else flip C3'")
        if c.kind == "else":
            if not branches:
                raise MoveParseError("'else' without an 'if' before it")
            if not c.words:
                raise MoveParseError("'else' needs a move, e.g. 'else flip C3'")
            branches.append(Branch(None, seg.moves(c.words)))
            seen_else = True
        else:
            branches.append(_if_branch(seg, c.words))
    if not head_moves:
        raise MoveParseError("no move found: say e.g. 'draw swap B2' or 'take swap C1'")
    plan = Plan(tuple(head_moves), tuple(branches))
    if branches:
        _check_branches(game, plan)
    return plan


def _if_branch(seg: _Segmenter, words: list[str]) -> Branch:
    lower = [w.lower() for w in words]
    if not words:
        raise MoveParseError(f"'if' needs a condition and a move, e.g. 'if 4 or less swap B2'; {CONDITION_HELP}")
    found: list[Branch] = []
    last_error: MoveParseError | None = None
    for k in range(1, len(words) + 1):
        cond = _condition_of(lower[:k])
        if cond is None:
            continue
        rest = words[k:]
        if rest and rest[0].lower() in ("then", "do"):
            rest = rest[1:]
        if not rest:
            last_error = MoveParseError(f"'if {' '.join(words)}' needs a move after the condition, "
                                        "e.g. 'if 4 or less swap B2'")
            continue
        try:
            found.append(Branch(cond, seg.moves(rest)))
        except MoveParseError as e:
            last_error = e
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise MoveParseError(f"'if {' '.join(words)}' can be read in more than one way: "
                             "put 'then' between the condition and the move")
    if last_error is not None:
        raise last_error
    raise MoveParseError(f"I don't understand the condition in 'if {' '.join(words)}': {CONDITION_HELP}")


def _check_branches(game: Game, plan: Plan) -> None:
    if plan.moves[-1].text().lower() != "draw":
        raise MoveParseError("conditions test the card you draw, so they must follow 'draw', e.g. "
                             "'draw: if 4 or less swap B2, else flip C3'")
    values = deck_values(game)
    left = list(values)
    for b in plan.branches:
        if b.condition is None:
            if not left:
                raise MoveParseError("the 'else' part can never apply: the conditions before it cover every card")
            left = []
            continue
        matched = [v for v in values if b.condition.matches(v)]
        if not matched:
            raise MoveParseError(f"no card is {b.condition.text()} (cards go from {_span(values)})")
        fresh = [v for v in left if b.condition.matches(v)]
        if not fresh:
            raise MoveParseError(f"'if {b.condition.text()}' can never apply: the conditions before it "
                                 "already cover those cards")
        left = [v for v in left if v not in fresh]
    if left:
        raise MoveParseError(f"what if you draw {_list(left)}? add an 'else' part, e.g. ', else flip C3'")


def _span(values: Iterable[Any]) -> str:
    nums = [v for v in values if isinstance(v, int)]
    stars = [v for v in values if not isinstance(v, int)]
    text = f"{min(nums)} to {max(nums)}" if nums else ""
    return text + (" and stars" if stars else "")


def _list(values: list[Any]) -> str:
    """[-2, -1, 5, 6, 7, "star"] -> "a -2 to -1, a 5 to 7 or a star"."""
    words: list[str] = []
    nums = [v for v in values if isinstance(v, int)]
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        words.append(f"a {nums[i]}" if i == j else f"a {nums[i]} to {nums[j]}")
        i = j + 1
    words += ["a star" if v == "star" else f"a {v}" for v in values if not isinstance(v, int)]
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]


def validate_plan(game: Game, seat: int, plan: Plan) -> None:
    """Play the plan on copies of `game`: the head moves once, then each branch from the state after
    `draw`, so an illegal move in any branch is found whichever card comes. Raises IllegalMove.

    No peeking through refusals: legality after a card is turned up (or a drawn card, unseen when the
    reply was written, is placed) could depend on its value, and refusing the plan would tell the
    player something. So a plan ends with such a move; only classic's opening reveals, whose
    legality never depends on values, may follow each other."""
    if not isinstance(seat, int) or not 0 <= seat < len(game.names):
        raise IllegalMove(f"there is no seat {seat} in this game")
    if game.is_over:
        raise IllegalMove("the game is over")
    if not _owes(game, seat):
        raise IllegalMove("it is not your turn: you have no decision to make now")
    if plan.branches:
        _check_branches(game, plan)
    trial = _copy(game)
    prev = _validate_steps(trial, seat, plan.moves, 1, "", None)
    start = len(plan.moves) + 1
    for b in plan.branches:
        label = ("else" if b.condition is None else f"if {b.condition.text()}") + ": "
        _validate_steps(_copy(trial), seat, b.moves, start, label, prev)


def _validate_steps(game: Game, seat: int, moves: Sequence[Any], start: int, label: str,
                    prev: tuple[Any, bool] | None) -> tuple[Any, bool] | None:
    """Play `moves` in order; `prev` is (last move, it turned up hidden information)."""
    for i, move in enumerate(moves, start):
        if prev is not None and prev[1] and not (
                game.variant == "classic" and _is_reveal(prev[0]) and _is_reveal(move)):
            raise IllegalMove(label + _step(i, move, f"your reply must end with '{prev[0].text()}': it turns up a "
                                            "card, and what may follow depends on it. Send the next moves in "
                                            "another reply, after you have seen the result"))
        before = _secrets(game, seat)
        _play_step(game, seat, i, move, label)
        prev = (move, _uncovers(before, _secrets(game, seat)))
    return prev


def _is_reveal(move: Any) -> bool:
    return move.text().lower().startswith("reveal ")


def _secrets(game: Game, seat: int) -> tuple[frozenset[tuple[int, str]], bool]:
    """(face-down cells of every grid, `seat` holds a drawn card) as `seat` sees them."""
    from .view import view

    v = view(game, seat)
    down = frozenset((p["seat"], c["cell"]) for p in v["players"] for c in p["grid"] if c["face"] == "down")
    held = v.get("held")
    return down, bool(held and held.get("seat") == seat and held.get("source") == "draw")


def _uncovers(before: tuple[frozenset[tuple[int, str]], bool], after: tuple[frozenset[tuple[int, str]], bool]) -> bool:
    """A step uncovers hidden information when a face-down cell stops being face-down, or a drawn
    card (unseen when the reply was written) leaves the hand."""
    return bool(before[0] - after[0]) or (before[1] and not after[1])
