"""Verifiable deals (issue 32.1): each round's seed is committed to before the round's first move
and revealed when the round ends, and a deal record lets anyone check the deal and reshuffles.

* The commitment of round n is SHA-256 over the canonical encoding of the game's public header and
  the round's seed: `canonical(...)`, UTF-8 JSON with sorted keys and no spaces of
  `{"options", "players", "round", "seed", "variant"}`. Its fingerprint is its first 16 hex digits
  in groups of four. The round's seed (`Rounds._round_seed`, C3) is fixed in the saved state when
  the round is dealt, before any move of it, and never changes: the commitment, a function of it
  and of the header, is fixed then too. It is computed, not saved, so that the saved state, the
  views and the events of every game stay as they were.
* `proof(game)` is the public part: the current round's commitment and, for every round that is
  over, its seed. Nothing of a round that is still being played is in it but its commitment.
* `deal_record(game)` is the deal record of the rounds that are over (format `skyjo-pbem-deals`):
  the header, the moves up to the end of the last round that is over, and per round its seats,
  commitment, seed, deal (C3: grids A1 B1 C1 D1 A2 ... D3, the first discard card, the draw pile
  top first) and reshuffles (C11: each new draw pile, top first, as it was shuffled).
* `verify(record)` checks a deal record: every seed against its commitment, and the record's moves
  replayed from the seeds (`engine.record.replay`, the engine's own deal) against the deals and
  reshuffles the record says were played. It returns the problems, each naming its round.

The host chose the seeds: this proves that each deal was fixed before play and follows from the
seed, not that the seed was chosen fairly (README, "Verifiable deals").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from .errors import EngineError, RecordError
from .record import header_of, parse_record_move, record_of, replay

FORMAT = "skyjo-pbem-deals"
SCHEMA = 1


def canonical(variant: str, players: list[str], options: dict[str, Any], number: int, seed: str) -> bytes:
    """The bytes a round's commitment hashes: the public header, the round number and the seed."""
    header = {"variant": variant, "players": list(players), "options": options, "round": number, "seed": seed}
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def commitment(variant: str, players: list[str], options: dict[str, Any], number: int, seed: str) -> str:
    """SHA-256 (hex) of `canonical(...)`: what the round's first mail carries."""
    return hashlib.sha256(canonical(variant, players, options, number, seed)).hexdigest()


def fingerprint(digest: str) -> str:
    """The short form people compare: the first 16 hex digits in groups of four."""
    return " ".join(digest[i : i + 4] for i in range(0, 16, 4))


def _round_seed(game: Any, number: int) -> str:
    seed: str = game._round_seed(number)
    return seed


def _sealed(game: Any, number: int) -> dict[str, Any]:
    digest = commitment(game.variant, game.names, game.options, number, _round_seed(game, number))
    return {"round": number, "commitment": digest, "fingerprint": fingerprint(digest)}


def proof(game: Any) -> dict[str, Any]:
    """The public deal facts of `game`: `current`, the commitment of the round being played (None
    once the game is over), and `revealed`, per round that is over its commitment and seed."""
    over = len(game.rounds)
    current = None if game.is_over or game.round <= over else _sealed(game, game.round)
    revealed = [{**_sealed(game, n), "seed": _round_seed(game, n)} for n in range(1, over + 1)]
    return {"current": current, "revealed": revealed}


class StopsAt(RecordError):
    """The record's moves cannot be played on the deal: in round `round`, for the reason given."""

    def __init__(self, round_number: int, message: str) -> None:
        super().__init__(message)
        self.round = round_number


