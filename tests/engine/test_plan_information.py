"""C13 through plans: the answer to a whole-turn plan never depends on cards its writer cannot see.

A plan is checked against what the seat could see when writing it (`engine.view(game, seat)`); it is
refused (nothing applied) only for reasons decided before any hidden card is used, with a message
that names no hidden card; once a step turns a card up, what follows either has a branch for it or
the plan stops there (issue 20.3). So for a position and a plan the answer - refused or not, the
refusal's type and message, the moves of the plan's head that were played and where the plan
stopped - is the same for every hidden deal consistent with the seat's view: the face-down cards,
the draw pile, another seat's drawn cards shuffled among their places, the action deck reshuffled,
a new seed (`helpers.redeal`). Only the moves of an `if` branch, chosen by the drawn card, may differ.

Positions come from random classic and SKYJO Action games (openings, the last opener of the opening
whose reveals decide the start (C5, A3), play, final turns); plans are written from the seat's
legal moves, the moves that may follow them, moves the seat may not have, and conditions on the
drawn card. Seeded: the same cases every run, about ten seconds in all.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.action.rules import STAR
from engine.errors import EngineError, IllegalMove
from engine.game import UP
from engine.moves import Move
from engine.plans import PlanSteps, Stop, parse_plan

from .helpers import grid, new, position, random_mid_game, redeal
from .test_action_rules import PLAIN, setup
from .test_action_rules import grid as action_grid
from .test_action_rules import new as action_new

DEALS = 6  # hidden deals per position, besides the real one
PLANS = 12  # plans per position
POSITIONS = 96  # per variant
_CONDITIONS = {
    "classic": ["4 or less", "between 0 and 5", "9 or more", "not 12", "negative"],
    "action": ["4 or less", "star", "not star", "between 3 and 8", "10 or more"],
}
_STRAYS = [
    "draw",
    "take",
    "reveal C1",
    "decline",
    "action row 1",
    "action deck",
    "pick none",
    "keep",
    "allow",
    "flip D3",
]


def _copy(game: engine.Game) -> engine.Game:
    return type(game).from_json(game.to_json())


def answer(game: engine.Game, seat: int, text: str) -> tuple[Any, ...]:
    """What the player is told: refused (type, message), or the head moves played and the stop."""
    g = _copy(game)
    try:
        plan = parse_plan(g, seat, text)
        steps = plan.apply(g, seat)
    except EngineError as exc:
        return ("refused", type(exc).__name__, str(exc))
    stop = getattr(steps, "stopped", None)
    head = len(plan.moves)
    stopped = None if stop is None or stop.step > head else (stop.step, stop.message)
    return ("played", tuple(m.text() for m, _events in steps[:head]), stopped)


def _walk(game: engine.Game, seat: int, rng: random.Random, start: list[str]) -> list[str]:
    """Up to four moves: mostly ones the seat may play next (as the writer expects them), sometimes
    any move of the start position or a stray one the seat may not have."""
    g = _copy(game)
    moves: list[str] = []
    for _ in range(rng.choice([1, 2, 2, 3, 3, 4])):
        now = [m.text() for m in g.legal_moves(seat)]
        cards = [m for m in now if m.startswith("play ")]  # SKYJO Action: action cards, often
        pool = now if now and (not moves or rng.random() < 0.6) else start + _STRAYS
        pool = cards if cards and rng.random() < 0.5 else pool
        move = rng.choice(pool)
        moves.append(move)
        try:
            g.play(seat, move)
        except EngineError:
            break
    return moves


def _conditional(game: engine.Game, seat: int, rng: random.Random) -> str | None:
    """`draw: if <cond> <moves>, else <moves>` with moves the seat may play after drawing."""
    g = _copy(game)
    try:
        g.play(seat, "draw")
    except EngineError:
        return None
    cond = rng.choice(_CONDITIONS[game.variant])
    branches = []
    for _ in range(2):
        after = [m.text() for m in g.legal_moves(seat)] or _STRAYS
        moves = [rng.choice(after)] + ([rng.choice(_STRAYS)] if rng.random() < 0.2 else [])
        branches.append(", ".join(moves))
    return f"draw: if {cond} {branches[0]}, else {branches[1]}"


def _follow_up(game: engine.Game, seat: int, rng: random.Random, start: list[str]) -> str | None:
    """A move that turns up a card, then what the card may call for: more reveals (C4, C5), an
    action card for a star or not (A7), a move of the next turn."""
    grid = engine.view(game, seat, log=False)["players"][seat]["grid"]
    up = [c["cell"] for c in grid if c["face"] == "up"] or ["A1"]
    down = [c["cell"] for c in grid if c["face"] == "down"] or ["A1"]
    then = rng.choice(
        ["decline", "action row 1", "action deck", "keep", f"reveal {rng.choice(down)}", "draw"]
    )
    if "play draw-three" in start:
        return f"play draw-three, pick {rng.randint(1, 3)} {rng.choice(up)}, {then}"
    if "draw" in start:
        return f"draw, swap {rng.choice(up)}, {then}"
    if "take" in start:
        return f"take, swap {rng.choice(up + down)}, {then}"
    if any(m.startswith("reveal") for m in start):
        return ", ".join(f"reveal {c}" for c in rng.sample(down, min(len(down), rng.randint(2, 3))))
    return None


def plans_for(game: engine.Game, seat: int, rng: random.Random) -> list[str]:
    start = [m.text() for m in game.legal_moves(seat)]
    texts: list[str] = []
    for _ in range(PLANS):
        pick = rng.random()
        text = None
        if pick < 0.25 and "draw" in start:
            text = _conditional(game, seat, rng)
        elif pick > 0.7:
            text = _follow_up(game, seat, rng, start)
        texts.append(text or ", ".join(_walk(game, seat, rng, start)))
    return texts


def positions(variant: str, rng: random.Random) -> list[tuple[engine.Game, int]]:
    """Random positions with a seat that owes a decision; a third of them in the opening, many of
    those with one reveal left (the last opener, whose reveals decide who starts)."""
    out: list[tuple[engine.Game, int]] = []
    while len(out) < POSITIONS:
        players = rng.choice([2, 2, 3, 4])
        opening = 2 * players
        if rng.random() < 0.35:
            moves = rng.choice([0, opening - 1, opening - 1, opening - 2])
        else:
            moves = rng.randrange(opening, 260)
        g = random_mid_game(variant, players, rng.getrandbits(32), rng.getrandbits(32), moves)
        if g.is_over:
            continue
        seat = rng.choice(g.pending()).seat
        if variant == "action" and g.owes(seat) == "turn" and rng.random() < 0.7:
            g = _give_action_card(g, seat, rng)
        out.append((g, seat))
    return out


def _give_action_card(game: engine.Game, seat: int, rng: random.Random) -> engine.Game:
    """The turn seat holds one more action card since an earlier turn (taken from the action deck,
    so the deck stays whole): positions where Draw three (half the time: its picks and what may follow
    them are where hidden cards matter most), Insight, Meteor shower ... can be played."""
    data = game.to_json()
    deck = data["adeck"]
    if deck:
        i = (
            deck.index("draw-three")
            if "draw-three" in deck and rng.random() < 0.5
            else rng.randrange(len(deck))
        )
        data["hands"][seat].append(deck.pop(i))
    return engine.Game.from_json(data)


def differing_answers(variant: str, seed: int) -> tuple[list[tuple[str, str, set[Any]]], int]:
    """The plans whose answer differed between hidden deals, and how many plans were tried."""
    rng = random.Random(seed)
    found = []
    tried = 0
    for game, seat in positions(variant, rng):
        deals = [game] + [redeal(game, seat, rng) for _ in range(DEALS)]
        for text in plans_for(game, seat, rng):
            tried += 1
            answers = {answer(g, seat, text) for g in deals}
            if len(answers) > 1:
                found.append((str(game.record()["seed"]), text, answers))
    return found, tried


def test_c13_plan_answer_does_not_depend_on_hidden_cards_classic() -> None:
    found, tried = differing_answers("classic", 20)
    assert not found, f"{len(found)} of {tried} plans answered differently by hidden deal: {found[:3]}"


def test_a_c13_plan_answer_does_not_depend_on_hidden_cards_action() -> None:
    found, tried = differing_answers("action", 21)
    assert not found, f"{len(found)} of {tried} plans answered differently by hidden deal: {found[:3]}"


# ------------------------------------------------------------------------------ the cases, one by one
ANN = grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12")


def _last_opener(bo: str) -> engine.Game:
    """Ann revealed A1 and B1 (1 + 2 = 3); Bo, whose cards are `bo`, reveals last (C4, C5)."""
    g = new([list(ANN), grid(bo)], draw_top=[3, 9, 7])
    g.play(0, "reveal A1")
    g.play(0, "reveal B1")
    return g


@pytest.mark.parametrize(
    "bo, then",
    [
        ("1 2 5 5 / 5 5 5 5 / 6 6 6 6", [(0, "tie_reveal"), (1, "tie_reveal")]),  # 3 = 3: a tie
        ("0 0 5 5 / 5 5 5 5 / 6 6 6 6", [(0, "turn")]),  # 0 < 3: Ann starts
        ("6 6 5 5 / 5 5 5 5 / 0 0 0 0", [(1, "turn")]),  # 12 > 3: Bo starts
    ],
)
def test_c5_the_last_openers_third_reveal_stops_the_plan_whatever_the_sum(bo: str, then: list[Any]) -> None:
    """Issue 20.3: it used to be applied on a tie and refused otherwise, with one message for a lower
    sum and another for a higher one. Now the same answer every time: two reveals, then a stop."""
    g = _last_opener(bo)
    steps = parse_plan(g, 1, "reveal A1, reveal B1, reveal C1").apply(g, 1)
    assert [m.text() for m, _ in steps] == ["reveal A1", "reveal B1"]
    assert steps.stopped == Stop(3, Move("reveal", 2))
    assert steps.message == (
        "moves 1-2 were played; your plan stopped at move 3 (reveal C1): whether you may play it "
        "depends on the cards your moves just turned up. Look at them and send your next move when "
        "you have one to make"
    )
    assert [(p.seat, p.kind) for p in g.pending()] == then  # asked like any pending decision


def test_c5_a_move_after_the_stop_is_still_judged_by_the_plans_shape() -> None:
    g = _last_opener("1 2 5 5 / 5 5 5 5 / 6 6 6 6")
    with pytest.raises(IllegalMove, match="move 4 \\(draw\\): your reply must end with 'reveal C1'"):
        parse_plan(g, 1, "reveal A1, reveal B1, reveal C1, draw")


def test_c5_tie_reveals_chain_until_they_decide_the_start() -> None:
    g = _last_opener("1 2 5 5 / 5 5 5 5 / 6 6 6 6")
    g.play(1, "reveal A1")
    g.play(1, "reveal B1")
    assert g.phase == "tie_reveal"
    before = g.to_json()
    # Ann is not the last of the tie: her reveal decides nothing, so a second one is simply refused
    with pytest.raises(IllegalMove, match="move 2 \\(reveal D1\\): you have no decision"):
        parse_plan(g, 0, "reveal C1, reveal D1").apply(g, 0)
    assert g.to_json() == before
    parse_plan(g, 0, "reveal C1").apply(g, 0)
    # Bo's tie reveal decides who starts (or ties again): the plan stops after it
    steps = parse_plan(g, 1, "reveal C1, reveal D1").apply(g, 1)
    assert [m.text() for m, _ in steps] == ["reveal C1"] and steps.stopped == Stop(2, Move("reveal", 3))


def _drawing_three(first: Any) -> engine.Game:
    """SKYJO Action: Ann holds Draw three; the draw pile's top is `first`; her B2 is face-up."""
    g = setup(
        action_new([action_grid(PLAIN), action_grid(PLAIN)], draw_top=[first, 7, -2]),
        up={0: "A1 B2", 1: "A1"},
        hands={0: ["draw-three"]},
    )
    return g


