"""A seat's view as a whole game: everything the seat may see kept, everything else made up (C13).

`determinize(game, seat, rng)` returns a copy of `game` in which every piece of information hidden
from `seat` is replaced by cards chosen from what that seat knows is still unseen:
* the face-down cards of every grid (except those the seat saw by SKYJO Action's Insight, A9.4),
* the draw pile's order and content, another seat's drawn card (C7/C13), another seat's Draw three
  cards (A9.3), the action deck's order (A2),
* the other seats' private Insight knowledge (rewritten to the made-up values, so the copy stays
  consistent), and the seed and round seeds (they fix future reshuffles, C11/A10).
With `rng=None` the made-up cards are laid out in a fixed order (a canonical copy); with an RNG they
are shuffled (one sample of the hidden cards, for rollouts). Either way the copy is a function of
the seat's view alone: two games the seat cannot tell apart give the same copy. The strong bots
(`engine.strong`, `engine.action.strong`) decide on such a copy only, so they cannot cheat; the
test tests/engine/test_bots_strong.py checks that scrambling the hidden parts never changes a
decision.

`unseen(game, seat)` is the multiset of cards the seat has not seen (C1 / A1 deck minus face-up
cards, the discard pile, its own held card, its own Draw three and Insight knowledge).
"""

from __future__ import annotations

import random as _random
from collections import Counter
from typing import Any

from . import state
from .phases import DOWN, PLAY, STAGE_DRAWN

_STAGE_THREE = 3  # engine.action.phases.STAGE_THREE (not imported: the action package sits above)
_FAKE_SEED = "seat-view"


def _card_key(card: Any) -> tuple[bool, Any]:
    return (isinstance(card, str), card)


def _own_private(game: Any, seat: int) -> tuple[Any, list[Any], dict[tuple[int, int], Any]]:
    """The seat's private knowledge: its drawn card, its Draw three cards, its Insight results."""
    mine = game.phase == PLAY and game.turn == seat
    held = game.held if mine and game.stage == STAGE_DRAWN else None
    three = list(getattr(game, "three", [])) if mine and game.stage == _STAGE_THREE else []
    known = {(t, c): v for t, c, v in getattr(game, "known", [[]] * game.n)[seat]}
    return held, three, known


def unseen(game: Any, seat: int) -> Counter[Any]:
    """The cards `seat` has not seen: they lie face-down, in the draw pile or in another's hand."""
    pool = Counter({card: n for card, n in game.deck_counts.items() if n})
    for s in game.active:
        f, v = game.face[s], game.vals[s]
        for c in range(12):
            if f[c] != DOWN and f[c] != 2:
                pool[v[c]] -= 1
    pool.subtract(game.discard)
    held, three, known = _own_private(game, seat)
    if held is not None:
        pool[held] -= 1
    pool.subtract(three)
    pool.subtract(known.values())
    if game.phase == PLAY and game.stage not in (STAGE_DRAWN, _STAGE_THREE) and game.held is not None:
        pool[game.held] -= 1  # a card taken from the discard pile is public (C7)
    return +pool


def hidden_slots(game: Any, seat: int) -> list[tuple[str, int, int]]:
    """Where the unseen cards lie, in a fixed order: ("grid", seat, cell), ("draw", i, 0),
    ("held", 0, 0), ("three", i, 0)."""
    _, _, known = _own_private(game, seat)
    slots: list[tuple[str, int, int]] = []
    for s in game.active:
        f = game.face[s]
        slots.extend(("grid", s, c) for c in range(12) if f[c] == DOWN and (s, c) not in known)
    slots.extend(("draw", i, 0) for i in range(len(game.draw)))
    if game.phase == PLAY and game.turn != seat:
        if game.stage == STAGE_DRAWN and game.held is not None:
            slots.append(("held", 0, 0))
        if game.stage == _STAGE_THREE:
            slots.extend(("three", i, 0) for i in range(len(getattr(game, "three", []))))
    return slots


def determinize(game: Any, seat: int, rng: _random.Random | None = None) -> Any:
    """A copy of `game` equal in all that `seat` sees, the rest made up (see the module docstring)."""
    data = state.to_json(game)
    pool = sorted(unseen(game, seat).elements(), key=_card_key)
    if rng is not None:
        rng.shuffle(pool)
    slots = hidden_slots(game, seat)
    if len(slots) != len(pool):  # pragma: no cover - the state's invariants make them equal
        raise ValueError("the unseen cards do not fill the hidden places")
    for (where, a, b), card in zip(slots, pool, strict=True):
        if where == "grid":
            data["vals"][a][b] = card
        elif where == "draw":
            data["draw"][a] = card
        elif where == "held":
            data["held"] = card
        else:
            data["three"][a] = card
    if "known" in data:
        vals = data["vals"]
        for s, lst in enumerate(data["known"]):
            if s != seat:
                for entry in lst:
                    entry[2] = vals[entry[0]][entry[1]]
        adeck = sorted(data["adeck"])
        if rng is not None:
            rng.shuffle(adeck)
        data["adeck"] = adeck
    data["seed"] = _FAKE_SEED
    data["round_specs"] = [{"seed": f"{_FAKE_SEED}-{i}"} for i in range(len(data["round_specs"]))]
    return state.from_json(data, copy=False)
