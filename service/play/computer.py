"""Computer seats (issue 18): a seat the computer plays at a level (easy, normal, strong).

* `bot_for(level)`: the engine bot of a level (`engine.bot_for_level`);
* `computer_name`: the seat's name, "Computer (strong)" or the host's name for it with the level;
* `play_owed_decision`: the clock's handler for a computer seat's deadline row (`next_event`
  "computer", due as soon as the decision is owed): the bot's play through the one move path
  (`moves.decide` with `via="computer"`: on while the seat alone owes a decision, `moves.bot_turn`),
  in the sweep's transaction, never in the request that made the move before.

A computer seat has no address, gets no mail (`mail.compose.send` skips it, and its mail preference
is "off"), is accepted at once, and is never shown as a person the game waits for
(`clock.board_status` leaves it out).
"""

from __future__ import annotations

from collections.abc import Callable

from flask_babel import gettext as _
from sqlmodel import Session

import engine
from service.play import moves
from service.play.lookups import load_engine_game, lock_game, seat_at
from service.store.clock_models import Deadline
from service.store.models import GameRow

LEVELS = tuple(engine.LEVELS)  # easy, normal, strong: the engine maps each to its bot
CIRCLE_LIMIT = 3  # the same position this often (engine.times_seen): the computer plays a random move
NAME_MAX = 40


def bot_for(level: str) -> str:
    """The engine bot that plays a computer seat of `level` (the engine's one level -> bot mapping,
    `engine.bot_for_level`: easy -> "easy", normal -> "greedy", strong -> "strong")."""
    return engine.bot_for_level(level)


def level_label(level: str) -> str:
    return {"easy": _("easy"), "normal": _("normal"), "strong": _("strong")}.get(level, level)


def computer_name(base: str, level: str, taken: set[str], key: Callable[[str], str] = str.casefold) -> str:
    """The seat's name: `base` (the host's name for it, else "Computer") with the level,
    "Computer (strong)", numbered when another player has that name already ("Computer 2 (strong)").
    `taken`: the other names, as `key` gives them (case-folded by default). A name that carries its
    level already keeps it (a rematch)."""
    suffix = f" ({level_label(level)})"
    base = (base or "").strip() or _("Computer")
    if base.endswith(suffix):
        base = base[: -len(suffix)].strip() or _("Computer")
    base = base[: NAME_MAX - len(suffix) - 3]
    name, n = base + suffix, 1
    while key(name) in taken:
        n += 1
        name = f"{base} {n}{suffix}"
    return name


def play_owed_decision(s: Session, d: Deadline) -> bool:
    """The clock's handler for a computer seat's deadline row: the decision it owes, through the
    one move path (`moves.decide`). The game row is locked first, so two sweeps that handle two
    computer seats of one game at once take turns instead of one losing on the version. Returns
    False when the decision is no longer owed (nothing is written)."""
    lock_game(s, d.game_id)
    game = s.get(GameRow, d.game_id, populate_existing=True)
    if game is None or game.status != "active" or game.state is None:
        return False
    seat = seat_at(s, d.game_id, d.seat)
    if seat is None or not seat.computer:
        return False
    g = load_engine_game(game)
    if not any(p.seat == d.seat and p.kind == d.kind for p in g.pending()):
        return False
    # a position seen this often would come back for ever: a random move gets the game out of it
    bot = "random" if engine.times_seen(g) >= CIRCLE_LIMIT else bot_for(seat.computer)
    moves.decide(s, game, seat, moves.Turn(bot=bot), via="computer", g=g, expected_version=game.version)
    return True
