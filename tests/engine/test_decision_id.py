"""`Game.decision_id(seat)` (issue 15.1): a public name of the decision a seat owes, stable while it is
owed, new once it is made; the whole opening reveal of a round is one decision (C4); it survives the
saved state. Classic and SKYJO Action."""

from __future__ import annotations

import random

import engine
from engine.game import Game


def _ids(g) -> list[str | None]:
    return [g.decision_id(s) for s in range(g.n)]


def _reload(g):
    return type(g).from_json(g.to_json())


def test_c4_the_opening_reveal_is_one_decision_for_both_reveals_and_others_do_not_change_it():
    g = Game(["Ann", "Bo", "Cy"], seed=3)
    first = _ids(g)
    assert first == ["1.reveal.0"] * 3
    g.play(1, "reveal A1")
    g.play(0, "reveal A1")
    assert _ids(g) == first  # a reveal of its own or of another seat: the same decision
    g.play(0, "reveal B2")
    assert g.decision_id(0) is None and _ids(_reload(g)) == _ids(g)


def test_c7_each_turn_stage_is_its_own_decision_and_survives_the_saved_state():
    g = Game(["Ann", "Bo", "Cy"], seed=4)
    for s in range(3):
        g.play(s, "reveal A1")
        g.play(s, "reveal B2")
    seat = g.turn
    turn = g.decision_id(seat)
    assert turn.split(".")[1] == "turn" and _reload(g).decision_id(seat) == turn
    g.play(seat, "draw")
    drawn = g.decision_id(seat)
    assert drawn.split(".")[1] == "place_drawn" and drawn != turn
    assert _reload(g).decision_id(seat) == drawn
    g.play(seat, "swap C3")
    assert g.decision_id(seat) is None
    nxt = g.turn
    assert g.decision_id(nxt) not in (None, turn, drawn)


def test_decision_ids_never_repeat_for_a_seat_through_a_whole_game_and_name_only_public_facts():
    rng = random.Random(5)
    g = Game(["Ann", "Bo", "Cy"], seed=5)
    seen: dict[int, list[str]] = {0: [], 1: [], 2: []}
    while not g.is_over:
        p = rng.choice(g.pending())
        d = g.decision_id(p.seat)
        if not seen[p.seat] or seen[p.seat][-1] != d:
            assert d not in seen[p.seat], "a made decision came back"
            seen[p.seat].append(d)
        rnd, kind, since = d.split(".")
        assert int(rnd) == g.round and kind == p.kind and int(since) <= g.version
        g.play(p.seat, engine.bot_move(g, p.seat, "random", rng))
    assert all(g.decision_id(s) is None for s in range(3))


def test_action_queued_decisions_are_their_own_and_the_opening_stays_one():
    rng = random.Random(8)
    g = engine.new_game(["Ann", "Bo", "Cy", "Di"], variant="action", seed=8)
    assert _ids(g) == ["1.reveal.0"] * 4
    seen: dict[int, list[str]] = {s: [] for s in range(4)}
    steps = 0
    while not g.is_over and steps < 3000:
        p = rng.choice(g.pending())
        d = g.decision_id(p.seat)
        assert d is not None and d.split(".")[1] == p.kind and _reload(g).decision_id(p.seat) == d
        if not seen[p.seat] or seen[p.seat][-1] != d:
            # the opening reveal comes back after a star's action-card decision (A7): one decision
            assert d not in seen[p.seat] or d.split(".")[1] == "reveal"
            seen[p.seat].append(d)
        g.play(p.seat, engine.bot_move(g, p.seat, "random", rng))
        steps += 1
    assert sum(len(v) for v in seen.values()) > 50
