"""The random and greedy bots (used by the service for timeouts)."""

from __future__ import annotations

import random

import pytest

import engine
from engine.game import DOWN
from service.cli import simulate

from .helpers import NAMES


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_make_every_kind_of_decision_legally(bot: str) -> None:
    for seed in range(5):
        g = engine.new_game(NAMES[:4], seed=seed)
        rng = random.Random(seed)
        kinds = set()
        while not g.is_over:
            for p in g.pending():
                kinds.add(p.kind)
                move = engine.bot_move(g, p.seat, bot, rng)
                assert move in g.legal_moves(p.seat)
            p = g.pending()[0]
            g.play(p.seat, engine.bot_move(g, p.seat, bot, rng))
        assert {"reveal", "turn", "place_drawn"} <= kinds


def test_bot_refuses_a_seat_that_owes_nothing() -> None:
    g = engine.new_game(["Ann", "Bo"], seed=1)
    g.play(0, "reveal A1")
    g.play(0, "reveal B1")
    with pytest.raises(ValueError, match="owes no decision"):
        engine.bot_move(g, 0, "greedy")
    with pytest.raises(ValueError, match="unknown bot"):
        engine.bot_move(g, 1, "clever")


def _hide_differently(g: engine.Game) -> engine.Game:
    """Same public information, different face-down values and draw pile (C13)."""
    data = g.to_json()
    hidden = [(s, c) for s in g.active for c in range(12) if g.face[s][c] == DOWN]
    values = [data["vals"][s][c] for s, c in hidden] + data["draw"]
    random.Random(99).shuffle(values)
    for i, (s, c) in enumerate(hidden):
        data["vals"][s][c] = values[i]
    data["draw"] = values[len(hidden):]
    return engine.Game.from_json(data)


def test_greedy_uses_only_what_its_seat_may_see() -> None:
    for seed in range(20):
        g = engine.new_game(NAMES[:3], seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(6, 60)):
            p = g.pending()[0]
            g.play(p.seat, engine.bot_move(g, p.seat, "greedy", rng))
            if g.is_over:
                break
        if g.is_over or g.pending()[0].kind == "place_drawn":
            continue  # a drawn card is private knowledge of the bot's own seat: fine either way
        other = _hide_differently(g)
        seat = g.pending()[0].seat
        assert engine.bot_move(g, seat, "greedy", random.Random(1)) == \
            engine.bot_move(other, seat, "greedy", random.Random(1))


def test_greedy_scores_better_than_random_and_is_doubled_less() -> None:
    greedy = simulate(4, 40, "bots", "greedy")
    rand = simulate(4, 40, "bots", "random")
    assert greedy["mean_round_score"] < rand["mean_round_score"] - 5
    assert greedy["closer_doubled_rate"] < rand["closer_doubled_rate"]
