"""The engine's public functions: create, apply (pure reducer), replay."""

from __future__ import annotations

from typing import Any

from . import state as _state
from .errors import OptionError
from .game import Game
from .moves import Move
from .record import parse_record_move, record_of
from .record import replay as _replay
from .repetition import position_key
from .variants import VARIANTS, get_variant
from .view import with_text


def new_game(
    players: list[str],
    variant: str = "classic",
    options: dict[str, Any] | None = None,
    seed: str | int | None = None,
    deals: list[dict[str, Any]] | None = None,
) -> Game:
    """A new game in the opening reveal of round 1. `seed=None` draws a secret seed (CSPRNG);
    `deals` are per-round specs from a record ({"seed": ...} or {"deal": {...}})."""
    known = get_variant(variant)
    if known is None:
        raise OptionError(f"unknown variant {variant!r}; choose one of: {', '.join(sorted(VARIANTS))}")
    game: Game = known.game(players, options, seed=seed, deals=deals)
    return game


def copy_game(game: Game) -> Game:
    return _state.from_json(_state.to_json(game))


def apply_move(game: Game, seat: int, move: Move | str) -> tuple[Game, list[dict[str, Any]]]:
    """Pure reducer: a new game with `move` applied by `seat` (version + 1) and its public events,
    each with an English `text`. The given game is left unchanged. Raises IllegalMove / MoveParseError."""
    new = copy_game(game)
    events = new.play(seat, move)
    return new, [with_text(e, new.names) for e in events]


def replay(record: dict[str, Any]) -> Game:
    return _replay(record, new_game)


def record(game: Game) -> dict[str, Any]:
    return record_of(game)


def times_seen(game: Game) -> int:
    """How often the game's current position has come up since the game began (now included). For
    a loop that plays bots one decision at a time and keeps no `RepetitionGuard` in memory between
    them (the service's clock plays one decision per sweep): a position seen again and again means
    the bots are playing in a circle (issue 16.2).

    Only the positions of the current round are fingerprinted (issue 33.1): a position holds the
    version its round was dealt at (`round_start`, never above the position's own version), so no
    position before this round's deal can be the same. The record is replayed up to the deal
    without fingerprints, and a position of the round is fingerprinted only when its faces and
    draw pile already equal the current ones."""
    key = position_key(game)
    rec = record_of(game)
    moves = rec["moves"]
    # version = number of moves in every game the engine plays; a game that says otherwise is
    # counted from its start (every position fingerprinted, as before issue 33)
    start = game.round_start if game.version == len(moves) else 0
    face, draw = game.face, game.draw

    def same(g: Game) -> bool:  # cheap comparisons first, the fingerprint last
        return g.face == face and g.draw == draw and position_key(g) == key

    g = _replay({**rec, "moves": []}, new_game)
    parsed: dict[str, tuple[int, Any]] = {}  # a game repeats few move texts; moves are immutable values
    seen = int(start == 0 and same(g))
    for number, text in enumerate(moves, start=1):
        seat_move = parsed.get(text)
        if seat_move is None:
            seat, move_text = parse_record_move(text, number, g.n)
            seat_move = parsed[text] = (seat, g.parse_move(move_text))
        g.play(*seat_move)
        seen += number >= start and same(g)
    return seen
