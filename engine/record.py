"""Game records: a JSON document that reproduces a game exactly.

    {"format": "skyjo-pbem-record", "schema": 1, "variant": "classic",
     "players": ["Ann", "Bo"], "options": {...}, "seed": "<hex>",
     "rounds": [{"seed": "<hex>"} | {"deal": {"grids": [[12 cards A1 B1 C1 D1 A2 ... D3] | null, ...],
                                              "discard": 5, "draw": [top first ...]}}, ...],
     "moves": ["0: reveal A1", "1: reveal B2", ...]}

Seats in moves are 0-based. A round without an explicit deal is shuffled from its seed (or, if it
has none, from one derived from the record's seed); a reshuffle of the draw pile (C11) inside any
round, explicit deals included, is derived from the round's seed and hence from the record's seed.

This module sits below `engine.game`: it reads a game's fields, and `replay` is handed the function
that creates a game (`engine.api.new_game`), so it never imports the game classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import EngineError, RecordError

FORMAT = "skyjo-pbem-record"
SCHEMA = 1


def record_of(game: Any) -> dict[str, Any]:
    rounds = [dict(spec) for spec in game.round_specs[: game.round]]
    return {
        "format": FORMAT,
        "schema": SCHEMA,
        "variant": game.variant,
        "players": list(game.names),
        "options": dict(game.options),
        "seed": game.seed,
        "rounds": rounds,
        "moves": list(game.moves),
    }


def parse_record_move(text: Any, number: int, n: int) -> tuple[int, str]:
    if not isinstance(text, str) or ":" not in text:
        raise RecordError(f"move {number}: {text!r} is not of the form '<seat>: <move>'", number)
    seat_text, move_text = text.split(":", 1)
    try:
        seat = int(seat_text.strip())
    except ValueError:
        raise RecordError(f"move {number}: {seat_text.strip()!r} is not a seat number", number) from None
    if not 0 <= seat < n:
        raise RecordError(f"move {number}: there is no seat {seat}", number)
    return seat, move_text.strip()


def replay(record: Any, new_game: Callable[..., Any]) -> Any:
    """Rebuild a game from its record. Raises RecordError naming the move number and the reason."""
    if not isinstance(record, dict):
        raise RecordError("a game record must be a JSON object")
    if record.get("format", FORMAT) != FORMAT or record.get("schema", SCHEMA) != SCHEMA:
        raise RecordError(f"not a {FORMAT} record of schema {SCHEMA}")
    for key in ("players", "moves"):
        if key not in record:
            raise RecordError(f"the record has no {key!r}")
    rounds = record.get("rounds") or []
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise RecordError("'rounds' must be a list of objects")
    try:
        game = new_game(record["players"], record.get("variant", "classic"), record.get("options"),
                        seed=record.get("seed"), deals=rounds)
    except RecordError:
        raise
    except EngineError as exc:
        raise RecordError(f"the record's header is invalid: {exc}") from None
    moves = record["moves"]
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list")
    for i, text in enumerate(moves, start=1):
        seat, move_text = parse_record_move(text, i, game.n)
        try:
            game.play(seat, game.parse_move(move_text))
        except RecordError as exc:
            raise RecordError(f"move {i} ({text}): {exc}", i) from None
        except EngineError as exc:
            raise RecordError(f"move {i} ({text}): {exc}", i) from None
    return game
