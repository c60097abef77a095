"""The use cases' API in one namespace for web/, the CLI and the tools: one function per thing a
person can do, each run inside the transaction the caller opens with `db.transaction(write=True)`
(mails go into the outbox in that same transaction: a mail exists iff the change committed). Each
name lives in the module of its concern:

* `games`: create, accept, decline, cancel, the deal, rematch, export;
* `moves`: the one move path (`decide`) and its entry points `play` (a link or a board button) and
  `play_plan` / `play_plan_for` (the board's whole-turn form, a reply mail);
* `settings`: new link, mail preference, my links, vacation, play now, unsubscribe;
* `talk`: table talk (messages from the board or a reply mail, the host's hide), see `play.talk`;
* `lookups`: a seat by its token, a game's seats, the engine game and its views;
* `errors`: what a refused use case raises.
"""

from __future__ import annotations

from service.play.errors import Conflict, Forbidden, Invalid, NotFound, UseCaseError
from service.play.games import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Created,
    accept,
    cancel,
    computer_takes_seat,
    create_game,
    deal,
    decline,
    default_options,
    export_record,
    game_title,
    rematch,
    rematch_of_title,
)
from service.play.lookups import deadline_of, full_game, load_engine_game, seat_by_token, seats_of, view_for
from service.play.moves import (
    PlanPlayed,
    Played,
    decide,
    decision_at,
    parse_slug,
    play,
    play_plan,
    play_plan_for,
    stale_reason,
)
from service.play.settings import (
    host_play_now,
    mail_my_links,
    rotate_token,
    set_mail_pref,
    start_vacation,
    stop_vacation,
    unsubscribe,
)

__all__ = [
    "MAX_PLAYERS", "MIN_PLAYERS", "Conflict", "Created", "Forbidden", "Invalid", "NotFound", "PlanPlayed",
    "Played", "UseCaseError", "accept", "cancel", "computer_takes_seat", "create_game", "deadline_of", "deal",
    "decide", "decision_at", "decline", "default_options", "export_record", "full_game", "game_title",
    "host_play_now", "load_engine_game", "mail_my_links", "parse_slug", "play", "play_plan", "play_plan_for",
    "rematch", "rematch_of_title", "rotate_token", "seat_by_token", "seats_of", "set_mail_pref", "stale_reason",
    "start_vacation", "stop_vacation", "unsubscribe", "view_for",
]
