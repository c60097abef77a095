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

import engine
from engine.errors import EngineError
from engine.plans import parse_plan

from .helpers import random_mid_game, redeal

DEALS = 6  # hidden deals per position, besides the real one
PLANS = 12  # plans per position
POSITIONS = 48  # per variant
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
