"""Issue 27.4: the variants' registration and SKYJO Action's composition were rebuilt; every game must
play exactly as before. Random games of both variants (fixed seeds, the existing bots, several
option sets) are played move by move, and everything a caller can observe is hashed: the saved
state (`to_json`), the events, every seat's legal moves, pending decisions and decision id, every
seat's view and the spectator's, the record and its replay. The digest was taken on the code before
the refactor (commit fd62b7a) and is asserted here, so any change in play shows up as a new digest.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import engine

# Recorded on fd62b7a (before issue 27.4/27.5) by running `digest()` below.
EXPECTED = "7c49e8b0f289406cef05abe8805ff1e23c15252a9edc679c27607f95878d378b"

GAMES: list[tuple[str, int, dict[str, Any], str]] = [
    # (variant, players, options, bot per game)
    ("classic", 2, {"target_score": 40}, "random"),
    ("classic", 3, {"target_score": 30, "start_tiebreak": "highest_card"}, "greedy"),
    ("classic", 4, {"target_score": 25, "round_starter": "previous_winner", "doubling_tie": "lenient"}, "easy"),
    ("classic", 2, {"target_score": 20, "final_tiebreak": "extra_round"}, "strong"),
    ("classic", 5, {"target_score": 15, "column_removal": False, "round_starter": "highest_reveal"}, "random"),
    ("action", 2, {"target_score": 40}, "random"),
    ("action", 3, {"target_score": 30}, "greedy"),
    ("action", 2, {"target_score": 25, "final_tiebreak": "extra_round", "round_starter": "previous_winner"}, "easy"),
    ("action", 2, {"target_score": 20}, "strong"),
    ("action", 4, {"target_score": 15, "doubling_tie": "lenient"}, "random"),
]


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), default=str).encode()


def digest(games: list[tuple[str, int, dict[str, Any], str]] = GAMES, seed_base: int = 27) -> str:
    """One hash over the whole observable play of `games` (see the module docstring), then over the
    end of `_starts`' games."""
    h = hashlib.sha256()
    _starts(h, seed_base)
    for number, (variant, players, options, bot) in enumerate(games):
        names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][:players]
        game = engine.new_game(names, variant, options, seed=f"replay-{seed_base}-{number}")
        rng = random.Random(seed_base * 1000 + number)
        step = 0
        while not game.is_over:
            for seat in [None, *range(game.n)]:
                h.update(_dump(engine.view(game, seat, log=False)))
                if seat is not None:
                    h.update(_dump([str(m) for m in game.legal_moves(seat)]))
                    h.update(_dump([game.decision_id(seat), game.owes(seat)]))
            h.update(_dump([p.as_dict() for p in game.pending()]))
            seat = game.pending()[0].seat
            move = engine.bot_move(game, seat, bot, rng)
            h.update(_dump([seat, str(move)]))
            if step % 7 == 3:  # the pure reducer, with the events' English
                game, events = engine.apply_move(game, seat, move)
            else:
                events = game.play(seat, move)
            h.update(_dump(events))
            h.update(_dump(game.to_json()))
            if step % 5 == 0:  # through the saved state, as the service plays
                game = engine.Game.from_json(game.to_json())
            step += 1
        h.update(_dump(engine.view(game, None)))  # the whole log, with its sentences
        record = game.record()
        h.update(_dump(record))
        assert engine.replay(record).to_json() == game.to_json()
        h.update(str(step).encode())
    return h.hexdigest()


def _starts(h: Any, seed_base: int, count: int = 40) -> None:
    """Quick random 8-seat games (each saved state and log hashed at its end) that reach every way a
    round can start: C5's highest reveal, its extra reveal or highest card, C6's previous closer and
    previous winner, A3's highest card and earliest seat."""
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    for number in range(count):
        variant = "action" if number % 2 else "classic"
        options: dict[str, Any] = {
            "target_score": 200,
            "round_starter": ["highest_reveal", "previous_winner"][number // 2 % 2],
        }
        if variant == "classic":
            options["start_tiebreak"] = ["highest_card", "extra_reveal"][number // 4 % 2]
        game = engine.new_game(names, variant, options, seed=f"start-{seed_base}-{number}")
        engine.play_out(game, "random", random.Random(seed_base * 1000 + 500 + number))
        h.update(_dump(game.to_json()))
        h.update(_dump(engine.view(game, None)))


def test_every_game_plays_exactly_as_before_the_variant_registry() -> None:
    assert digest() == EXPECTED
