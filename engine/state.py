"""Saving and loading a game: plain JSON data, versioned schema, invariants checked on load.

The saved state holds hidden information (face-down values, the draw pile, the seed): the service
stores it and never renders it. Rendering goes through `engine.view` only.

This module sits below `engine.game`: it knows a game only by its fields (declared once, as the
dataclass fields of the game's class) and its hooks (`check_variant_state`, `extra_cards`), and finds
the class to load by the variant's name among the registered variants (`engine.variants`).
"""

from __future__ import annotations

import copy
import dataclasses
import marshal
from collections import Counter
from typing import Any

from .errors import StateError
from .options import validate_options, validate_players
from .phases import DOWN, GONE, OPENING, OVER, PLAY, TIE_REVEAL, UP
from .variants import get_variant

SCHEMA = 1
_PHASES = (OPENING, TIE_REVEAL, PLAY, OVER)
_FACES = frozenset((DOWN, UP, GONE))

# How a field of the game class is saved (its `dataclasses.field` metadata; a field without is saved
# as it is): the class declares its fields once and this module saves and loads exactly those.
SAVED_AS_SORTED_LIST = {"saved": "set"}  # a set, saved as a sorted list
SAVED_MAY_LACK = {"saved": "optional"}  # older saved states lack it: None, then derived on load
NOT_SAVED = {"saved": False}  # derived from the other fields on load
_HISTORY_LISTS = ("moves", "log")  # what `copy_of(history=False)` leaves empty


def saved_fields(cls: type[Any]) -> list[tuple[str, Any]]:
    """The saved fields of a game class in the order of the saved state: (name, how it is saved)."""
    return [(f.name, f.metadata.get("saved", True)) for f in dataclasses.fields(cls) if f.metadata.get("saved", True)]


def clone(value: Any) -> Any:
    """A deep copy of plain data (lists, dicts, str, int, bool, None). marshal does it in C, about ten
    times faster than copy.deepcopy, which matters: the service loads and saves the state per move."""
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:  # something marshal cannot write: fall back to the general copy
        return copy.deepcopy(value)


def to_json(game: Any, *, copy: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {"schema": SCHEMA, "variant": game.variant}
    fields = {}
    for name, how in saved_fields(type(game)):
        value = getattr(game, name)
        fields[name] = sorted(value) if how == "set" else value
    data.update(clone(fields) if copy else fields)
    return data


def from_json(data: dict[str, Any], *, copy: bool = True) -> Any:
    if not isinstance(data, dict):
        raise StateError("saved state must be a JSON object")
    if data.get("schema") != SCHEMA:
        raise StateError(f"saved state has schema {data.get('schema')!r}; this engine reads schema {SCHEMA}")
    variant = get_variant(data.get("variant", ""))
    if variant is None:
        raise StateError(f"unknown variant {data.get('variant')!r}")
    cls: Any = variant.game
    game = cls.__new__(cls)
    try:
        saved = saved_fields(cls)
        fields: dict[str, Any] = {name: data.get(name) if how == "optional" else data[name] for name, how in saved}
        if copy:
            fields = clone(fields)
        for name, how in saved:
            setattr(game, name, set(fields[name]) if how == "set" else fields[name])
        game.n = len(game.names)
        game.check_variant_state()
    except KeyError as exc:
        raise StateError(f"saved state lacks {exc.args[0]!r}") from None
    validate_players(game.names)
    if game.round_start is None:  # saved before the field existed: where this round's reveals began
        opened = sum(game.revealed[s] for s in game.active)
        game.round_start = game.version - opened if game.phase == OPENING else 0
    game.options = validate_options(game.variant, game.options)
    game.link_seats()
    check_invariants(game)
    return game


def copy_of(game: Any, *, history: bool = True) -> Any:
    """A deep copy of a whole game (its invariants held when it was loaded or last played): the saved
    fields cloned, the derived ones set again, no check run. What a trial play on a copy needs
    (engine.plans) without a round trip through the saved form. `history=False`: the copy's move list
    and event log start empty (not copied: they grow with the whole game, issue 33.1)."""
    cls: Any = type(game)
    new = cls.__new__(cls)
    saved = saved_fields(cls)
    fields = clone({name: getattr(game, name) for name, _how in saved if history or name not in _HISTORY_LISTS})
    for name, how in saved:
        if name not in fields:
            setattr(new, name, [])
            continue
        setattr(new, name, set(fields[name]) if how == "set" else fields[name])
    new.n = game.n
    new.link_seats()
    return new


def check_invariants(game: Any) -> None:
    """Raise StateError unless the state is consistent: every card of the deck exactly once (C1),
    face counters right, phase and turn sensible."""
    if game.phase not in _PHASES:
        raise StateError(f"unknown phase {game.phase!r}")
    n = game.n
    if len(game.vals) != n or len(game.face) != n or len(game.totals) != n:
        raise StateError("per-seat lists do not match the number of players")
    # every card once: gathered into one list and counted in C (this runs on every load, i.e. every move)
    cards_in_play = [*game.draw, *game.discard]
    if game.held is not None:
        cards_in_play.append(game.held)
    cards_in_play.extend(game.extra_cards())  # cards a variant keeps elsewhere (SKYJO Action's draw three)
    for s in range(n):
        f = game.face[s]
        if len(f) != 12 or len(game.vals[s]) != 12 or not _FACES.issuperset(f):
            raise StateError(f"seat {s}'s grid is malformed")
        if f.count(DOWN) != game.down[s]:
            raise StateError(f"seat {s}'s face-down count is wrong")
        if s in game.active:
            if GONE in f:
                cards_in_play.extend(v for v, x in zip(game.vals[s], f, strict=True) if x != GONE)
            else:
                cards_in_play.extend(game.vals[s])
    expected = {value: count for value, count in game.deck_counts.items() if count}
    # Removed columns lie on the discard pile, so every card is counted exactly once.
    if dict(Counter(cards_in_play)) != expected:  # (dict equality, in C; Counter's own is Python)
        raise StateError("the cards in play are not exactly one deck")
    if not (isinstance(game.round_start, int) and 0 <= game.round_start <= game.version):
        raise StateError("the round's start version is wrong")
    if game.phase == PLAY and game.turn not in game.active:
        raise StateError("the seat to play is not in the round")
