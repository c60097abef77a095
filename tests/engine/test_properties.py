"""Property tests over random classic games (hypothesis): 2-8 players, every option combination.

After every move: all 150 cards conserved with exact value counts (C1), no view of any seat or of a
spectator shows anything hidden (C13), and at the end: termination, JSON round trip, replay."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cards import CLASSIC_COUNTS
from engine.game import DOWN, GONE, PLAY, STAGE_DRAWN, UP

from .helpers import NAMES, assert_json_round_trip, random_mid_game

options_strategy = st.fixed_dictionaries(
    {
        "column_removal": st.booleans(),
        "final_reveal_removal": st.booleans(),
        "start_tiebreak": st.sampled_from(["extra_reveal", "highest_card"]),
        "round_starter": st.sampled_from(["previous_closer", "highest_reveal", "previous_winner"]),
        "doubling": st.booleans(),
        "doubling_tie": st.sampled_from(["strict", "lenient"]),
        "doubling_positive_only": st.booleans(),
        "target_score": st.integers(min_value=1, max_value=120),
        "final_tiebreak": st.sampled_from(["extra_round", "most_rounds_won", "shared"]),
    }
)


def all_cards(g: engine.Game) -> Counter[int]:
    cards: list[int] = list(g.draw) + list(g.discard)
    if g.held is not None:
        cards.append(g.held)
    for s in g.active:
        cards += [v for v, f in zip(g.vals[s], g.face[s], strict=True) if f != GONE]
    return Counter(cards)


def check_view(g: engine.Game, seat: int | None) -> None:
    v = engine.view(g, seat)
    assert json.loads(json.dumps(v)) == v  # plain JSON data: it round-trips (mail intents store it)
    assert engine.view(g, seat, log=False) == {k: x for k, x in v.items() if k != "log"}
    text = json.dumps(v)  # JSON-ready
    for key in ('"seed"', '"vals"', '"draw":', '"round_specs"', g.seed):
        assert key not in text
    for p in v["players"]:
        s = p["seat"]
        for i, cell in enumerate(p["grid"]):
            face = g.face[s][i] if s in g.active else GONE
            if face == UP:
                assert cell["face"] == "up" and cell["value"] == g.vals[s][i]
            else:
                assert cell["value"] is None and cell["face"] == ("down" if face == DOWN else "removed")
    held = v["held"]
    if g.phase == PLAY and g.stage == STAGE_DRAWN:
        assert held["value"] == (g.held if seat == g.turn else None)
    for e in v["log"]:
        if e["type"] == "draw":
            assert set(e) <= {"type", "seat", "text"}
    if seat is None:
        assert v["legal_moves"] == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=8),
    options=options_strategy,
    seed=st.integers(min_value=0, max_value=2**32),
    bot=st.sampled_from(["random", "greedy"]),
)
def test_c1_c13_random_games_conserve_cards_hide_information_and_replay(
    players: int, options: dict[str, Any], seed: int, bot: str
) -> None:
    g = engine.new_game(NAMES[:players], options=options, seed=f"secret-seed-{seed:x}")
    deck = Counter(CLASSIC_COUNTS)
    rng = random.Random(seed)
    moves = 0
    while not g.is_over:
        pend = g.pending()
        assert pend, "a running game always has a pending decision"
        seat = rng.choice(pend).seat
        legal = g.legal_moves(seat)
        assert legal
        g.play(seat, engine.bot_move(g, seat, bot, rng))
        moves += 1
        assert all_cards(g) == deck
        if moves % 7 == 0 or g.is_over:
            for viewer in [*range(players), None]:
                check_view(g, viewer)
        assert moves < 20_000, "the game must terminate"
    assert g.winners and all(g.totals[w] == min(g.totals[s] for s in g.winners) for w in g.winners)
    state = json.loads(json.dumps(g.to_json()))
    assert engine.Game.from_json(state).to_json() == g.to_json()
    assert engine.replay(json.loads(json.dumps(g.record()))).to_json() == g.to_json()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_state_round_trips_mid_game(data: st.DataObject) -> None:
    g = random_mid_game(
        "classic",
        data.draw(st.integers(2, 8)),
        data.draw(st.integers(0, 10**9)),
        data.draw(st.integers(0, 10**9)),
        data.draw(st.integers(0, 300)),
    )
    assert_json_round_trip(g)


def test_corrupted_state_is_rejected() -> None:
    g = engine.new_game(["Ann", "Bo"], seed=1)
    data = g.to_json()
    data["draw"].pop()
    try:
        engine.Game.from_json(data)
    except engine.StateError as exc:
        assert "one deck" in str(exc)
    else:
        raise AssertionError("a state missing a card must not load")
    for broken, needle in [
        ({**g.to_json(), "schema": 99}, "schema"),
        ({**g.to_json(), "phase": "nap"}, "phase"),
    ]:
        try:
            engine.Game.from_json(broken)
        except engine.StateError as exc:
            assert needle in str(exc)
        else:
            raise AssertionError(f"{needle} must be checked")
