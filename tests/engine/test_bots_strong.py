"""The strong bot (issue 18): it decides only from what its seat may see (C13; A9.4 Insight), makes
legal moves, is deterministic given its RNG, finishes games; `simulate --bots` prints its figures.
Win-rate figures are measured, not tested: see docs/bots.md."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine.arena import play_game
from engine.game import DOWN, STAGE_DRAWN
from engine.seatview import determinize, unseen
from engine.strong import bot_for_level
from service.cli import main

from .helpers import NAMES

STAGE_THREE = 3


def scramble(game: engine.Game, seat: int, rng: random.Random) -> engine.Game:
    """Everything `seat` cannot see, dealt again at random and consistently (C13): the face-down
    cards it did not see by Insight, the draw pile, another seat's drawn card or Draw three cards,
    the action deck's order, the other seats' Insight knowledge (rewritten to the new cards), the
    seed and round seeds (future reshuffles)."""
    data = game.to_json()
    action = data["variant"] == "action"
    known = {(t, c) for t, c, _v in data["known"][seat]} if action else set()
    slots: list[tuple[Any, Any]] = [
        (data["vals"][s], c)
        for s in data["active"]
        for c in range(12)
        if data["face"][s][c] == DOWN and (s, c) not in known
    ]
    slots += [(data["draw"], i) for i in range(len(data["draw"]))]
    others_turn = data["phase"] == "play" and data["turn"] != seat
    if others_turn and data["held"] is not None and data["stage"] == STAGE_DRAWN:
        slots.append((data, "held"))
    if action and others_turn and data["stage"] == STAGE_THREE:
        slots += [(data["three"], i) for i in range(len(data["three"]))]
    cards = [box[key] for box, key in slots]
    rng.shuffle(cards)
    for (box, key), card in zip(slots, cards, strict=True):
        box[key] = card
    if action:
        rng.shuffle(data["adeck"])
        for s, lst in enumerate(data["known"]):
            if s != seat:
                for entry in lst:
                    entry[2] = data["vals"][entry[0]][entry[1]]
    data["seed"] = f"scrambled-{rng.getrandbits(64)}"
    for spec in data["round_specs"]:
        spec.pop("deal", None)
        spec["seed"] = f"scrambled-{rng.getrandbits(64)}"
    new = engine.Game.from_json(data)
    assert engine.view(new, seat) == engine.view(game, seat), "the scramble must look the same to the seat"
    return new


def _positions(variant: str, players: int, seed: int, every: int) -> list[tuple[engine.Game, int]]:
    """Positions of one game played by a mix of bots, every `every`-th decision, with a seat owing."""
    g = engine.new_game(NAMES[:players], variant, seed=f"pos-{seed}")
    rng = random.Random(seed)
    bots = ["strong", "greedy", "random", "easy"]
    found = []
    step = 0
    while not g.is_over and step < 3000:
        pend = g.pending()
        p = pend[int(rng.random() * len(pend))]
        if step % every == 0:
            found.append((engine.copy_game(g), p.seat))
        g.play(p.seat, engine.bot_move(g, p.seat, bots[(p.seat + seed) % len(bots)], rng))
        step += 1
    return found


@pytest.mark.parametrize(
    "variant,players,games,every", [("classic", 2, 4, 7), ("classic", 4, 3, 9), ("action", 3, 4, 7), ("action", 2, 3, 5)]
)
def test_c13_a9_strong_decision_does_not_change_when_hidden_cards_are_scrambled(
    variant: str, players: int, games: int, every: int
) -> None:
    """C13 / A9.4: scramble every card the deciding seat cannot see (and the others' Insight knowledge,
    the action deck, the seeds) in three ways: the strong bot's decision stays the same (same RNG)."""
    kinds: Counter[str] = Counter()
    checked = 0
    for seed in range(games):
        for game, seat in _positions(variant, players, seed, every):
            kind = game.owes(seat)
            move = engine.bot_move(game, seat, "strong", random.Random(7))
            rng = random.Random(seed * 1000 + checked)
            for _ in range(3):
                other = scramble(game, seat, rng)
                assert engine.bot_move(other, seat, "strong", random.Random(7)) == move, (variant, kind)
            kinds[kind] += 1
            checked += 1
    assert checked >= 60
    assert {"turn", "place_drawn", "place_taken"} <= set(kinds)


