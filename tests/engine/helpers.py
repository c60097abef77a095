"""Helpers to build exact positions for rule tests: explicit deals (as in game records) and a JSON
edit of the face states, loaded back through the engine's own invariant check."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import engine
from engine.cards import CLASSIC_COUNTS, deck_from_counts
from engine.game import DOWN, GONE, STAGE_DRAWN, UP

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def make_deal(
    grids: list[list[int] | None],
    discard: int,
    draw_top: list[int] | None = None,
    counts: dict[int, int] = CLASSIC_COUNTS,
) -> dict[str, Any]:
    """An explicit deal: the given grids (A1 B1 C1 D1 A2 ... D3), discard card and draw pile top
    cards; the rest of the deck goes below them in ascending order."""
    draw_top = list(draw_top or [])
    used = Counter(c for g in grids if g for c in g) + Counter([discard]) + Counter(draw_top)
    rest = Counter(deck_from_counts(counts)) - used
    assert not (used - Counter(deck_from_counts(counts))), "deal uses cards the deck does not have"
    return {"grids": grids, "discard": discard, "draw": draw_top + sorted(rest.elements())}


def grid(rows: str) -> list[int]:
    """grid("1 2 3 4 / 5 6 7 8 / 9 10 11 12") -> the 12 values in cell order."""
    values = [int(x) for x in rows.replace("/", " ").split()]
    assert len(values) == 12
    return values


def new(
    grids: list[list[int]],
    discard: int = 0,
    draw_top: list[int] | None = None,
    options: dict[str, Any] | None = None,
    seed: str = "test",
) -> engine.Game:
    return engine.new_game(
        NAMES[: len(grids)],
        "classic",
        options,
        seed=seed,
        deals=[{"deal": make_deal(grids, discard, draw_top)}],
    )


def position(
    game: engine.Game,
    up: dict[int, str] | None = None,
    turn: int | None = None,
    gone: dict[int, str] | None = None,
) -> engine.Game:
    """Turn the named cells face-up (e.g. {0: "A1 B1 C1"}) or mark columns' cells removed, and, with
    `turn`, skip the opening straight into play with that seat to move. The result is loaded through
    Game.from_json, so the engine's invariants check it."""
    data = game.to_json()
    for seat, cells in (up or {}).items():
        for name in cells.split():
            i = engine.CELL_NAMES.index(name.upper())
            data["face"][seat][i] = UP
    for seat, cells in (gone or {}).items():
        for name in cells.split():
            i = engine.CELL_NAMES.index(name.upper())
            data["face"][seat][i] = GONE
            data["discard"].insert(0, data["vals"][seat][i])
    for seat in range(len(data["face"])):
        data["down"][seat] = data["face"][seat].count(DOWN)
    if turn is not None:
        data["phase"] = "play"
        data["turn"] = turn
        data["stage"] = 0
        data["revealed"] = [2] * len(data["face"])
    return engine.Game.from_json(data)


def play(game: engine.Game, *moves: str) -> list[dict[str, Any]]:
    """Play "seat: move" strings in order; return all events."""
    events: list[dict[str, Any]] = []
    for text in moves:
        seat, move = text.split(":", 1)
        events += game.play(int(seat), move.strip())
    return events


def open_all(game: engine.Game, reveals: dict[int, str]) -> list[dict[str, Any]]:
    """Opening reveal (C4): {seat: "A1 B1"}."""
    events: list[dict[str, Any]] = []
    for seat, cells in reveals.items():
        for c in cells.split():
            events += game.play(seat, f"reveal {c}")
    return events


def random_mid_game(variant: str, players: int, seed: int, rng_seed: int, moves: int) -> engine.Game:
    """A game of `variant` after up to `moves` random decisions (fewer if it ends first)."""
    g = engine.new_game(NAMES[:players], variant, seed=seed)
    rng = random.Random(rng_seed)
    for _ in range(moves):
        if g.is_over:
            break
        seat = rng.choice(g.pending()).seat
        g.play(seat, engine.bot_move(g, seat, "random", rng))
    return g


def assert_json_round_trip(g: engine.Game) -> engine.Game:
    """The state through JSON text and back: identical state, pending decisions and legal moves."""
    copy = engine.Game.from_json(json.loads(json.dumps(g.to_json())))
    assert copy.to_json() == g.to_json()
    assert copy.pending() == g.pending()
    assert [m.text() for s in range(g.n) for m in copy.legal_moves(s)] == [
        m.text() for s in range(g.n) for m in g.legal_moves(s)
    ]
    return copy


def redeal(game: engine.Game, seat: int, rng: random.Random) -> engine.Game:
    """Another hidden deal consistent with what `seat` sees (C13): the cards `seat` cannot see - every
    face-down card it does not know by Insight (A9.4), the draw pile, another seat's drawn card or
    Draw three - shuffled among those places, the action deck (A1) shuffled, the other seats' Insight
    knowledge rewritten to their new cards, and new seeds (future reshuffles and rounds).
    `engine.view(result, seat)` equals `engine.view(game, seat)`."""
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
    if others_turn and data["held"] is not None and data["stage"] == STAGE_DRAWN:  # drawn, unseen
        slots.append((data, "held"))  # type: ignore[arg-type]
    if action and others_turn:
        slots += [(data["three"], i) for i in range(len(data["three"]))]
    cards = [box[key] for box, key in slots]
    rng.shuffle(cards)
    for (box, key), card in zip(slots, cards, strict=True):
        box[key] = card
    if action:
        rng.shuffle(data["adeck"])
        for s, lst in enumerate(data["known"]):  # the others' Insight knowledge follows their new cards
            if s != seat:
                for entry in lst:
                    entry[2] = data["vals"][entry[0]][entry[1]]
    data["seed"] = f"redeal-{rng.getrandbits(64)}"
    for spec in data["round_specs"]:  # later rounds' deals are hidden too
        spec.pop("deal", None)
        spec["seed"] = f"redeal-{rng.getrandbits(64)}"
    new = engine.Game.from_json(data)
    assert engine.view(new, seat) == engine.view(game, seat), "the re-deal must look the same to the seat"
    return new
