"""The Plan value and what makes one playable: checked on what its writer saw, then applied.

* `Plan` / `Branch`: moves played in order, then the first branch whose `Condition` matches the card
  just drawn (C7: only the drawer, here the server, sees it).
* `validate_plan` decides, before anything is applied, whether a plan is refused, and only from what
  the seat could see when writing it (C13): every move is played on copies of the game up to and
  including the first move that turns up a card the writer had not seen (`engine.plans.hidden`),
  from the state after `draw` for each branch, so an illegal move in any branch is found whichever
  card comes, and nothing the cards decide can make a plan refused or change the message. A plan
  whose moves go on after such a move is refused by its shape alone ("your reply must end with
  ..."), except the opening reveals (C4, A3), which may follow each other.
* Where a move's legality depends on a card turned up by the plan's earlier moves (the reveals
  after the two opening reveals have decided who starts, C5: a third one is legal only on a tie),
  the plan stops there: the moves before it are applied and the seat is asked for the rest like any
  pending decision. `Stop` says where and why, in words that name no card; `PlanSteps.stopped`
  carries it.
* `check_branches`: the conditions must follow `draw` and cover every card of the game's deck
  (C1, or A1 with stars), each able to apply, so the server never has to name the drawn card.
* `Plan.apply` plays the plan on a copy first, so a move the checks missed leaves the game untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import EngineError, IllegalMove, MoveParseError
from ..game import Game
from ..view import view, with_text
from .conditions import Condition
from .hidden import chains_reveal, reveals_done, turns_up, unseen

Step = tuple[Any, list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Branch:
    """`if <condition> <moves>`, or `else <moves>` when condition is None."""

    condition: Condition | None
    moves: tuple[Any, ...]

    def text(self) -> str:
        moves = ", ".join(m.text() for m in self.moves)
        return f"else {moves}" if self.condition is None else f"if {self.condition.text()} {moves}"


@dataclass(frozen=True, slots=True)
class Stop:
    """Where a plan stopped: move number `step` (1-based) and the moves after it were not played,
    because whether `move` may be played depends on cards the plan's earlier moves turned up."""

    step: int
    move: Any

    @property
    def message(self) -> str:
        """For the player; names no card (the cards are public by now, but the answer stays the
        same whatever they are)."""
        played = "move 1 was" if self.step == 2 else f"moves 1-{self.step - 1} were"
        return (
            f"{played} played; your plan stopped at move {self.step} ({self.move.text()}): whether "
            "you may play it depends on the cards your moves just turned up. Look at them and send "
            "your next move when you have one to make"
        )


class PlanSteps(list[Step]):
    """What `Plan.apply` played: [(move, events)] in order (events with their English `text`), and
    `stopped`, the `Stop` when the plan stopped before its end (None when all of it was played)."""

    __slots__ = ("stopped",)

    def __init__(self, steps: Iterable[Step] = (), stopped: Stop | None = None) -> None:
        super().__init__(steps)
        self.stopped = stopped

    @property
    def message(self) -> str | None:
        """The stop's message for the player, or None when the whole plan was played."""
        return None if self.stopped is None else self.stopped.message


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
        raise IllegalMove.of("plan_uncovered")

    def apply(self, game: Game, seat: int) -> PlanSteps:
        """Play the plan for `seat` on `game` in place; return the moves played with their events,
        and where the plan stopped (`PlanSteps.stopped`). A refused plan raises IllegalMove or
        MoveParseError with `game` untouched: the checks come first (`validate_plan`), then the plan
        is played on a copy, then on `game`."""
        stop = validate_plan(game, seat, self)
        self._run(_copy(game), seat, stop)
        return self._run(game, seat, stop)  # the engine is deterministic: same moves, same result

    def applied(self, game: Game, seat: int) -> tuple[Game, PlanSteps]:
        """Pure form of `apply`: a new game with the plan played; `game` is left unchanged."""
        stop = validate_plan(game, seat, self)
        new = _copy(game)
        return new, self._run(new, seat, stop)

    def _run(self, game: Game, seat: int, stop: Stop | None) -> PlanSteps:
        steps = PlanSteps(stopped=stop)
        head = self.moves if stop is None else self.moves[: stop.step - 1]
        for i, move in enumerate(head, 1):
            events = _play_step(game, seat, i, move)
            steps.append((move, [with_text(e, game.names) for e in events]))
        if self.branches and stop is None:
            branch = self.branch_for(_drawn_card(game, seat))
            for i, move in enumerate(branch.moves, len(self.moves) + 1):
                events = _play_step(game, seat, i, move)
                steps.append((move, [with_text(e, game.names) for e in events]))
        return steps


def _owes(game: Game, seat: int) -> bool:
    return any(p[0] == seat for p in game.pending())


