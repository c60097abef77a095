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
EXPECTED = "f6eade03c1c5f717b2943d18d77662144eff2dbcb8b9ea08ac03c36072e81176"

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
    """One hash over the whole observable play of `games` (see the module docstring)."""
    h = hashlib.sha256()
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


def test_every_game_plays_exactly_as_before_the_variant_registry() -> None:
    assert digest() == EXPECTED
