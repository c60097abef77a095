"""Game options (RULES.md: every option with its default) and their validation.

Options are part of the saved state and of the game record. Each variant has its own table; an
unknown name, a wrong type or a value outside the allowed choices raises `OptionError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import OptionError
from .variants import VARIANTS, OptionHelp, OptionTables

MIN_PLAYERS, MAX_PLAYERS = 2, 8  # C2

# name -> (default, allowed choices, a type, or a validator function(name, value) -> value)
CLASSIC_OPTIONS: dict[str, tuple[Any, Any]] = {
    "column_removal": (True, bool),  # C8
    "final_reveal_removal": (True, bool),  # C8
    "start_tiebreak": ("extra_reveal", ("extra_reveal", "highest_card")),  # C5
    "round_starter": ("previous_closer", ("previous_closer", "highest_reveal", "previous_winner")),  # C6
    "doubling": (True, bool),  # C10
    "doubling_tie": ("strict", ("strict", "lenient")),  # C10
    "doubling_positive_only": (True, bool),  # C10
    "target_score": (100, int),  # C12
    "final_tiebreak": ("extra_round", ("extra_round", "most_rounds_won", "shared")),  # C12
}

CLASSIC_OPTION_HELP: dict[str, str] = {
    "column_removal": "Remove a column of three equal face-up cards (C8).",
    "final_reveal_removal": "Also remove such columns when the cards are turned up at round end (C8).",
    "start_tiebreak": "Tie for the highest opening reveal: reveal one more card, or highest single card (C5).",
    "round_starter": "Who starts later rounds (C6).",
    "doubling": "Double the closer's score unless lowest (C10).",
    "doubling_tie": "Strict: a closer tied for lowest is doubled; lenient: not (C10).",
    "doubling_positive_only": "Never double a score of 0 or less (C10).",
    "target_score": "The game ends after a round in which someone reaches this total (C12).",
    "final_tiebreak": "Tie for the lowest total at game end (C12).",
}

# Every registered variant's options and their help, read from the variants (engine.variants)
VARIANT_OPTIONS = OptionTables()
OPTION_HELP = OptionHelp()


def option_table(variant: str) -> Mapping[str, tuple[Any, Any]]:
    try:
        return VARIANTS[variant].options
    except (KeyError, TypeError):  # TypeError: not a name at all (a list, say)
        raise OptionError(
            f"unknown variant {variant!r}; choose one of: {', '.join(sorted(VARIANT_OPTIONS))}"
        ) from None


def defaults(variant: str = "classic") -> dict[str, Any]:
    return {name: default for name, (default, _) in option_table(variant).items()}


def validate_options(variant: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """Return the complete option dict for `variant` (defaults filled in) or raise OptionError."""
    table = option_table(variant)
    result = defaults(variant)
    if options is not None and not isinstance(options, dict):
        raise OptionError('options must be an object of option names and values, like {"target_score": 50}')
    for name, value in (options or {}).items():
        if name not in table:
            raise OptionError(f"unknown option {name!r} for {variant} games")
        _, allowed = table[name]
        if allowed is bool:
            if not isinstance(value, bool):
                raise OptionError(f"option {name} must be true or false, not {value!r}")
        elif allowed is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {name} must be a whole number, not {value!r}")
            if name == "target_score" and not 1 <= value <= 10_000:
                raise OptionError(f"target_score must be between 1 and 10000, not {value}")
        elif isinstance(allowed, tuple):
            if value not in allowed:
                raise OptionError(f"option {name} must be one of {', '.join(allowed)}, not {value!r}")
        elif callable(allowed):  # a validator: returns the normalised value or raises OptionError
            value = allowed(name, value)
        result[name] = value
    return result


def validate_players(players: list[str]) -> list[str]:
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise OptionError("players must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise OptionError(f"SKYJO needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)} (C2)")
    names = [p.strip() for p in players]
    if any(not n for n in names):
        raise OptionError("every player needs a name")
    return names


def check_distinct_names(names: list[str]) -> None:
    """A new game's players must be told apart (C2): no two names equal ignoring case and spaces
    around them. (Saved games are loaded without this check: some were created before it.)"""
    seen: dict[str, str] = {}
    for name in names:
        key = name.strip().casefold()
        if key in seen:
            raise OptionError(
                f"two players are called {seen[key]!r} and {name!r}: every player needs a different name"
            )
        seen[key] = name