def test_a9_4_strong_decision_ignores_what_others_saw_by_insight() -> None:
    """A9.4: Insight knowledge is private. At positions where other seats know face-down cards (and
    the deciding seat may know some too), scrambling the cards the deciding seat has not seen - and
    with them the others' knowledge - does not change the strong bot's decision."""
    checked = 0
    for seed in range(6):
        g = engine.new_game(NAMES[:3], "action", seed=f"ins-{seed}")
        rng = random.Random(seed)
        step = 0
        while not g.is_over and step < 1500 and checked < 8 * (seed + 1):
            seat = g.pending()[0].seat
            if g.phase == "play" and any(g.known[s] for s in g.active if s != seat) and step % 3 == 0:
                move = engine.bot_move(g, seat, "strong", random.Random(7))
                for _ in range(2):
                    other = scramble(g, seat, rng)
                    assert engine.bot_move(other, seat, "strong", random.Random(7)) == move
                checked += 1
            g.play(seat, engine.bot_move(g, seat, "random", rng))
            step += 1
    assert checked >= 20


def test_seat_view_copy_looks_the_same_and_is_the_same_for_scrambled_games() -> None:
    """The copy the bot decides on shows the seat exactly its view, and is a function of that view:
    a scrambled game gives the same copy (engine.seatview.determinize)."""
    for variant in ("classic", "action"):
        for game, seat in _positions(variant, 3, 11, 13):
            copy = determinize(game, seat)
            assert engine.view(copy, seat) == engine.view(game, seat)
            assert unseen(game, seat) == unseen(copy, seat)
            other = scramble(game, seat, random.Random(5))
            assert determinize(other, seat).to_json() == copy.to_json()
            sample = determinize(game, seat, random.Random(3))
            assert engine.view(sample, seat) == engine.view(game, seat)


@pytest.mark.parametrize("variant,players,seeds", [("classic", 2, 2), ("classic", 4, 1), ("action", 2, 2), ("action", 4, 1)])
def test_strong_moves_are_legal_and_games_finish(variant: str, players: int, seeds: int) -> None:
    """Every decision of every kind the strong bot makes is legal (C4-C9, A4-A9), and games against
    the greedy bot (and, with seed 1, between strong bots only) end (C12/A11)."""
    kinds: set[str] = set()
    for seed in range(seeds):
        g = engine.new_game(NAMES[:players], variant, seed=f"legal-{variant}-{seed}")
        rng = random.Random(seed)
        bots = {s: ("strong" if (s + seed) % 2 == 0 or seed == 1 else "greedy") for s in range(players)}
        if players == 4:
            bots = {0: "strong", 1: "strong", 2: "greedy", 3: "strong"}
        guard = engine.RepetitionGuard()
        while not g.is_over:
            for p in g.pending():
                if bots[p.seat] == "strong":
                    kinds.add(p.kind)
                    assert engine.bot_move(g, p.seat, "strong", rng) in g.legal_moves(p.seat)
            seat = g.pending()[0].seat
            g.play(seat, engine.bot_move(g, seat, bots[seat], rng))
            guard.check(g)
        assert g.winners
    assert {"reveal", "turn", "place_drawn"} <= kinds


