"""The clock's API in one namespace (`from service.clock import core as clock`): deadlines,
reminders, timeouts, vacations, quiet hours and daily digests. No Flask here. Each name lives in the
module of its concern:

* `zones`: time zones, quiet hours (`to_local`, `defer_quiet`, `next_local_time`, `valid_zone`);
* `deadlines`: settings, the deadline rows kept in step in the move's transaction
  (`schedule_decisions`, `close_game`, `game_clock`) and `board_status`;
* `seats`: a seat's settings, the player acting, play now, vacations;
* `tick`: the sweep that claims due rows and calls the injected handlers, and sessions outside Flask;
* `text`: the lines players read (board, mails).

The service plugs in at three points: `schedule_decisions` (after `note_player_acted`) in the move's
transaction; `tick(now, session_factory, handlers)`; the board's forms (`set_vacation`,
`end_vacation`, `set_seat_settings`, `play_now`). See docs/clock.md.
"""

from __future__ import annotations

from service.clock.deadlines import (
    BOT_PLAYED_AFTER,
    DAY,
    DEFAULT_DECISION_S,
    DEFAULT_REMINDERS_S,
    HOUR,
    MAIL_PREFS,
    MAX_DECISION_S,
    MAX_VACATION,
    MIN_DECISION_S,
    POLICIES,
    ClockError,
    ClockSettings,
    GameClock,
    OpenDeadline,
    SeatState,
    board_status,
    close_game,
    game_clock,
    game_open_rows,
    open_deadlines,
    resets_seat,
    schedule_decisions,
    seat_states,
)
from service.clock.seats import (
    end_vacation,
    note_player_acted,
    play_now,
    seat_clock,
    set_seat_settings,
    set_vacation,
    vacation_left,
)
from service.clock.tick import (
    DEFAULT_LEASE,
    ClockHandlers,
    TickReport,
    create_tables,
    due_count,
    make_engine,
    session_factory_for,
    tick,
)
from service.clock.zones import (
    QUIET_END,
    QUIET_START,
    defer_quiet,
    is_quiet,
    next_local_time,
    to_local,
    valid_zone,
    zone,
)
from service.store.clock_models import Deadline, DigestSchedule, SeatClock, utcnow

__all__ = [
    "BOT_PLAYED_AFTER", "DAY", "DEFAULT_DECISION_S", "DEFAULT_LEASE", "DEFAULT_REMINDERS_S", "HOUR",
    "MAIL_PREFS", "MAX_DECISION_S", "MAX_VACATION", "MIN_DECISION_S", "POLICIES", "QUIET_END",
    "QUIET_START", "ClockError", "ClockHandlers", "ClockSettings", "Deadline", "DigestSchedule",
    "GameClock", "OpenDeadline", "SeatClock", "SeatState", "TickReport", "board_status", "close_game",
    "create_tables", "defer_quiet", "due_count", "end_vacation", "game_clock", "game_open_rows",
    "is_quiet", "make_engine", "next_local_time", "note_player_acted", "open_deadlines", "play_now",
    "resets_seat", "schedule_decisions", "seat_clock", "seat_states", "session_factory_for",
    "set_seat_settings", "set_vacation", "tick", "to_local", "utcnow", "vacation_left", "valid_zone",
    "zone",
]
