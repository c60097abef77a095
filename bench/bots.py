"""Bot decision cost: CPU time per decision of a bot, by decision kind (numbers, not pass/fail).

CPU time of this process (`time.process_time`), so the figure is the cost on one core even when the
machine is shared; the wall time is printed too. Games: the bot in seat 0 against greedy bots.

    .venv/bin/python bench/bots.py [--bot strong] [--variant classic] [--players 4] [--games 10]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402


def measure(bot: str, variant: str, players: int, games: int, seed: str = "bench") -> dict[str, object]:
    cpu: dict[str, list[float]] = defaultdict(list)
    wall = 0.0
    for i in range(games):
        g = engine.new_game([f"P{s + 1}" for s in range(players)], variant, seed=f"{seed}-{i}")
        rng = random.Random(i)
        while not g.is_over:
            p = g.pending()[0]
            name = bot if p.seat == 0 else "greedy"
            c0, w0 = time.process_time(), time.perf_counter()
            move = engine.bot_move(g, p.seat, name, rng)
            if p.seat == 0:
                cpu[p.kind].append(time.process_time() - c0)
                wall += time.perf_counter() - w0
            g.play(p.seat, move)
    every = [t for times in cpu.values() for t in times]
    return {
        "bot": bot,
        "variant": variant,
        "players": players,
        "games": games,
        "decisions": len(every),
        "mean_cpu_ms": round(1000 * sum(every) / len(every), 3),
        "max_cpu_ms": round(1000 * max(every), 3),
        "mean_wall_ms": round(1000 * wall / len(every), 3),
        "mean_cpu_ms_by_kind": {k: round(1000 * sum(v) / len(v), 3) for k, v in sorted(cpu.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bot", default="strong")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(measure(args.bot, args.variant, args.players, args.games)))


if __name__ == "__main__":
    main()