@pytest.mark.parametrize("first", [STAR, 5])
def test_a7_a_plan_going_on_after_a_pick_is_refused_by_its_shape(first: Any) -> None:
    """Issue 20.3: `decline` after the pick used to be applied when the picked card was a star (A7)
    and refused otherwise. Now the plan is refused before anything is drawn, star or not."""
    g = _drawing_three(first)
    before = g.to_json()
    for then in ("decline", "action row 1"):
        with pytest.raises(IllegalMove, match=f"move 3 \\({then}\\): your reply must end with 'pick 1 B2'"):
            parse_plan(g, 0, f"play draw-three, pick 1 B2, {then}").apply(g, 0)
        assert g.to_json() == before
    steps = parse_plan(g, 0, "play draw-three, pick 1 B2").apply(g, 0)
    assert [m.text() for m, _ in steps] == ["play draw-three", "pick 1 B2"] and steps.stopped is None


def _last_final_turn(ann_total: int) -> engine.Game:
    """Bo closed the round; Ann's final turn (C9) ends it. Her face-down cards (1 ... 12 less A1 B1)
    make 75: with `ann_total` points already the game ends (C12) or a new round is dealt."""
    g = position(new([list(ANN), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")], discard=5), up={0: "A1 B1"}, turn=0)
    data = g.to_json()
    data["face"][1] = [UP] * 12
    data["down"][1] = 0
    data.update(closer=1, final_left=1, totals=[ann_total, 0])
    return engine.Game.from_json(data)


@pytest.mark.parametrize("ann_total", [0, 90])
def test_c9_a_plan_going_on_after_the_round_ends_is_refused_by_its_shape(ann_total: int) -> None:
    """The round's end turns every card up; whether the game then ends depended on Ann's face-down
    cards, and so did the answer to `take, swap A1, reveal B2` (applied in round 2, or refused)."""
    g = _last_final_turn(ann_total)
    with pytest.raises(IllegalMove, match="move 3 \\(reveal B2\\): your reply must end with 'swap A1'"):
        parse_plan(g, 0, "take, swap A1, reveal B2")
    steps = parse_plan(g, 0, "take, swap A1").apply(g, 0)
    assert len(steps) == 2 and (g.is_over if ann_total else g.round == 2)


def test_c11_a_reshuffle_is_no_reveal() -> None:
    """Drawing from an empty pile reshuffles the discard pile (C11): the cards go back unseen, so
    the drawn card can still be placed by the same plan, with conditions."""
    g = position(new([list(ANN), grid("0 0 0 0 / 1 1 1 1 / 2 2 2 2")], discard=5), up={0: "A1 B1"}, turn=0)
    data = g.to_json()
    data["discard"] = data["draw"] + data["discard"]
    data["draw"] = []
    g = engine.Game.from_json(data)
    steps = parse_plan(g, 0, "draw: if 4 or less swap B2, else flip C3").apply(g, 0)
    assert steps[0][1][0]["type"] == "reshuffle" and len(steps) == 2 and steps.stopped is None


def test_plan_steps_are_still_a_list_of_moves_and_events() -> None:
    g = _last_opener("0 0 5 5 / 5 5 5 5 / 6 6 6 6")
    new_game, steps = parse_plan(g, 1, "reveal C3, reveal D3").applied(g, 1)
    assert isinstance(steps, list) and isinstance(steps, PlanSteps) and len(steps) == 2
    assert steps.stopped is None and steps.message is None
    assert [e["type"] for e in steps[1][1]] == ["reveal", "start"]
    assert new_game.version == g.version + 2
