"""Game records: a JSON document that reproduces a game exactly.

    {"format": "skyjo-pbem-record", "schema": 1, "variant": "classic",
     "players": ["Ann", "Bo"], "options": {...}, "seed": "<hex>",
     "rounds": [{"seed": "<hex>"} | {"deal": {"grids": [[12 cards A1 B1 C1 D1 A2 ... D3] | null, ...],
                                              "discard": 5, "draw": [top first ...]}}, ...],
     "moves": ["0: reveal A1", "1: reveal B2", ...]}

Seats in moves are 0-based. A round without an explicit deal is shuffled from its seed (or, if it
has none, from one derived from the record's seed); a reshuffle of the draw pile (C11) inside any
round, explicit deals included, is derived from the round's seed and hence from the record's seed.
Seeds are text. A record without a seed (written by hand) gets one derived from its own header -
variant, players, options and rounds - so the same record always replays the same way (C3, C11).

Anything malformed raises `RecordError` (a ValueError) with a message that names the part: the
header, a round (1-based) or a move (1-based, with its text).

This module sits below `engine.game`: it reads a game's fields, and `replay` is handed the function
that creates a game (`engine.api.new_game`), so it never imports the game classes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from . import cards
from .errors import EngineError, RecordError

FORMAT = "skyjo-pbem-record"
SCHEMA = 1


def header_of(game: Any) -> dict[str, Any]:
    """A game's public header: its variant, players and options (a record's and a deal record's)."""
    return {"variant": game.variant, "players": list(game.names), "options": dict(game.options)}


def record_of(game: Any) -> dict[str, Any]:
    rounds = [dict(spec) for spec in game.round_specs[: game.round]]
    return {
        "format": FORMAT,
        "schema": SCHEMA,
        **header_of(game),
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
        raise RecordError(f"move {number} ({text}): there is no seat {seat} (seats are 0-{n - 1})", number)
    return seat, move_text.strip()


def round_specs(rounds: Any) -> list[dict[str, Any]]:
    """The record's rounds, checked: each an object with a text `seed` or an object `deal` (C3)."""
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise RecordError("'rounds' must be a list of objects")
    for number, spec in enumerate(rounds, start=1):
        if "seed" in spec and not isinstance(spec["seed"], str):
            raise RecordError(f"round {number}: its 'seed' must be text, not {spec['seed']!r}")
        if "deal" in spec and not isinstance(spec["deal"], dict):
            raise RecordError(f"round {number}: its 'deal' must be an object with grids, discard and draw")
    return rounds


def derived_seed(record: dict[str, Any], rounds: list[dict[str, Any]]) -> str:
    """The seed of a record that names none: derived from its header, so replays are the same."""
    header = [record.get("variant", "classic"), record.get("players"), record.get("options"), rounds]
    try:
        text = json.dumps(header, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        raise RecordError("the record's header is not plain JSON data") from None
    return cards.derive("record-without-seed", text)


def replay(record: Any, new_game: Callable[..., Any]) -> Any:
    """Rebuild a game from its record. Raises RecordError naming the move number and the reason."""
    if not isinstance(record, dict):
        raise RecordError("a game record must be a JSON object")
    if record.get("format", FORMAT) != FORMAT or record.get("schema", SCHEMA) != SCHEMA:
        raise RecordError(f"not a {FORMAT} record of schema {SCHEMA}")
    for key in ("players", "moves"):
        if key not in record:
            raise RecordError(f"the record has no {key!r}")
    rounds = round_specs(record.get("rounds") or [])
    seed = record.get("seed")
    if seed is None:
        seed = derived_seed(record, rounds)
    elif not isinstance(seed, str):
        raise RecordError(f"the record's 'seed' must be text, not {seed!r}")
    try:
        game = new_game(
            record["players"],
            record.get("variant", "classic"),
            record.get("options"),
            seed=seed,
            deals=rounds,
        )
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
