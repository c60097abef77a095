"""What `engine.times_seen` costs as a game grows (issue 33.1): the clock's and the computer seats'
circle check, asked once per decision. Prints ms per call at move 10, 200 and 1,000 of one long
random 3-player game (numbers, not pass/fail).

    .venv/bin/python bench/engine_seen.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402

POINTS = (10, 200, 1000)


def long_game(moves: int) -> dict[str, object]:
    """The record of a random 3-player game of `moves` moves (a target score it does not reach)."""
    rng = random.Random(33)
    g = engine.new_game(["Ann", "Bo", "Cy"], options={"target_score": 10_000}, seed="seen-bench")
    while len(g.moves) < moves:
        seat = g.pending()[0].seat
        g.play(seat, rng.choice(g.legal_moves(seat)))
    return g.record()


def main() -> None:
    rec = long_game(max(POINTS))
    print("engine.times_seen, one call (3 players, random play)")
    for point in POINTS:
        g = engine.replay({**rec, "moves": rec["moves"][:point]})  # type: ignore[dict-item]
        calls = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 1.0:
            engine.times_seen(g)
            calls += 1
        ms = 1000 * (time.perf_counter() - t0) / calls
        print(f"  move {point:>5}: round {g.round}, {g.version - g.round_start:>4} moves into it: {ms:7.2f} ms")


if __name__ == "__main__":
    main()
