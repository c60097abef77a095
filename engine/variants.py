"""The variants of the game: each one object, registered once (OpenSpiel's `register_game` model).

A `Variant` says everything the engine needs to know about one variant, by its name:
* `game`: the class that holds the state and plays the rules (`engine.game.Game` for classic,
  `engine.action.ActionGame` for SKYJO Action); `engine.new_game` and `Game.from_json` find it here;
* `options` and `option_help`: its option table (RULES.md lists every option with its default);
* `bots`: its bots by name, each `bot(game, seat, rng) -> move` for any decision the seat owes;
* `view`: what it adds to the classic view (`view(game, data, seat)` extends `data` in place), or None;
* `event_text`: the English sentences of the event types it adds (type -> `text(event, names)`).

`engine.classic` registers the classic game and `engine.action` SKYJO Action, both when `engine` is
imported. This module is the lowest layer: it imports nothing of the engine but `engine.words` (a
sentence's type), and the modules that
look a variant up (`engine.options`, `engine.state`, `engine.view`, `engine.bots`) import it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .words import Said

Bot = Callable[[Any, int, random.Random], Any]
ViewPart = Callable[[Any, dict[str, Any], "int | None"], None]
EventText = Callable[[dict[str, Any], list[str]], Said]


@dataclass(frozen=True)
class Variant:
    """One variant of the game (see the module docstring)."""

    name: str
    game: type[Any]
    options: Mapping[str, tuple[Any, Any]]
    option_help: Mapping[str, str]
    bots: Mapping[str, Bot]
    view: ViewPart | None = None
    event_text: Mapping[str, EventText] = field(default_factory=dict)


VARIANTS: dict[str, Variant] = {}


def register_variant(variant: Variant) -> Variant:
    """Make `variant` known by its name; a name is registered once."""
    if variant.name in VARIANTS:
        raise ValueError(f"variant {variant.name!r} is registered already")
    VARIANTS[variant.name] = variant
    return variant


def get_variant(name: Any) -> Variant | None:
    """The variant called `name`, or None (also for a name that is not a string)."""
    return VARIANTS.get(name) if isinstance(name, str) else None


def event_text(event_type: str) -> EventText | None:
    """The sentence function a variant registered for `event_type`, or None."""
    for variant in VARIANTS.values():
        text = variant.event_text.get(event_type)
        if text is not None:
            return text
    return None


class OptionTables(Mapping[str, Mapping[str, tuple[Any, Any]]]):
    """Variant name -> its option table, in registration order (`engine.options.VARIANT_OPTIONS`)."""

    def __getitem__(self, name: str) -> Mapping[str, tuple[Any, Any]]:
        return VARIANTS[name].options

    def __iter__(self) -> Any:
        return iter(VARIANTS)

    def __len__(self) -> int:
        return len(VARIANTS)


class OptionHelp(Mapping[str, str]):
    """Option name -> its help text, over every variant (the first variant that has the option)."""

    def _merged(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for variant in VARIANTS.values():
            for name, text in variant.option_help.items():
                merged.setdefault(name, text)
        return merged

    def __getitem__(self, name: str) -> str:
        return self._merged()[name]

    def __iter__(self) -> Any:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())