def _played(game: Any, moves: list[str], on_round_end: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Per round of `game` (just created, no move played yet) its seats, deal and reshuffles as the
    record's `moves` play them; `on_round_end(i)` after the move i (1-based) that ends a round."""
    def dealt() -> dict[str, Any]:
        grids = [list(game.vals[s]) if s in game.active else None for s in range(game.n)]
        deal = {"grids": grids, "discard": game.discard[0], "draw": game.draw[::-1]}
        return {"round": game.round, "seats": list(game.active), "deal": deal, "reshuffles": []}

    rounds = [dealt()]
    for i, text in enumerate(moves, start=1):
        seat, move_text = parse_record_move(text, i, game.n)
        try:
            events = game.play(seat, game.parse_move(move_text))
        except EngineError as exc:  # an engine refusal: the moves do not fit this deal
            raise StopsAt(game.round, f"move {i} ({text}): {exc}") from None
        for event in events:
            if event["type"] == "reshuffle":  # C11, on a draw: the drawn card was the new pile's top
                rounds[-1]["reshuffles"].append([game.held, *game.draw[::-1]])
            elif event["type"] == "round_end" and on_round_end is not None:
                on_round_end(i)
        if any(e["type"] == "round_start" for e in events):
            rounds.append(dealt())
    return rounds


def deal_record(game: Any) -> dict[str, Any]:
    """The deal record of `game`'s rounds that are over (see the module docstring): what a player
    checks with `verify` (`skyjo-pbem verify`). Nothing of the round being played is in it."""
    full = record_of(game)
    ends: list[int] = []
    fresh = replay({**full, "moves": []}, _new_game)
    played = _played(fresh, full["moves"], ends.append)
    over = len(game.rounds)
    rounds = []
    for r in played[:over]:
        n = r["round"]
        rounds.append({**r, **_sealed(game, n), "seed": _round_seed(game, n)})
    for r in rounds:
        del r["fingerprint"]
    return {
        "format": FORMAT,
        "schema": SCHEMA,
        **header_of(game),
        "rounds": rounds,
        "moves": full["moves"][: ends[over - 1]] if over else [],
    }


def _new_game(*args: Any, **kwargs: Any) -> Any:
    from .api import new_game

    return new_game(*args, **kwargs)


def _header(record: Any) -> tuple[str, list[str], dict[str, Any], list[dict[str, Any]], list[str]]:
    """The parts of a deal record, checked for shape; RecordError names what is wrong."""
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("schema") != SCHEMA:
        raise RecordError(f"not a {FORMAT} record of schema {SCHEMA}")
    variant, players, options = record.get("variant"), record.get("players"), record.get("options")
    rounds, moves = record.get("rounds"), record.get("moves")
    if not isinstance(variant, str) or not isinstance(players, list) or not isinstance(options, dict):
        raise RecordError("the record needs 'variant' (text), 'players' (a list) and 'options' (an object)")
    if not isinstance(rounds, list) or not isinstance(moves, list):
        raise RecordError("the record needs 'rounds' and 'moves' (lists)")
    for i, r in enumerate(rounds, start=1):
        if not isinstance(r, dict) or not all(k in r for k in ("round", "commitment", "seed", "deal", "reshuffles")):
            raise RecordError(f"round entry {i} needs round, commitment, seed, deal and reshuffles")
        if r["round"] != i or not isinstance(r["seed"], str) or not isinstance(r["commitment"], str):
            raise RecordError(f"round entry {i}: 'round' must be {i}, 'seed' and 'commitment' text")
    return variant, players, options, rounds, moves


def verify(record: Any) -> list[tuple[int, str]]:
    """The problems of a deal record (empty: every round checks), each as (round, what failed), in
    English. Raises RecordError for a record that cannot be read (not a deal record, wrong shape)."""
    variant, players, options, rounds, moves = _header(record)
    problems: list[tuple[int, str]] = []
    for r in rounds:
        if commitment(variant, players, options, r["round"], r["seed"]) != r["commitment"].strip().lower():
            problems.append((r["round"], "the seed does not match the commitment"))
    specs = [{"seed": r["seed"]} for r in rounds]
    try:
        fresh = replay({"variant": variant, "players": players, "options": options, "rounds": specs,
                        "seed": "", "moves": []}, _new_game)
        played = _played(fresh, moves)
    except StopsAt as exc:
        return [*problems, (exc.round, f"the moves cannot be played on the seed's deal: {exc}")]
    # (any other RecordError: the header or a move's text cannot be read; the caller's exit 2)
    for r in rounds:
        n = r["round"]
        if n > len(played):
            problems.append((n, "the moves end before this round is dealt"))
            continue
        mine = played[n - 1]
        if r.get("seats", mine["seats"]) != mine["seats"]:
            problems.append((n, "the seats of the round differ from the replay's"))
        if r["deal"] != mine["deal"]:
            problems.append((n, f"the deal is not the seed's deal ({_where(r['deal'], mine['deal'])})"))
        got, want = r["reshuffles"], mine["reshuffles"]
        if not isinstance(got, list) or len(got) != len(want):
            problems.append((n, f"the record has {_count(got)} reshuffles, the replay {len(want)}"))
        else:
            for k, (a, b) in enumerate(zip(got, want, strict=True), start=1):
                if a != b:
                    problems.append((n, f"reshuffle {k} is not the seed's"))
    return problems


def _count(value: Any) -> int | str:
    return len(value) if isinstance(value, list) else "no list of"


def _where(got: Any, want: dict[str, Any]) -> str:
    """Which part of a deal differs: a seat's grid, the discard card or the draw pile."""
    if not isinstance(got, dict):
        return "it is not an object"
    grids = got.get("grids")
    if isinstance(grids, list) and len(grids) == len(want["grids"]):
        for s, (a, b) in enumerate(zip(grids, want["grids"], strict=True)):
            if a != b:
                return f"seat {s}'s grid"
    elif grids != want["grids"]:
        return "the grids"
    if got.get("discard") != want["discard"]:
        return "the discard card"
    return "the draw pile"
