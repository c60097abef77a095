"""Issue 33.1: `engine.times_seen` fingerprints only the current round's positions and gives the
same count as replaying and fingerprinting the whole record (`counted_over_the_whole_game`, the
function as it was before). Games of both variants, several rounds long, played by a random player
that mostly takes the discard and swaps it onto A1 - the circle of issue 16.2 - so positions do come
back, are asked at several points of each game, in every round.

`python -m tests.engine.test_times_seen 1000` runs the comparison on 1,000 games (done once for
issue 33; the test runs a small sample)."""

from __future__ import annotations

import random
import sys
from typing import Any

import engine
from engine.api import new_game
from engine.record import parse_record_move
from engine.record import replay as replay_record
from engine.repetition import position_key

VARIANTS = ("classic", "action")
CIRCLE = ("take", "swap a1")


def counted_over_the_whole_game(game: Any) -> int:
    """`engine.times_seen` before issue 33: every position of the record fingerprinted."""
    key = position_key(game)
    rec = engine.record(game)
    g = replay_record({**rec, "moves": []}, new_game)
    seen = int(position_key(g) == key)
    for number, text in enumerate(rec["moves"], start=1):
        seat, move_text = parse_record_move(text, number, g.n)
        g.play(seat, g.parse_move(move_text))
        seen += position_key(g) == key
    return seen


def circling_game(number: int, moves: int) -> tuple[Any, list[int]]:
    """A game of up to `moves` moves whose random player now and then plays the circle for a few
    turns; the move counts at which `times_seen` is asked (spread over the game, the last one
    included)."""
    rng = random.Random(number)
    variant = VARIANTS[number % 2]
    g = engine.new_game(["Ann", "Bo", "Cy"][: 2 + number % 2], variant, {"target_score": 400}, seed=f"seen-{number}")
    circle = 0  # moves of the circle still to play
    while len(g.moves) < moves and not g.is_over:
        seat = g.pending()[0].seat
        legal = g.legal_moves(seat)
        wanted = [m for m in legal if str(m).lower() in CIRCLE]
        if not circle and rng.random() < 0.04:
            circle = rng.randint(20, 60)
        if circle and wanted:
            circle -= 1
            g.play(seat, wanted[0])
        else:
            g.play(seat, rng.choice(legal))
    asked = sorted(rng.sample(range(1, len(g.moves)), 6))
    return g, [*asked, len(g.moves)]


def compare(games: int, moves: int = 600, first: int = 0) -> tuple[int, int, int, int]:
    """Asks both counts at several points of `games` games; (points asked, points where a position
    came back, of them in round 2 or later, the highest count). Raises AssertionError on the first
    difference."""
    asked = repeated = later = highest = 0
    for number in range(first, first + games):
        g, points = circling_game(number, moves)
        rec = g.record()
        for point in points:
            at = engine.replay({**rec, "moves": rec["moves"][:point]})
            at.round_specs = at.round_specs[: at.round]  # the game as it stood: later rounds not dealt yet
            seen = engine.times_seen(at)
            assert seen == counted_over_the_whole_game(at), (number, point)
            asked += 1
            repeated += seen > 1
            later += seen > 1 and at.round > 1
            highest = max(highest, seen)
    return asked, repeated, later, highest


def test_times_seen_counts_as_a_replay_of_the_whole_game() -> None:
    asked, repeated, later, highest = compare(6)
    assert asked >= 40
    assert repeated >= 5 and later >= 2 and highest >= 3  # the sample holds positions that came back


def test_times_seen_of_a_later_round_counts_only_that_round() -> None:
    """A position in round 2 or later: the count starts at the round's deal, and it is the same
    as the whole game's."""
    g = engine.new_game(["Ann", "Bo"], options={"target_score": 500}, seed="rounds")
    rng = random.Random(3)
    while g.round < 3:
        seat = g.pending()[0].seat
        g.play(seat, rng.choice(g.legal_moves(seat)))
    assert g.round_start > 0
    assert engine.times_seen(g) == counted_over_the_whole_game(g) == 1
    for _ in range(6):
        seat = g.pending()[0].seat
        if g.phase != "play":
            g.play(seat, g.legal_moves(seat)[0])
            continue
        g.play(seat, "take")
        g.play(seat, "swap A1")
    assert engine.times_seen(g) == counted_over_the_whole_game(g)


def test_times_seen_of_a_finished_game_is_one() -> None:
    """A game over in a later round (C12): its position is new (the phase says so). Its dealt copy
    would hold the final score sheet, from which the round's starter would be chosen again (C6)."""
    g, _points = circling_game(178, 600)
    assert g.is_over and g.round > 1
    assert engine.times_seen(g) == counted_over_the_whole_game(g) == 1


def test_as_dealt_is_the_position_its_round_was_dealt_in() -> None:
    """`Game.as_dealt` of a position anywhere in a round is the replayed position at the round's
    deal (fingerprint and version), in every round of games of both variants."""
    checked = 0
    for number in range(4):
        g, _points = circling_game(number, 400)
        rec = g.record()
        for point in range(1, len(rec["moves"]) + 1, 7):
            at = engine.replay({**rec, "moves": rec["moves"][:point]})
            at.round_specs = at.round_specs[: at.round]
            if at.is_over:
                continue
            dealt = at.as_dealt()
            then = engine.replay({**rec, "moves": rec["moves"][: at.round_start]})
            then.round_specs = then.round_specs[: then.round]
            assert (dealt.version, dealt.round) == (then.version, then.round) == (at.round_start, at.round)
            assert position_key(dealt) == position_key(then), (number, point)
            assert dealt.moves == dealt.log == []
            checked += at.round > 1
    assert checked >= 20


def test_times_seen_plays_only_the_current_rounds_moves(monkeypatch: Any) -> None:
    """The cost is the current round's (issue 33.1): at move 1,000 of a long game, `times_seen` plays
    fewer moves than the round has had (the whole record before)."""
    rng = random.Random(33)
    g = engine.new_game(["Ann", "Bo", "Cy"], options={"target_score": 10_000}, seed="seen-bench")
    while len(g.moves) < 1000:
        seat = g.pending()[0].seat
        g.play(seat, rng.choice(g.legal_moves(seat)))
    played = 0
    play = type(g).play

    def counted(self: Any, *args: Any) -> Any:
        nonlocal played
        played += 1
        return play(self, *args)

    monkeypatch.setattr(type(g), "play", counted)
    assert g.round > 3 and engine.times_seen(g) >= 1
    assert played < g.version - g.round_start


if __name__ == "__main__":  # python -m tests.engine.test_times_seen [games [first game]]
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for start in range(first, first + count, 50):
        points, came_back, in_later_rounds, most = compare(min(50, first + count - start), first=start)
        print(
            f"games {start}-{min(start + 50, first + count) - 1}: {points} positions asked, {came_back} seen more "
            f"than once ({in_later_rounds} of them in round 2 or later; up to {most} times): the same counts",
            flush=True,
        )
