"""Decks (C1) and reproducible, unpredictable shuffles.

Every shuffle is a Fisher-Yates driven by SHAKE-256 of a secret key and a label: without the key the
order cannot be predicted from anything a player sees (the key is 128 bits from `secrets` for
production games), with the key (a seed given at creation or kept in the game record) any game is
reproduced exactly.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections import Counter
from typing import Any

# C1: -2 x5, -1 x10, 0 x15, 1..12 x10 each = 150 cards.
CLASSIC_COUNTS: dict[int, int] = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}


def _card_order(item: tuple[int | str, int]) -> tuple[bool, int | str]:
    # numbers ascending, then named cards (SKYJO Action's "star", A1)
    return (isinstance(item[0], str), item[0])


def deck_from_counts(counts: dict[int, int]) -> list[int]:
    try:
        items = sorted(counts.items())
    except TypeError:  # named cards among the numbers
        items = sorted(counts.items(), key=_card_order)
    return [value for value, n in items for _ in range(n)]


def new_seed() -> str:
    """A fresh secret seed: 128 bits from the operating system's CSPRNG."""
    return secrets.token_hex(16)


def derive(seed: str, label: str) -> str:
    """A sub-seed for one purpose (a round's deal, a reshuffle); as unpredictable as `seed`."""
    return hashlib.sha256(f"{seed}/{label}".encode()).hexdigest()[:32]


def shuffle(cards: list[Any], key: str) -> None:
    """Shuffle `cards` in place, determined by `key` alone (64-bit draws: bias below 2**-56)."""
    n = len(cards)
    if n < 2:
        return
    draws = struct.unpack(f"<{n}Q", hashlib.shake_256(key.encode()).digest(8 * n))  # draw i: bytes 8i..8i+7
    for i in range(n - 1, 0, -1):
        j = draws[i] % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def counts_of(cards: list[int]) -> Counter[int]:
    return Counter(cards)


def deck_difference(cards: list[Any], deck: list[Any]) -> str:
    """How `cards` differ from `deck`, for people: "too many: 5, 5; missing: 12" (empty if equal)."""
    have, want = Counter(cards), Counter(deck)
    parts = []
    for label, diff in (("too many", have - want), ("missing", want - have)):
        if diff:
            values = sorted(
                diff.elements(), key=lambda v: (isinstance(v, str), v)
            )  # numbers, then named cards
            parts.append(f"{label}: {', '.join(str(v) for v in values)}")
    return "; ".join(parts)
