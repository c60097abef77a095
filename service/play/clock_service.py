"""The clock inside the service: its settings from the game row, the two calls of the move path
(`dealt` at the deal, `moved` in every applied decision's transaction), and what the board and the
mails show of it (`board_status_of`, `deadline_text`, `others_notes`, `rules_text`).

A timeout plays through the one move path (`moves.decide` with `via` "timeout" or "play-now", see
`play.timeouts`) bound to the deadline's version, so the usual checks apply. `moved` is told so
(`by_clock`): it does not count it as the player acting, and the mails say "played for you"
(`timeout_notes`, `notify.after_move`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache

from flask_babel import gettext as _
from sqlalchemy import event
from sqlmodel import Session

import engine
from service.clock import scheduler
from service.clock.deadlines import (
    BOT_PLAYED_AFTER,
    MAIL_PREFS,
    MAX_VACATION,
    ClockSettings,
    board_status,
    close_game,
    game_clock,
    open_deadlines,
    schedule_decisions,
)
from service.clock.entries import clock_entry, others_entries, rules_of, viewer_zone
from service.clock.seats import note_player_acted, seat_clock, set_seat_settings
from service.clock.zones import valid_zone
from service.i18n import local_time
from service.play.lookups import seats_of
from service.render.clock_text import others_lines, own_line, rules_line, shown_times
from service.store.clock_models import Deadline, utcnow
from service.store.models import GameRow, SeatRow
from service.store.wake import notify_workers


def settings_for(game: GameRow) -> ClockSettings:
    """The game's clock settings: `decision_hours` (clamped to 1 h .. 14 d), `reminder_hours` (list)
    and `timeout_policy` (bot | wait)."""
    hours = min(max(float(getattr(game, "decision_hours", 48) or 48), 1.0), 14 * 24.0)
    reminders = getattr(game, "reminder_hours", None)
    policy = getattr(game, "timeout_policy", None) or "bot"
    return _settings(hours, tuple(reminders) if reminders is not None else (24, 4), policy)


@lru_cache(maxsize=256)
def _settings(hours: float, reminder_hours: tuple, policy: str) -> ClockSettings:
    return ClockSettings.from_hours(hours, reminder_hours, policy)  # frozen: one object per game setting


def dealt(s: Session, game: GameRow, seats: list[SeatRow], g: engine.Game, now: datetime | None = None) -> None:
    """At the deal: each seat's address, time zone (its own, else the host's, else UTC) and mail
    preference, then the first decisions' deadlines."""
    now = now or utcnow()
    host = next((r for r in seats if r.is_host), None)
    host_tz = getattr(host, "tz", None) if host else None
    for r in seats:
        if r.seat is None:
            continue
        pref = r.mail_pref if r.mail_pref in MAIL_PREFS else "every"
        tz = getattr(r, "tz", None) or host_tz or "UTC"
        set_seat_settings(s, game.id, r.seat, now=now, address=None if r.computer else r.email,
                                tz=tz if valid_zone(tz) else "UTC", mail_pref="off" if r.computer else pref,
                                computer=bool(r.computer))
    rows = schedule_decisions(s, game.id, g.pending(), g.version, now, settings_for(game))
    if any(r.computer and r.seat in {row.seat for row in rows} for r in seats):
        wake_clock_after_commit(s)


def wake_clock_after_commit(s: Session) -> None:
    """A computer seat owes a decision now (issue 18): once this transaction commits, this process's
    clock (if it runs one) sweeps at once instead of at its next interval. The sweep plays the
    decision in its own transaction, never in the request that made the move before."""
    if not s.info.get("wake_clock"):
        s.info["wake_clock"] = True
        event.listen(s, "after_commit", _wake_now, once=True)
    notify_workers(s)  # and on PostgreSQL every worker's, at the commit (issue 31.2)


def _wake_now(s: Session) -> None:
    s.info.pop("wake_clock", None)
    scheduler.wake_in_process()


def moved(s: Session, game: GameRow, new: engine.Game, seat: int, now: datetime | None = None, *,
          by_clock: bool = False) -> dict[int, dict] | None:
    """After a decision was applied (in its transaction): a move not played by the clock for a late
    seat (`by_clock`: a timeout or "play now") ends bot play and resets the timeout count; then the
    deadline rows follow the new pending decisions (or all close at game
    over). Returns the game's `board_status` as of this move (None at game over), for the turn
    mails. One SELECT (the seat clocks and open rows), one UPDATE closing rows, one INSERT."""
    now = now or utcnow()
    human = not by_clock
    if new.is_over:
        if human:
            note_player_acted(s, game.id, seat, now)
        close_game(s, game.id, now)
        return None
    clocks, open_rows = game_clock(s, game.id)
    if human and note_player_acted(s, game.id, seat, now, clocks=clocks):
        open_rows = None  # bot play ended: the seat's rows changed, read them again
    rows = schedule_decisions(s, game.id, new.pending(), new.version, now, settings_for(game),
                                    acted_seats=(seat,), clocks=clocks, open_rows=open_rows)
    if any(r.id is None and clocks.get(r.seat) is not None and clocks[r.seat].computer for r in rows):
        wake_clock_after_commit(s)  # a computer seat owes a new decision
    return board_status(s, game.id, now, clocks=clocks, open_rows=rows)


