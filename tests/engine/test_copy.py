"""`Game.copy()` (issue 27.2: a plan's trial plays copy the game instead of decoding its saved form
again): at every step of random games of both variants the copy saves exactly what the game saves,
passes the invariant check a decode would run, and plays on without touching the original."""

from __future__ import annotations

import random

import pytest

import engine
from engine import state


@pytest.mark.parametrize("variant,players", [("classic", 2), ("classic", 4), ("action", 2), ("action", 3)])
def test_a_copy_is_the_same_game_and_independent_of_it(variant: str, players: int) -> None:
    rng = random.Random(f"copy-{variant}-{players}")
    g = engine.new_game([f"P{i}" for i in range(players)], variant, seed=f"copy-{variant}-{players}")
    steps = 0
    while not g.is_over and steps < 400:
        c = g.copy()
        assert type(c) is type(g)
        assert c.to_json() == g.to_json() == type(g).from_json(g.to_json()).to_json()
        state.check_invariants(c)
        seat = g.pending()[0].seat
        move = engine.bot_move(g, seat, "random", rng)
        before = g.to_json()
        c.play(seat, move)  # the copy moves on ...
        assert g.to_json() == before  # ... the original does not
        g.play(seat, move)
        assert c.to_json() == g.to_json()  # and the same move on both gives the same game
        steps += 1
    assert steps > 20
