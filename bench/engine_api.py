"""Engine cost per game on the public API: instructions under callgrind, or time without it.

A game is 4 players playing uniformly random legal moves through the public API only
(`engine.new_game`, `game.pending()`, `game.legal_moves(seat)`, `game.play(seat, move)`), the way
a peer engine is driven in issue 33's comparison. Callgrind counts are deterministic, so run the
script twice - with 0 games and with N - and divide the difference by N:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python bench/engine_api.py 0
    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python bench/engine_api.py 40

Without valgrind it prints the wall time per game (numbers, not pass/fail).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402


def play_games(games: int, players: int = 4, seed: int = 1) -> int:
    """Play `games` random games on the public API; the number of moves played."""
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    moves = 0
    for i in range(games):
        g = engine.new_game(names, seed=f"api-{seed}-{i}")
        while True:
            pending = g.pending()
            if not pending:
                break
            seat = pending[0].seat
            g.play(seat, rng.choice(g.legal_moves(seat)))
            moves += 1
    return moves


def main(games: int | None = None) -> None:
    if games is None:
        games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    t0 = time.perf_counter()
    moves = play_games(games)
    elapsed = time.perf_counter() - t0
    if games:
        print(f"public API, 4 players, random: {games} games, {moves} moves: {1000 * elapsed / games:.2f} ms/game, {1e6 * elapsed / moves:.1f} us/move")


if __name__ == "__main__":
    main()
