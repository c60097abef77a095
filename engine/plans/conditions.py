"""Conditions on the drawn card in a plan (`if 4 or less`, `if between 3 and 6`, `if star`): the
words people write, read into a `Condition` (C7: the drawn card is seen by the drawer alone, so the
server applies the branch; A6: a star is its own card and never matches a number range).

Also the text clean-up every part of a plan's grammar starts from (`clean`, `split_words`): unicode minus
signs and comparison symbols, a sentence's final full stop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import MoveParseError

_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
}
_OPERATOR = re.compile(r"(<=|>=|=<|=>|==|!=|<>|[<>=≤≥≠])")

CONDITION_HELP = "say e.g. 'if 4 or less', 'if 9 or more', 'if 5', 'if between 3 and 6', 'if < 3', 'if >= 10'"


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
    (
        re.compile(_IS + r"(?:at most|max|maximum|no more than|not more than|up to) " + _N),
        lambda m: Condition(hi=int(m[1])),
    ),
    (
        re.compile(_IS + r"(?:at least|min|minimum|no less than|not less than) " + _N),
        lambda m: Condition(lo=int(m[1])),
    ),
    (re.compile(r"(?:is )?(?:<=|=<|≤) ?" + _N), lambda m: Condition(hi=int(m[1]))),
    (re.compile(r"(?:is )?(?:>=|=>|≥) ?" + _N), lambda m: Condition(lo=int(m[1]))),
    (
        re.compile(r"(?:is )?(?:<|" + _LESS + r" than|below|under) ?" + _N),
        lambda m: Condition(hi=int(m[1]) - 1),
    ),
    (
        re.compile(r"(?:is )?(?:>|" + _MORE + r" than|above|over) ?" + _N),
        lambda m: Condition(lo=int(m[1]) + 1),
    ),
    (
        re.compile(r"(?:is not|isn't|not|!=|<>|≠) ?" + _N),
        lambda m: Condition(int(m[1]), int(m[1]), negate=True),
    ),
    (
        re.compile(r"(?:is |= ?|== ?|equals |is equal to |exactly |is exactly )?(?:a )?" + _N),
        lambda m: Condition(int(m[1]), int(m[1])),
    ),
    (re.compile(_IS + r"(?:between|from) " + _N + r" (?:and|to) " + _N), lambda m: _range(m[1], m[2])),
    (re.compile(_IS + _N + r" ?(?:to|\.\.|through|thru) ?" + _N), lambda m: _range(m[1], m[2])),
]


def _range(a: str, b: str) -> Condition:
    lo, hi = int(a), int(b)
    if lo > hi:
        raise MoveParseError.of("between_empty", lo=lo, hi=hi)
    return Condition(lo, hi)


def parse_condition(text: str) -> Condition:
    """`4 or less`, `>= 9`, `between 3 and 5`, `is 5`, `star` ... -> Condition. Raises MoveParseError."""
    found = split_words(clean(text))
    cond = condition_of([w.lower() for w in found])
    if cond is None:
        raise MoveParseError.of("condition_unknown", text=text.strip(), help=CONDITION_HELP)
    return cond


def condition_of(words: Sequence[str]) -> Condition | None:
    t = " ".join(_NUMBER_WORDS.get(w, w) for w in words)
    t = re.sub(r"\bminus (\d)", r"-\1", t)
    t = re.sub(r"^" + _LEAD, "", t) or t
    for pattern, build in _COND_PATTERNS:
        m = pattern.fullmatch(t)
        if m:
            return build(m)
    return None


def split_words(text: str) -> list[str]:
    return [w for w in text.split() if w]


def clean(text: str) -> str:
    t = (
        text.replace("\r\n", "\n")
        .replace("\r", "\n")
        .replace("\u2212", "-")
        .replace("\u2013", "-")
        .replace("\u00a0", " ")
        .replace("\u2264", " <= ")
        .replace("\u2265", " >= ")
        .replace("\u2260", " != ")
    )
    t = _OPERATOR.sub(r" \1 ", t)
    # a sentence's final full stop or exclamation mark is not part of a move
    t = re.sub(r"(?<=\w)[.!]+(?=\s|$)", " ", t)
    return t