@pytest.mark.parametrize(
    "options",
    [
        {"column_removal": False, "final_reveal_removal": False, "target_score": 50},
        {"doubling": False, "target_score": 50},
        {"doubling_tie": "lenient", "doubling_positive_only": False, "target_score": 50},
    ],
)
def test_c8_c10_strong_plays_legally_under_other_options(options: dict[str, Any]) -> None:
    """C8 without column removal, C10 without doubling or with its other ties: still legal, still ends."""
    g = engine.new_game(NAMES[:3], options=options, seed="options")
    rng = random.Random(2)
    while not g.is_over:
        seat = g.pending()[0].seat
        move = engine.bot_move(g, seat, "strong" if seat != 1 else "greedy", rng)
        assert move in g.legal_moves(seat)
        g.play(seat, move)
    if not options.get("column_removal", True):
        assert not any(r["removed_columns"] for r in g.rounds)


def test_strong_bot_is_deterministic_given_its_rng() -> None:
    """The same game and RNG seed give the same whole game (records equal), classic and Action."""
    for variant in ("classic", "action"):
        records = []
        for _ in range(2):
            g = engine.new_game(NAMES[:3], variant, seed=f"det-{variant}")
            engine.play_out(g, {0: "strong", 1: "greedy", 2: "strong"}, random.Random("same"))
            records.append(engine.record(g))
        assert records[0] == records[1]


def test_levels_name_the_bots_of_computer_seats() -> None:
    assert [bot_for_level(x) for x in ("easy", "normal", "strong")] == ["easy", "greedy", "strong"]
    with pytest.raises(ValueError, match="unknown level"):
        bot_for_level("expert")
    for variant in ("classic", "action"):
        g = engine.new_game(NAMES[:2], variant, seed=3)
        engine.play_out(g, "easy", random.Random(3))
        assert g.is_over


def test_strong_refuses_a_seat_that_owes_nothing() -> None:
    for variant in ("classic", "action"):
        g = engine.new_game(["Ann", "Bo"], variant, seed=0)
        g.play(0, "reveal A1")
        g.play(0, "reveal B1")
        assert not g.legal_moves(0)  # (no star among them: no A7 decision)
        with pytest.raises(ValueError, match="owes no decision"):
            engine.bot_move(g, 0, "strong")


def test_arena_rotates_seats_and_counts_shared_wins() -> None:
    """Game i seats bots[(s + i) % n] in seat s; every seat of a game is counted, ties shared."""
    tally = play_game(["strong", "greedy", "greedy"], 1, "arena")
    assert tally["strong"]["seats"] == 1 and tally["greedy"]["seats"] == 2
    assert tally["strong"]["wins"] + tally["greedy"]["wins"] == pytest.approx(1.0)
    assert tally["strong"]["decisions"] > 0 and tally["strong"]["rounds"] >= 1


@pytest.mark.parametrize("variant", ["classic", "action"])
def test_cli_simulate_bots_prints_figures_as_its_last_line(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`skyjo-pbem simulate --bots strong,greedy --games N --seed S`: the last line is one JSON object
    with win_rate, mean_round_score and mean_decision_ms per bot (issue 18.4); the same seed gives
    the same win rates and scores."""
    args = ["simulate", "--bots", "strong,greedy", "--games", "2", "--seed", "cli", "--variant", variant]
    assert main(args) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    out = json.loads(last)
    assert set(out["bots"]) == {"strong", "greedy"}
    for figures in out["bots"].values():
        assert set(figures) == {"win_rate", "mean_round_score", "mean_decision_ms"}
        assert 0 <= figures["win_rate"] <= 1 and figures["mean_decision_ms"] > 0
    assert out["bots"]["strong"]["win_rate"] + out["bots"]["greedy"]["win_rate"] == pytest.approx(1.0)
    assert main([*args, "--jobs", "2"]) == 0
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for name in ("strong", "greedy"):
        for key in ("win_rate", "mean_round_score"):
            assert again["bots"][name][key] == out["bots"][name][key]


def test_cli_simulate_bots_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "strong,clever", "--games", "1"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err
    assert main(["simulate", "--bots", "strong,greedy", "--players", "3", "--games", "1"]) == 2
    assert main(["simulate", "--bots", "strong", "--games", "1"]) == 2
    assert main(["simulate", "--bots", "strong,greedy", "--games", "1", "--jobs", "0"]) == 2
