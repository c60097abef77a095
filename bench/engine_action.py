"""SKYJO Action benchmark: random-play turns/s and games/s on one core (numbers, not pass/fail).

A turn is one seat's complete turn (A4: draw or take a game card, take an action card, or play or
discard one); opening reveals and out-of-turn decisions are played but not counted. The full
authoritative state is kept. Run by bench/engine.py, or alone:

    .venv/bin/python bench/engine_action.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.action.bots import random_move  # noqa: E402
from engine.game import PLAY, STAGE_TURN  # noqa: E402


def action_random_play(players: int, seconds: float, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    turns = games = 0
    elapsed = 0.0
    i = 0
    while elapsed < seconds:
        g = engine.new_game(names, "action", seed=f"bench-action-{seed}-{i}")
        i += 1
        t0 = time.perf_counter()
        while g.phase != "game_over":
            pend = g.pending()
            s = pend[0][0]
            if g.phase == PLAY and not g.queue and g.stage == STAGE_TURN:
                turns += 1  # the turn seat starts a turn
            g.play(s, random_move(g, s, rng))
        elapsed += time.perf_counter() - t0
        games += 1
    return {"players": players, "turns_per_s": turns / elapsed, "games_per_s": games / elapsed,
            "turns": turns, "games": games}


def main(seconds: float = 3.0) -> None:
    print(f"SKYJO Action random play, one core, {sys.version.split()[0]}")
    for n in (2, 4, 8):
        r = action_random_play(n, seconds)
        print(f"  {n} players: {r['turns_per_s']:>10,.0f} turns/s  {r['games_per_s']:>8,.1f} games/s "
              f"({r['games']} games)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    main(parser.parse_args().seconds)
