"""The Plan value and what makes one playable: checked up front, applied all-or-nothing.

* `Plan` / `Branch`: moves played in order, then the first branch whose `Condition` matches the card
  just drawn (C7: only the drawer, here the server, sees it). `Plan.apply` first plays the plan on a
  copy, so an illegal step leaves the game untouched.
* `validate_plan`: every move of every branch is played on copies of the game, from the state after
  `draw`, so an illegal move in any branch is found whichever card comes.
* `check_branches`: the conditions must follow `draw` and cover every card of the game's deck
  (C1, or A1 with stars), each able to apply, so the server never has to name the drawn card.
* No peeking (C13): a plan ends with the move that turns up a card or places the drawn card, since a
  refused plan would tell the player something about a hidden value; only classic's opening reveals
  (C4), whose legality never depends on values, may follow each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import CLASSIC_COUNTS
from ..errors import EngineError, IllegalMove, MoveParseError
from ..game import Game
from ..view import view, with_text
from .conditions import Condition


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
        raise IllegalMove(
            "your plan does not say what to do with every card you may draw: add an 'else' part"
        )

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
        raise IllegalMove(
            label
            + _step(
                i,
                move,
                "you have no decision to make at this point"
                + (" (the game is over)" if game.is_over else ""),
            )
        )
    try:
        return game.play(seat, move)
    except EngineError as e:
        raise IllegalMove(label + _step(i, move, str(e))) from None


def _step(i: int, move: Any, message: str) -> str:
    return f"move {i} ({move.text()}): {message}"


def _copy(game: Game) -> Game:
    return type(game).from_json(game.to_json())


def _drawn_card(game: Game, seat: int) -> Any:
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


def check_branches(game: Game, plan: Plan) -> None:
    if plan.moves[-1].text().lower() != "draw":
        raise MoveParseError(
            "conditions test the card you draw, so they must follow 'draw', e.g. "
            "'draw: if 4 or less swap B2, else flip C3'"
        )
    values = deck_values(game)
    left = list(values)
    for b in plan.branches:
        if b.condition is None:
            if not left:
                raise MoveParseError(
                    "the 'else' part can never apply: the conditions before it cover every card"
                )
            left = []
            continue
        matched = [v for v in values if b.condition.matches(v)]
        if not matched:
            raise MoveParseError(f"no card is {b.condition.text()} (cards go from {_span(values)})")
        fresh = [v for v in left if b.condition.matches(v)]
        if not fresh:
            raise MoveParseError(
                f"'if {b.condition.text()}' can never apply: the conditions before it "
                "already cover those cards"
            )
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
        check_branches(game, plan)
    trial = _copy(game)
    prev = _validate_steps(trial, seat, plan.moves, 1, "", None)
    start = len(plan.moves) + 1
    for b in plan.branches:
        label = ("else" if b.condition is None else f"if {b.condition.text()}") + ": "
        _validate_steps(_copy(trial), seat, b.moves, start, label, prev)


def _validate_steps(
    game: Game, seat: int, moves: Sequence[Any], start: int, label: str, prev: tuple[Any, bool] | None
) -> tuple[Any, bool] | None:
    """Play `moves` in order; `prev` is (last move, it turned up hidden information)."""
    for i, move in enumerate(moves, start):
        if (
            prev is not None
            and prev[1]
            and not (game.variant == "classic" and _is_reveal(prev[0]) and _is_reveal(move))
        ):
            raise IllegalMove(
                label
                + _step(
                    i,
                    move,
                    f"your reply must end with '{prev[0].text()}': it turns up a "
                    "card, and what may follow depends on it. Send the next moves in "
                    "another reply, after you have seen the result",
                )
            )
        before = _secrets(game, seat)
        _play_step(game, seat, i, move, label)
        prev = (move, _uncovers(before, _secrets(game, seat)))
    return prev


def _is_reveal(move: Any) -> bool:
    return move.text().lower().startswith("reveal ")


def _secrets(game: Game, seat: int) -> tuple[frozenset[tuple[int, str]], bool]:
    """(face-down cells of every grid, `seat` holds a drawn card) as `seat` sees them."""
    v = view(game, seat)
    down = frozenset((p["seat"], c["cell"]) for p in v["players"] for c in p["grid"] if c["face"] == "down")
    held = v.get("held")
    return down, bool(held and held.get("seat") == seat and held.get("source") == "draw")


def _uncovers(
    before: tuple[frozenset[tuple[int, str]], bool], after: tuple[frozenset[tuple[int, str]], bool]
) -> bool:
    """A step uncovers hidden information when a face-down cell stops being face-down, or a drawn
    card (unseen when the reply was written) leaves the hand."""
    return bool(before[0] - after[0]) or (before[1] and not after[1])
