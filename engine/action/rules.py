"""SKYJO Action data (RULES.md A1): card tables, option table, card names.

Both deck tables are the project's assumption (the seed fixes only 15 zeros and the totals) and can
be replaced per game through the options `game_deck` and `action_deck` (null = these tables).
Game cards are ints -2..12 or the string "star" (A6: worth 0, never equal to a number).
"""

from __future__ import annotations

from typing import Any

from ..errors import OptionError
from ..options import CLASSIC_OPTIONS

STAR = "star"

# A1: 112 numbers + 8 stars = 120.
GAME_COUNTS: dict[int | str, int] = {-2: 5, -1: 8, 0: 15, **{v: 7 for v in range(1, 13)}, STAR: 8}

# A9 order; attacks are 7, 8, 9.
SWAP_OWN, DOUBLE_MOVE, DRAW_THREE, INSIGHT, REACTIVATION = (
    "swap-own",
    "double-move",
    "draw-three",
    "insight",
    "reactivation",
)
DEFENSE, SWAP_PLAYER, THIEF, METEOR = "defense", "swap-with-player", "thief", "meteor-shower"
ACTION_KINDS: tuple[str, ...] = (
    SWAP_OWN,
    DOUBLE_MOVE,
    DRAW_THREE,
    INSIGHT,
    REACTIVATION,
    DEFENSE,
    SWAP_PLAYER,
    THIEF,
    METEOR,
)
ATTACKS = frozenset({SWAP_PLAYER, THIEF, METEOR})
ACTION_COUNTS: dict[str, int] = {
    SWAP_OWN: 4,
    DOUBLE_MOVE: 4,
    DRAW_THREE: 4,
    INSIGHT: 4,
    REACTIVATION: 3,
    DEFENSE: 4,
    SWAP_PLAYER: 3,
    THIEF: 2,
    METEOR: 2,
}

ACTION_TITLES: dict[str, str] = {
    SWAP_OWN: "Swap own",
    DOUBLE_MOVE: "Double move",
    DRAW_THREE: "Draw three",
    INSIGHT: "Insight",
    REACTIVATION: "Reactivation",
    DEFENSE: "Defense",
    SWAP_PLAYER: "Swap with a player",
    THIEF: "Thief",
    METEOR: "Meteor shower",
}

HELD_CARD_PENALTY = 10  # A8
STAR_COLUMN_BONUS, STAR_ROW_BONUS = -10, -15  # A6
ROW_SIZE = 4  # A2


def card_key(text: str) -> int | str:
    """`"-2"` / `"star"` (option keys are JSON strings) -> the card."""
    if text == STAR:
        return STAR
    try:
        v = int(text)
    except (TypeError, ValueError):
        raise OptionError(f"{text!r} is not a game card: use -2 to 12 or star") from None
    if not -2 <= v <= 12:
        raise OptionError(f"{text!r} is not a game card: use -2 to 12 or star")
    return v


def _count(name: str, key: Any, n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 200:
        raise OptionError(f"option {name}: the count of {key} must be a whole number 0-200, not {n!r}")
    return n


def validate_game_deck(name: str, value: Any) -> dict[str, int] | None:
    """null, or {"-2": 5, ..., "star": 8}: the game deck (A1). Normalised to string keys in card order."""
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise OptionError(f'option {name} must be null or an object like {{"-2": 5, "star": 8}}')
    counts = {card_key(str(k)): _count(name, k, n) for k, n in value.items()}
    if sum(counts.values()) < 12 * 2 + 2:
        raise OptionError(f"option {name}: the deck is too small to deal")
    numbers = {c: n for c, n in counts.items() if isinstance(c, int)}  # every card but the star
    # totals must grow for games to reach the target: a deck worth less than 1 a card (stars as
    # -10/3, their best in a set) could go on for ever
    worth = sum(c * n for c, n in numbers.items()) - 10 * counts.get(STAR, 0) / 3
    if worth < sum(counts.values()) or len(numbers) < 5:
        raise OptionError(
            f"option {name}: the deck needs at least 5 different numbers and an average "
            "card worth at least 1 (stars as -10/3), or games might never end"
        )
    order = sorted(counts, key=lambda c: (isinstance(c, str), c))
    return {str(c): counts[c] for c in order if counts[c]}


def validate_action_deck(name: str, value: Any) -> dict[str, int] | None:
    """null, or {"swap-own": 4, ...}: the action deck (A1), at least 5 cards (row of 4 + discard)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise OptionError(f'option {name} must be null or an object like {{"swap-own": 4}}')
    for k in value:
        if k not in ACTION_KINDS:
            raise OptionError(f"option {name}: {k!r} is not an action card ({', '.join(ACTION_KINDS)})")
    counts = {k: _count(name, k, value[k]) for k in ACTION_KINDS if k in value}
    if sum(counts.values()) < ROW_SIZE + 1:
        raise OptionError(f"option {name}: the action deck needs at least {ROW_SIZE + 1} cards")
    return {k: n for k, n in counts.items() if n}


ACTION_OPTIONS: dict[str, tuple[Any, Any]] = {
    "final_reveal_removal": CLASSIC_OPTIONS["final_reveal_removal"],  # A5 at round end too
    "round_starter": CLASSIC_OPTIONS["round_starter"],  # C6
    "doubling": CLASSIC_OPTIONS["doubling"],  # A8
    "doubling_tie": CLASSIC_OPTIONS["doubling_tie"],  # A8: strictly lowest
    "doubling_positive_only": CLASSIC_OPTIONS["doubling_positive_only"],  # A8
    "target_score": CLASSIC_OPTIONS["target_score"],  # C12
    "final_tiebreak": ("most_rounds_won", ("most_rounds_won", "shared", "extra_round")),  # A11
    "game_deck": (None, validate_game_deck),  # A1
    "action_deck": (None, validate_action_deck),  # A1
}

ACTION_OPTION_HELP: dict[str, str] = {
    "game_deck": "SKYJO Action game deck as {card: count} (cards -2..12 and star); null = 112 numbers + 8 stars (A1).",
    "action_deck": "SKYJO Action action deck as {kind: count}; null = the 30-card table of A1.",
}


def game_counts(options: dict[str, Any]) -> dict[int | str, int]:
    table = options.get("game_deck")
    if table is None:
        return GAME_COUNTS
    return {card_key(k): n for k, n in table.items()}


def action_counts(options: dict[str, Any]) -> dict[str, int]:
    table = options.get("action_deck")
    return ACTION_COUNTS if table is None else dict(table)


def action_deck_list(counts: dict[str, int]) -> list[str]:
    return [k for k in ACTION_KINDS for _ in range(counts.get(k, 0))]


def points(card: int | str) -> int:
    """A card's value in sums (A6: a star is worth 0)."""
    return card if isinstance(card, int) else 0
