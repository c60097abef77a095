"""Engine benchmark: random-play turns/s and games/s on one core (numbers, not pass/fail).

A turn is one seat's complete turn (draw or take, then swap or flip); opening reveals are played
but not counted. The full authoritative state is kept (deck, piles, log, move list).

    python3 run.py bench   # or: .venv/bin/python bench/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.bots import random_code  # noqa: E402
from engine.game import PLAY  # noqa: E402
from engine.moves import DRAW, TAKE  # noqa: E402


def classic_random_play(players: int, seconds: float, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    turns = games = 0
    elapsed = 0.0
    i = 0
    while elapsed < seconds:
        g = engine.new_game(names, seed=f"bench-{seed}-{i}")
        i += 1
        t0 = time.perf_counter()
        while g.phase != "game_over":
            s = g.turn if g.phase == PLAY else g.pending()[0][0]
            code = random_code(g, s, rng)
            if code >> 4 in (DRAW, TAKE):
                turns += 1
            g.play_code(s, code)
        elapsed += time.perf_counter() - t0
        games += 1
    return {"players": players, "turns_per_s": turns / elapsed, "games_per_s": games / elapsed,
            "turns": turns, "games": games}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(f"classic random play, one core, {sys.version.split()[0]}")
    for n in (2, 4, 8):
        r = classic_random_play(n, args.seconds)
        print(f"  {n} players: {r['turns_per_s']:>10,.0f} turns/s  {r['games_per_s']:>8,.1f} games/s "
              f"({r['games']} games)")
    from bench import engine_api  # type: ignore[attr-defined]

    engine_api.main(200)  # the public API, 4 players (issue 33.4; callgrind figures: see that module)
    try:
        from bench import engine_action  # type: ignore[attr-defined]
    except ImportError:
        return
    engine_action.main(args.seconds)


if __name__ == "__main__":
    main()
