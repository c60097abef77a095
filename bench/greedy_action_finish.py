"""A8 greedy SKYJO Action games that end: the 2,000-game run per player count (numbers, not pass/fail).

Issue 16: greedy Action bots used to swap equal cards back and forth for ever in about 5-9 of 2,000
games (0.25-0.45 %). tests/engine/test_bots.py plays 400 games per count (95 % power at the old
rate over the three counts); this prints the loop rate of the larger run and how sure a clean run
is, with CPU and wall time. Same seeds as the test ("finish-<players>-<n>", bot rng Random(n)).

    .venv/bin/python bench/greedy_action_finish.py [--games 2000] [--players 2 3 4]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402

OLD_LOOP_RATE = 0.0025  # issue 16: the low end of 5-9 looping games in 2,000


def run(players: int, games: int) -> dict[str, object]:
    """Play greedy Action games 0..games-1 at `players` seats; count those that end and those that loop."""
    c0, w0 = time.process_time(), time.perf_counter()
    ended = looped = 0
    for n in range(games):
        g = engine.new_game([f"P{s + 1}" for s in range(players)], "action", seed=f"finish-{players}-{n}")
        try:
            engine.play_out(g, "greedy", random.Random(n), max_moves=20_000)
        except engine.RepeatedPosition:
            looped += 1
            continue
        ended += g.is_over
    return {
        "players": players,
        "games": games,
        "ended": ended,
        "looped": looped,
        "loop_rate": looped / games,
        "cpu_s": round(time.process_time() - c0, 1),
        "wall_s": round(time.perf_counter() - w0, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2_000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    total = 0
    for players in args.players:
        row = run(players, args.games)
        total += args.games
        print(json.dumps(row))
    miss = (1 - OLD_LOOP_RATE) ** total
    print(json.dumps({
        "games": total,
        "p_no_loop_at_old_rate": round(miss, 6),
        "power_at_old_rate": round(1 - miss, 6),
        "games_for_99pct_power": math.ceil(math.log(0.01) / math.log(1 - OLD_LOOP_RATE)),
    }))


if __name__ == "__main__":
    main()
