"""Property tests over random SKYJO Action games (hypothesis), as for classic.

After every move both decks are conserved (A1); every few moves every seat's and the spectator's
view is checked to be **unchanged when everything that viewer cannot know is reshuffled** (face-down
cards outside its insight knowledge, the draw pile, another seat's drawn card or draw-three cards,
other seats' insight knowledge kept consistent with the reshuffled grids): a view that leaks any of
it changes, and `test_the_view_check_catches_a_leak` shows the check failing on a leaky view. At the
end: termination, JSON and replay round trips."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.action.game import STAGE_THREE, ActionGame
from engine.action.rules import ACTION_COUNTS, GAME_COUNTS
from engine.game import DOWN, GONE, PLAY, STAGE_DRAWN
from engine.variants import VARIANTS

from .helpers import NAMES, assert_json_round_trip, random_mid_game

options_strategy = st.fixed_dictionaries(
    {
        "final_reveal_removal": st.booleans(),
        "round_starter": st.sampled_from(["previous_closer", "highest_reveal", "previous_winner"]),
        "doubling_tie": st.sampled_from(["strict", "lenient"]),
        "target_score": st.integers(min_value=1, max_value=40),
        "final_tiebreak": st.sampled_from(["most_rounds_won", "shared", "extra_round"]),
    }
)


def game_cards(g: ActionGame) -> Counter[Any]:
    cards: list[Any] = list(g.draw) + list(g.discard) + list(g.three)
    if g.held is not None:
        cards.append(g.held)
    for s in g.active:
        cards += [v for v, f in zip(g.vals[s], g.face[s], strict=True) if f != GONE]
    return Counter(cards)


def action_cards(g: ActionGame) -> Counter[str]:
    every = list(g.adeck) + [c for c in g.arow if c] + list(g.adiscard) + list(g.in_play)
    return Counter(every + [c for h in g.hands for c in h])


def scrambled(g: ActionGame, viewer: int | None, rng: random.Random) -> ActionGame:
    """A copy of `g` in which everything `viewer` cannot know is reshuffled."""
    c = copy.copy(g)  # shares everything a view only reads; the hidden parts are copied below
    c.vals = [list(row) for row in g.vals]
    c.draw = list(g.draw)
    c.three = list(g.three)
    c.known = [[list(k) for k in lst] for lst in g.known]
    known = {(t, cell) for t, cell, _ in c.known[viewer]} if viewer is not None else set()
    slots: list[tuple[Any, ...]] = [
        ("grid", s, i) for s in c.active for i in range(12) if c.face[s][i] == DOWN and (s, i) not in known
    ]
    slots += [("draw", i) for i in range(len(c.draw))]
    mine = viewer is not None and c.phase == PLAY and viewer == c.turn
    if c.phase == PLAY and c.stage == STAGE_DRAWN and not mine:
        slots.append(("held",))
    if c.phase == PLAY and c.stage == STAGE_THREE and not mine:
        slots += [("three", i) for i in range(len(c.three))]

    def get(slot: tuple[Any, ...]) -> Any:
        if slot[0] == "grid":
            return c.vals[slot[1]][slot[2]]
        if slot[0] == "draw":
            return c.draw[slot[1]]
        if slot[0] == "three":
            return c.three[slot[1]]
        return c.held

    def put(slot: tuple[Any, ...], value: Any) -> None:
        if slot[0] == "grid":
            c.vals[slot[1]][slot[2]] = value
        elif slot[0] == "draw":
            c.draw[slot[1]] = value
        elif slot[0] == "three":
            c.three[slot[1]] = value
        else:
            c.held = value

    values = [get(s) for s in slots]
    rng.shuffle(values)
    for s, v in zip(slots, values, strict=True):
        put(s, v)
    for s in range(c.n):  # the others' insight knowledge stays true in the reshuffled world
        if s != viewer:
            c.known[s] = [[t, cell, c.vals[t][cell]] for t, cell, _ in c.known[s]]
    return c


def check_view(g: ActionGame, viewer: int | None, rng: random.Random) -> None:
    v = engine.view(g, viewer)
    text = json.dumps(v)  # JSON-ready
    for key in ('"seed"', '"vals"', '"adeck"', '"round_specs"', g.seed):
        assert key not in text
    assert engine.view(scrambled(g, viewer, rng), viewer) == v, "the view shows something hidden"
    if viewer is None:
        assert v["legal_moves"] == [] and v["action"]["private"] is None
    for e in v["log"]:
        if e["type"] in ("draw", "draw_three", "star_trigger"):
            assert "value" not in e and "cards" not in e
        if e["type"] == "meteor_hit":
            assert set(e) == {"type", "seat", "cell", "discarded", "text"}


def play_random_game(
    players: int, options: dict[str, Any], seed: int, bot: str, view_every: int = 6
) -> ActionGame:
    g = engine.new_game(NAMES[:players], "action", options, seed=f"secret-{seed:x}")
    assert isinstance(g, ActionGame)
    rng = random.Random(seed)
    deck, adeck = Counter(GAME_COUNTS), Counter(ACTION_COUNTS)
    moves = 0
    while not g.is_over:
        pend = g.pending()
        assert pend, "a running game always has a pending decision"
        assert len({p.seat for p in pend}) == len(pend), "one decision per seat at a time"
        seat = rng.choice(pend).seat
        assert g.legal_moves(seat)
        for other in range(players):
            if other not in {p.seat for p in pend}:
                assert g.legal_moves(other) == []
        g.play(seat, engine.bot_move(g, seat, bot, rng))
        moves += 1
        assert game_cards(g) == deck and action_cards(g) == adeck
        if moves % view_every == 0 or g.is_over:
            for viewer in [*range(players), None]:
                check_view(g, viewer, rng)
        assert moves < 20_000, "the game must terminate"
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=8),
    options=options_strategy,
    seed=st.integers(min_value=0, max_value=2**32),
    bot=st.sampled_from(["random", "greedy", "mixed"]),
)
def test_a1_c13_random_action_games_conserve_decks_hide_information_and_replay(
    players: int, options: dict[str, Any], seed: int, bot: str
) -> None:
    g = play_random_game(
        players,
        options,
        seed,
        "random" if bot == "mixed" and seed % 2 else ("greedy" if bot == "mixed" else bot),
    )
    assert g.winners and all(g.totals[w] == min(g.totals[s] for s in g.winners) for w in g.winners)
    state = json.loads(json.dumps(g.to_json()))
    assert engine.Game.from_json(state).to_json() == g.to_json()
    assert engine.replay(json.loads(json.dumps(g.record()))).to_json() == g.to_json()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_action_state_round_trips_mid_game(data: st.DataObject) -> None:
    players = data.draw(st.integers(2, 8))
    g = random_mid_game(
        "action",
        players,
        data.draw(st.integers(0, 10**9)),
        data.draw(st.integers(0, 10**9)),
        data.draw(st.integers(0, 250)),
    )
    assert_json_round_trip(g)
    for s in range(players):  # every legal move's text parses back to that move
        for m in g.legal_moves(s):
            assert g.parse_move(m.text()) == m or g.bind(s, g.parse_move(m.text())) == m
    assert engine.replay(g.record()).to_json() == g.to_json()


LEAKS = {
    "others' insight": lambda g, seat: [list(k) for s in range(g.n) if s != seat for k in g.known[s]],
    "face-down values": lambda g, seat: [
        g.vals[s][i] for s in g.active for i in range(12) if g.face[s][i] == DOWN
    ],
    "draw pile top": lambda g, seat: g.draw[-3:],
}


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_the_view_check_catches_a_leak(monkeypatch: pytest.MonkeyPatch, leak: str) -> None:
    g = engine.new_game(["Ann", "Bo", "Cy"], "action", seed="view-check-seed-91")
    rng = random.Random(3)
    while not (g.phase == PLAY and any(g.known)):  # play until someone holds insight knowledge
        seat = g.pending()[0].seat
        moves = g.legal_moves(seat)
        insight = [m for m in moves if getattr(m, "card", None) == "insight" and m.kind == "play"]
        take = [m for m in moves if getattr(m, "kind", None) == "action_deck"]
        g.play(seat, (insight or take or [engine.bot_move(g, seat, "random", rng)])[0])
        if g.is_over:
            pytest.fail("no insight was played")
    owner = next(s for s in range(3) if g.known[s])
    other = (owner + 1) % 3
    check_view(g, other, rng)  # the real view passes
    original = VARIANTS["action"].view
    assert original is not None

    def leaky(game: ActionGame, data: dict[str, Any], seat: int | None) -> None:
        original(game, data, seat)
        data["action"]["peek"] = LEAKS[leak](game, seat)

    monkeypatch.setitem(VARIANTS, "action", dataclasses.replace(VARIANTS["action"], view=leaky))
    with pytest.raises(AssertionError, match="hidden"):
        for _ in range(10):  # a reshuffle could by chance keep every known value
            check_view(g, other, rng)


def test_corrupted_action_state_is_rejected() -> None:
    g = engine.new_game(["Ann", "Bo"], "action", seed=1)
    for _field, change in [
        ("adeck", lambda d: d["adeck"].pop()),
        ("hands", lambda d: d["hands"][0].append("thief")),
        ("arow", lambda d: d["arow"].__setitem__(0, "laser")),
        ("queue", lambda d: d["queue"].append({"kind": "nap", "seat": 0})),
    ]:
        data = g.to_json()
        change(data)
        with pytest.raises(engine.StateError):
            engine.Game.from_json(data)
    data = g.to_json()
    data["draw"].append("star")
    with pytest.raises(engine.StateError, match="one deck"):
        engine.Game.from_json(data)
