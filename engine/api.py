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

    It costs what the current round's moves cost (issue 33.1): a position holds its round and the
    version the round was dealt at (`round_start`), so no position before the deal can be the same.
    The round's positions are the dealt position (`Game.as_dealt`) with the round's moves played on
    it; each is fingerprinted only when its faces and draw pile already equal the current ones; the
    current position counts once as "now". A game that is over is at a position no earlier one was
    at (its phase says so): 1 (its dealt copy would hold the final score sheet, which decides who
    starts a round). A game whose record does not say where its round began (a version other than
    its number of moves, or a later round saved before `round_start` existed) is replayed from its
    start, every position compared."""
    if game.is_over:
        return 1
    key = position_key(game)
    moves = game.moves
    face, draw = game.face, game.draw

    def same(g: Game) -> bool:  # cheap comparisons first, the fingerprint last
        return g.face == face and g.draw == draw and position_key(g) == key

    start = game.round_start
    if game.version == len(moves) and (game.round == 1 or start > 0):
        g = game.as_dealt()
        todo = moves[start : game.version - 1]
        seen = 1 + (game.version > start and same(g))
    else:
        g = _replay({**record_of(game), "moves": []}, new_game)
        start, todo = 0, moves
        seen = int(same(g))
    parsed: dict[str, tuple[int, Any]] = {}  # a round repeats few move texts; moves are immutable values
    for number, text in enumerate(todo, start=start + 1):
        seat_move = parsed.get(text)
        if seat_move is None:
            seat, move_text = parse_record_move(text, number, g.n)
            seat_move = parsed[text] = (seat, g.parse_move(move_text))
        g.play(*seat_move)
        seen += same(g)
    return seen
