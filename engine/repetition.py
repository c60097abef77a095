"""A guard for loops that let bots play: a position that keeps coming back is an error, not a hang.

Bots decide by fixed rules, so two of them can play in a circle - each undoing the other's move -
and the round never reaches its end (C9/A8). Every loop that plays bot moves one after another
(`engine.bots.play_out`, the service's simulations and its plays for absent players) can hold a
`RepetitionGuard` and call `check(game)` after each move: when the same position has been seen
`limit` times, `RepeatedPosition` says so instead of the loop running for ever.

A position is the whole saved state except its history (version, move list, event log). The guard
fingerprints it only every `every` moves: a cycle of any length still shows, because the sampled
positions repeat with it, and the cost stays one JSON dump per `every` moves.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from . import state

HISTORY = ("version", "moves", "log")


class RepeatedPosition(RuntimeError):
    """Bots brought a game back to the same position again and again: it would never end."""


def position_key(game: Any) -> str:
    """A fingerprint of the game's position: equal for equal states, whatever their history."""
    data = state.to_json(game, copy=False)
    for name in HISTORY:
        del data[name]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class RepetitionGuard:
    """Counts the positions of one game as bots play it; see the module docstring."""

    def __init__(self, every: int = 50, limit: int = 3) -> None:
        self.every = every
        self.limit = limit
        self.moves = 0
        self.seen: Counter[str] = Counter()

    def check(self, game: Any) -> None:
        """Call after every move. Raises RepeatedPosition on the `limit`-th sighting of a position."""
        self.moves += 1
        if self.moves % self.every:
            return
        key = position_key(game)
        self.seen[key] += 1
        if self.seen[key] >= self.limit:
            raise RepeatedPosition(
                f"the bots brought the game back to the same position {self.limit} times (round {game.round}, "
                f"{len(game.moves)} moves played): played on like this it would never end"
            )