def open_decisions(s: Session, game: GameRow, seat: int | None = None) -> list[Deadline]:
    """The game's open decisions (of one seat) as `Deadline` rows, by seat."""
    return open_deadlines(s, game.id, seat)


def board_status_of(s: Session, game: GameRow, now: datetime | None = None) -> dict[int, dict]:
    """`board_status` of the game (pages, mails outside a move)."""
    return board_status(s, game.id, now)


def player_acted(s: Session, game: GameRow, seat: SeatRow, now: datetime | None = None) -> None:
    """Any other POST by the player (vacation, preferences, ...): ends bot play."""
    if seat.seat is not None:
        note_player_acted(s, game.id, seat.seat, now)


def deadline_text(s: Session, game: GameRow, seat_row: SeatRow, now: datetime | None = None,
                  status: dict | None = None) -> str | None:
    """The seat's own deadline as a sentence in its zone (turn mails, its board), or None."""
    if seat_row.seat is None or game.status != "active":
        return None
    status = status if status is not None else board_status_of(s, game, now)
    return own_line(clock_entry(status.get(seat_row.seat)))


def others_notes(s: Session, game: GameRow, seats: list[SeatRow], viewer: SeatRow | None,
                 now: datetime | None = None, status: dict | None = None) -> list[str]:
    """Lines about the other players' clocks, in the viewer's zone: vacations, bot play, and when
    the decisions they owe are due."""
    if game.status != "active":
        return []
    status = status if status is not None else board_status_of(s, game, now)
    return others_lines(others_entries(status, seats, viewer), viewer_zone(status, viewer))


def rules_text(game: GameRow) -> str:
    """The game's clock in one sentence (board and turn mails): time per decision, reminders, what
    happens when time runs out."""
    return rules_line(**rules_of(game))


def board_clock(s: Session | None, game: GameRow, seat: SeatRow | None, now: datetime | None = None) -> dict:
    """The clock on the board page, in the viewer's zone: the viewer's deadline, the others' state
    (vacation, bot play, deadlines), the vacation form's numbers, whom the host may play for now
    (`s` may be None when the game is not running: then there is nothing to show)."""
    out = {"deadline_text": None, "clock_notes": [], "clock_times": [], "vacation": None, "play_now": []}
    if game.status != "active" or s is None:
        return out
    now = now or utcnow()
    status = board_status_of(s, game, now)
    seats = seats_of(s, game.id)
    out["clock_notes"] = others_notes(s, game, seats, seat, status=status) + [rules_text(game)]
    if seat is None:  # a spectator: the times are marked for the browser's zone (issue 28.7)
        out["clock_times"] = shown_times(others_entries(status, seats, None), viewer_zone(status, None))
        return out
    out["deadline_text"] = deadline_text(s, game, seat, status=status)
    sc = seat_clock(s, game.id, seat.seat)
    away = sc.vacation_until if sc is not None and sc.vacation_until and sc.vacation_until > now else None
    total = MAX_VACATION.total_seconds()
    booked = sc.vacation_used_s if sc is not None else 0  # the current vacation counts whole
    left = int(max(0, total - booked) // 86400)
    out["vacation"] = {"until": local_time(away, viewer_zone(status, seat)) if away else None,
                       # what the form was made from (`settings.start_vacation`'s `seen`): a second
                       # press of the same form finds the vacation changed and does nothing
                       "seen": away.isoformat() if away else "",
                       # what is left of the game's 14 days: the most a new vacation may last, or
                       # the days the current one may still be extended by (issue 28.7)
                       "left": left, "of": int(total // 86400), "left_days": left}
    if seat.is_host and game.timeout_policy == "wait":
        out["play_now"] = [{"seat": r.seat, "name": r.name} for r in seats
                           if r.seat is not None and r.seat != seat.seat and status.get(r.seat, {}).get("deadlines")]
    return out


def timeout_notes(s: Session, game: GameRow, seats: list[SeatRow],
                  mover: int) -> tuple[Callable[[], str], Callable[[], str] | None, bool]:
    """While the clock plays for `mover`: the line the mails of this move show; for the mover, the
    line that tells how to take over again when the seat has just become played by the computer; and
    whether the seat was played by the computer already (then the mover is not told again). The lines
    are functions: each recipient's mail says them in its own language (`notify.in_language_of`)."""
    name = next((r.name for r in seats if r.seat == mover), "?")
    sc = seat_clock(s, game.id, mover)
    count = sc.consecutive_timeouts if sc is not None else 0
    already = bool(sc is not None and sc.bot_played and count > BOT_PLAYED_AFTER)
    if sc is not None and sc.bot_played:
        def everyone() -> str:
            return _("The computer made this decision for %(name)s (it plays for them until they act again).",
                     name=name)
    else:
        def everyone() -> str:
            return _("%(name)s's time ran out: the computer made this decision for them.", name=name)
    back = None
    if sc is not None and sc.bot_played and count == BOT_PLAYED_AFTER:
        def back() -> str:
            return _("You missed %(n)s deadlines in a row, so the computer plays for you from now on. To take "
                     "over again, open any link of ours or your board page and make a move or change a "
                     "setting.", n=BOT_PLAYED_AFTER)
    return everyone, back, already