def _play_step(game: Game, seat: int, i: int, move: Any, label: str = "") -> list[dict[str, Any]]:
    if not _owes(game, seat):
        raise IllegalMove.of("step_no_decision_over" if game.is_over else "step_no_decision",
                             label=label, step=i, move=move.text())
    try:
        return game.play(seat, move)
    except EngineError as e:
        raise IllegalMove.of("step_refused", label=label, step=i, move=move.text(), reason=e) from None


def _copy(game: Game) -> Game:
    return game.copy()


def _drawn_card(game: Game, seat: int) -> Any:
    held = view(game, seat).get("held")
    if not held or held.get("seat") != seat or held.get("value") is None:
        raise IllegalMove.of("no_drawn_card")
    return held["value"]


def validate_plan(game: Game, seat: int, plan: Plan) -> Stop | None:
    """Decide, from what `seat` sees, whether `plan` is refused (raises IllegalMove or
    MoveParseError, messages for the player) and where it will stop (the returned `Stop`, or None
    when it will be played to its end). Nothing is applied.

    The moves are played on copies of `game`: the head once, then each branch from the state after
    `draw`, each only up to and including the first move that turns up a card the writer had not
    seen (C13, `engine.plans.hidden`). A move after that one is refused by the plan's shape alone,
    unless it is the next opening reveal (C4, A3), checked like any move until the reveals decide
    what comes next (C5's start; A3's two reveals done); the move after that reveal is where the
    plan stops."""
    if not isinstance(seat, int) or not 0 <= seat < len(game.names):
        raise IllegalMove.of("no_such_seat", seat=seat)
    if game.is_over:
        raise IllegalMove.of("game_over")
    if not _owes(game, seat):
        raise IllegalMove.of("plan_not_your_turn")
    if plan.branches:
        check_branches(game, plan)
    trial = _copy(game)
    stop = _check_moves(trial, seat, plan.moves, 1, "")
    start = len(plan.moves) + 1
    for b in plan.branches:
        label = ("else" if b.condition is None else f"if {b.condition.text()}") + ": "
        # a branch starts by placing the drawn card (C7), so it never chains reveals nor stops
        _check_moves(_copy(trial), seat, b.moves, start, label)
    return stop


def _check_moves(game: Game, seat: int, moves: Sequence[Any], start: int, label: str) -> Stop | None:
    """Play `moves` (numbered from `start`) on `game`, a copy, as far as the writer's view decides
    them; raise for the first one refused. Returns the Stop when a reveal decided the start (C5)
    and more moves follow."""
    turned: Any = None  # the latest move, once one has turned up a card
    events: list[dict[str, Any]] = []
    for k, move in enumerate(moves):
        i = start + k
        if turned is not None:
            _check_follows(game, turned, move, i, label)
            if reveals_done(game, seat, events):
                for j, (a, b) in enumerate(zip(moves[k:], moves[k + 1 :], strict=False), i + 1):
                    _check_follows(game, a, b, j, label)  # the rest is judged by its shape only
                return Stop(i, move)
        before = unseen(game, seat)
        events = _play_step(game, seat, i, move, label)
        if turned is not None or turns_up(before, unseen(game, seat), events):
            turned = move
    return None


def _check_follows(game: Game, prev: Any, move: Any, i: int, label: str) -> None:
    """No peeking: after a move that turned up a card only the next opening reveal may come (C4, A3)."""
    if not chains_reveal(game, prev, move):
        raise IllegalMove.of("must_end_with", label=label, step=i, move=move.text(), last=prev.text())


def deck_values(game: Game) -> list[Any]:
    """The distinct card values of the game's deck as views show them (ints, "star")."""
    out = []
    for v in game.deck_counts:
        j = game.card_json(v)
        if j not in out:
            out.append(j)
    return sorted(v for v in out if isinstance(v, int)) + sorted(v for v in out if not isinstance(v, int))


def check_branches(game: Game, plan: Plan) -> None:
    if plan.moves[-1].text().lower() != "draw":
        raise MoveParseError.of("conditions_follow_draw")
    values = deck_values(game)
    left = list(values)
    for b in plan.branches:
        if b.condition is None:
            if not left:
                raise MoveParseError.of("else_never")
            left = []
            continue
        matched = [v for v in values if b.condition.matches(v)]
        if not matched:
            raise MoveParseError.of("no_card_is", condition=b.condition.text(), span=_span(values))
        fresh = [v for v in left if b.condition.matches(v)]
        if not fresh:
            raise MoveParseError.of("if_never", condition=b.condition.text())
        left = [v for v in left if v not in fresh]
    if left:
        raise MoveParseError.of("uncovered_cards", cards=_list(left))


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
