"""The state of a classic game: its fields, declared once (C1-C13).

`GameState` declares every field of a game (the saved state holds exactly the fields saved here, in
this order: `engine.state` reads them from the dataclass fields) and the hooks a variant changes in
its state: the deck (C1; SKYJO Action: option `game_deck`), how a card is written, the cards it keeps
elsewhere and the check of its own part of a loaded state. The rule parts are built on it, each on
the ones before: `engine.rounds` (C3-C6, C11), `engine.scoring` (C8-C12), `engine.game` (the turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from . import cards, state
from .phases import UP


@dataclass(init=False, eq=False, repr=False, slots=True)
class GameState:
    """The fields of a game (see the module docstring); `engine.game.Game` plays on them."""

    variant: ClassVar[str] = "classic"  # the registered variant's name (engine.variants)

    # The state's fields, declared once: `engine.state` saves and loads exactly these, in this order
    # (hidden information included: the saved state is stored, never rendered).
    names: list[str]
    options: dict[str, Any]
    seed: str
    version: int
    round: int
    active: list[int]  # the seats of this round (C12: an extra round has only the tied)
    vals: list[list[Any]]  # per seat the 12 cards, A1 B1 C1 D1 A2 ... D3
    face: list[list[int]]  # per seat the 12 faces: DOWN, UP or GONE
    down: list[int]  # per seat its face-down count
    draw: list[Any]  # the draw pile, top last
    discard: list[Any]  # the discard pile, top last
    phase: str
    revealed: list[int]  # per seat its opening reveals (C4)
    tie_group: list[int]  # C5's tied seats
    turn: int  # the seat to play (-1: none)
    stage: int  # STAGE_TURN, STAGE_DRAWN, STAGE_TAKEN (SKYJO Action: also STAGE_THREE)
    held: Any  # the card drawn or taken, or None
    closer: int  # -1: nobody has closed (C9)
    final_left: int  # turns left after the close
    totals: list[int]
    rounds: list[dict[str, Any]]
    round_specs: list[dict[str, Any]]  # per round its seed or explicit deal (engine.record)
    reshuffles: int  # C11 in this round
    tiebreak_group: list[int] | None
    winners: list[int] | None
    moves: list[str]  # the record's moves, "<seat>: <move>"
    log: list[dict[str, Any]]  # every public event
    removed_cols: list[list[Any]]
    tie_owed: set[int] = field(metadata=state.SAVED_AS_SORTED_LIST)  # C5: who still owes a reveal
    round_start: int = field(metadata=state.SAVED_MAY_LACK)  # the version this round was dealt at
    n: int = field(metadata=state.NOT_SAVED)
    next_seat: list[int] = field(metadata=state.NOT_SAVED)  # per seat the next seat of the round

    @property
    def deck_counts(self) -> dict[Any, int]:
        """The deck of this game (C1; SKYJO Action: option `game_deck`)."""
        return cards.CLASSIC_COUNTS

    # hooks of a variant (engine.state and engine.view call them; SKYJO Action overrides them)
    def card_json(self, value: Any) -> Any:
        """A card as the view and the saved state write it (classic: the int)."""
        return value

    def extra_cards(self) -> list[Any]:
        """Cards of the game deck the variant keeps outside the grids, piles and hand (C1 check)."""
        return []

    def check_variant_state(self) -> None:
        """Raise StateError unless the variant's own part of a loaded state is consistent."""

    def link_seats(self) -> None:
        """`next_seat` from `active`: each seat of the round is followed by the next one (C7)."""
        active = self.active
        nxt = [0] * self.n
        for i, s in enumerate(active):
            nxt[s] = active[(i + 1) % len(active)]
        self.next_seat = nxt

    def on_round_dealt(self) -> None:
        """Called once a round is dealt (C3): a variant deals its own part (SKYJO Action, A2)."""

    def on_play_begins(self) -> None:
        """Called when a round's play begins (C5/C6): a variant resets its turn state."""

    def on_game_over(self) -> None:
        """Called when the game ends (C12): a variant clears what is owed no more."""

    def _visible_sum(self, seat: int) -> int:
        """The sum of `seat`'s face-up cards (C10; SKYJO Action: a star counts 0)."""
        f = self.face[seat]
        v = self.vals[seat]
        return sum(v[c] for c in range(12) if f[c] == UP)
