"""Bots against bots: N games with a bot in each seat, rotating seats, and each bot's figures.

`play_match(["strong", "greedy", "greedy", "greedy"], games=400, seed="s")` plays game i with seed
`"<seed>-<i>"` (as `skyjo-pbem simulate` does), the bots' RNG seeded from the same text, and the
list rotated by i (seat s gets `bots[(s + i) % n]`), so no seat order favours a bot. For every bot
name it returns the win rate per seat that bot played (a game won by k tied seats counts 1/k for
each, C12/A11), its mean round score and its mean time per decision. Every game is guarded by
`RepetitionGuard` (bots playing in a circle raise `RepeatedPosition`). `jobs > 1` spreads the games
over processes; the figures do not depend on it.
"""

from __future__ import annotations

import random as _random
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .api import new_game
from .bots import bot_move
from .repetition import RepetitionGuard


def _new_tally() -> dict[str, float]:
    return {"seats": 0, "wins": 0.0, "rounds": 0, "score": 0.0, "decisions": 0, "seconds": 0.0}


def play_game(
    bots: list[str], index: int, seed: str | None, variant: str = "classic", options: dict[str, Any] | None = None
) -> dict[str, dict[str, float]]:
    """Game `index` of a match: its tallies per bot name."""
    n = len(bots)
    seats = [bots[(s + index) % n] for s in range(n)]
    game = new_game([f"P{s + 1}" for s in range(n)], variant, options, seed=None if seed is None else f"{seed}-{index}")
    rng = _random.Random(None if seed is None else f"{seed}-{index}")
    tally = {name: _new_tally() for name in bots}
    guard = RepetitionGuard()
    clock = time.perf_counter
    while True:
        pend = game.pending()
        if not pend:
            break
        seat = pend[0].seat
        t = tally[seats[seat]]
        start = clock()
        move = bot_move(game, seat, seats[seat], rng)
        t["seconds"] += clock() - start
        t["decisions"] += 1
        game.play(seat, move)
        guard.check(game)
    winners = game.winners or []
    for s, name in enumerate(seats):
        t = tally[name]
        t["seats"] += 1
        if s in winners:
            t["wins"] += 1 / len(winners)
        for r in game.rounds:
            if r["scores"][s] is not None:
                t["rounds"] += 1
                t["score"] += r["scores"][s]
    return tally


def _play_range(
    bots: list[str], indices: Iterable[int], seed: str | None, variant: str, options: dict[str, Any] | None
) -> dict[str, dict[str, float]]:
    total = {name: _new_tally() for name in bots}
    for i in indices:
        for name, t in play_game(bots, i, seed, variant, options).items():
            for key, value in t.items():
                total[name][key] += value
    return total


def play_match(
    bots: list[str],
    games: int,
    seed: str | None,
    variant: str = "classic",
    options: dict[str, Any] | None = None,
    jobs: int = 1,
) -> dict[str, dict[str, float]]:
    """`games` games of `bots` (one name per seat, rotating); per bot name: win_rate,
    mean_round_score, mean_decision_ms (see the module docstring)."""
    if jobs > 1 and games > 1:
        chunks = [range(k, games, jobs) for k in range(jobs)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            parts = list(pool.map(_play_range, [bots] * jobs, chunks, [seed] * jobs, [variant] * jobs, [options] * jobs))
    else:
        parts = [_play_range(bots, range(games), seed, variant, options)]
    total = {name: _new_tally() for name in bots}
    for part in parts:
        for name, t in part.items():
            for key, value in t.items():
                total[name][key] += value
    return {
        name: {
            "win_rate": round(t["wins"] / t["seats"], 4) if t["seats"] else 0.0,
            "mean_round_score": round(t["score"] / t["rounds"], 3) if t["rounds"] else 0.0,
            "mean_decision_ms": round(1000 * t["seconds"] / t["decisions"], 3) if t["decisions"] else 0.0,
        }
        for name, t in total.items()
    }
