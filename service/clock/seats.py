"""A seat's clock: its settings (address, zone, mail preference), the player acting (ends bot play),
the host's "play now" and vacations (at most 14 days per game and seat). The rarer paths: ORM objects,
and the seat's open rows re-planned (`deadlines.plan`) after each change.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, select, update
from sqlmodel import Session

from service.clock.deadlines import (
    DEFAULT_REMINDERS_S,
    MAIL_PREFS,
    MAX_VACATION,
    ClockError,
    SeatState,
    core,
    future_offsets,
    on_vacation,
    open_deadlines,
    plan,
    resets_seat,
    seat_states,
    sync,
)
from service.clock.zones import next_local_time, valid_zone
from service.store.clock_models import DigestSchedule, SeatClock
from service.store.outbox_models import naive_utc as _naive

_ST = SeatClock.__table__
_RESET_SEAT = (update(_ST).where(_ST.c.game_id == bindparam("b_game_id"), _ST.c.seat == bindparam("b_seat"))
               .values(consecutive_timeouts=0, bot_played=False, updated_at=bindparam("acted_at")))



def seat_clock(session: Session, game_id: str, seat: int) -> SeatClock | None:
    return session.get(SeatClock, (game_id, seat))


def _seat_clock_or_new(session: Session, game_id: str, seat: int, now: datetime) -> SeatClock:
    sc = session.get(SeatClock, (game_id, seat))
    if sc is None:
        sc = SeatClock(game_id=game_id, seat=seat, updated_at=now)
        session.add(sc)
    return sc



def set_seat_settings(session: Session, game_id: str, seat: int, *, now: datetime | None = None,
                      address: str | None = None, tz: str | None = None,
                      mail_pref: str | None = None, computer: bool | None = None) -> SeatClock:
    """Record the seat's address (for digests), time zone (asked at acceptance), mail preference
    (every | digest | off) and whether the computer plays it (issue 18: its decisions are due at
    once). Re-plans the seat's open rows (quiet hours, muted reminders)."""
    now = _naive(now)
    if tz is not None and not valid_zone(tz):
        raise ClockError(f"unknown time zone: {tz}")
    if mail_pref is not None and mail_pref not in MAIL_PREFS:
        raise ClockError(f"mail preference must be one of {', '.join(MAIL_PREFS)}")
    sc = _seat_clock_or_new(session, game_id, seat, now)
    if address is not None:
        sc.address = address.strip().lower()
    if tz is not None:
        sc.tz = tz
    if mail_pref is not None:
        sc.mail_pref = mail_pref
    if computer is not None:
        sc.computer = computer
    sc.updated_at = now
    if sc.mail_pref == "digest" and sc.address:
        d = session.execute(select(DigestSchedule).where(DigestSchedule.address == sc.address)).scalar()
        if d is None:
            session.add(DigestSchedule(address=sc.address, tz=sc.tz, next_at=next_local_time(now, sc.tz)))
        elif d.tz != sc.tz:
            d.tz = sc.tz
            d.next_at = next_local_time(now, sc.tz)
    for row in open_deadlines(session, game_id, seat):
        plan(row, sc, now)
    session.flush()
    return sc



def note_player_acted(session: Session, game_id: str, seat: int, now: datetime | None = None, *,
                      clocks: dict[int, SeatState] | None = None) -> bool:
    """The seat's player acted (a move, or any action from a link or page): reset the consecutive
    timeout count and end bot play. Call it BEFORE `schedule_decisions` in a human move's
    transaction (the bot's timeout move must not call it). Returns True if bot play ended.
    `clocks`: the game's `seat_states` from this transaction (updated here), to save a query.
    Writes only when there is something to reset (a timeout count or bot play): the common move
    costs no statement here (`clock_seat.updated_at` is the time of the last change)."""
    now = _naive(now)
    if clocks is None:
        clocks = seat_states(session, game_id)
    if not resets_seat(clocks, seat):
        return False
    sc = clocks[seat]
    was_bot = bool(sc.bot_played)
    core(session).execute(_RESET_SEAT, {"b_game_id": game_id, "b_seat": seat, "acted_at": now})
    sync(session, SeatClock, [(game_id, seat)], {"consecutive_timeouts": 0, "bot_played": False, "updated_at": now})
    sc.consecutive_timeouts, sc.bot_played = 0, False
    if was_bot:  # rare: the seat's rows that were due at once get a full decision time again (ORM)
        for row in open_deadlines(session, game_id, seat):
            if row.bot_played:
                row.bot_played = False
                row.deadline_at = now + timedelta(seconds=row.decision_seconds)
                row.moves += 1  # the calendar invitation's SEQUENCE (issue 32.2)
                row.reminders_left = future_offsets(row.reminders_left or DEFAULT_REMINDERS_S,
                                                     row.deadline_at, now)
                plan(row, sc, now)
        session.flush()
    return was_bot



def play_now(session: Session, game_id: str, seat: int, now: datetime | None = None) -> int:
    """The host's "play for them now": the seat's open decisions time out at the next sweep (any
    policy). Returns how many rows were advanced."""
    now = _naive(now)
    n = 0
    for row in open_deadlines(session, game_id, seat):
        row.bot_played = True
        row.deadline_at = now
        row.moves += 1  # the calendar invitation's SEQUENCE (issue 32.2)
        plan(row, seat_clock(session, game_id, seat), now)
        n += 1
    session.flush()
    return n


# --------------------------------------------------------------------------------------------------
# Vacations
# --------------------------------------------------------------------------------------------------


def vacation_left(sc: SeatClock | None, now: datetime) -> timedelta:
    if sc is None:
        return MAX_VACATION
    used = timedelta(seconds=sc.vacation_used_s)
    if on_vacation(sc, now):
        used -= sc.vacation_until - now
    return max(timedelta(0), MAX_VACATION - used)


def set_vacation(session: Session, game_id: str, seat: int, until: datetime,
                 now: datetime | None = None) -> SeatClock:
    """Pause the seat's deadlines until `until` (at most 14 days per game and seat in total; setting
    a new one replaces the current one and gives back its unused part). Its open deadlines are
    extended by the pause; decisions that come up during it get their full time after it. Counts as
    the player acting (ends bot play)."""
    now, until = _naive(now), _naive(until)
    if until <= now:
        raise ClockError("the vacation must end in the future")
    sc = _seat_clock_or_new(session, game_id, seat, now)
    session.flush()
    note_player_acted(session, game_id, seat, now)
    current_rest = (sc.vacation_until - now) if on_vacation(sc, now) else timedelta(0)
    used = timedelta(seconds=sc.vacation_used_s) - current_rest
    if used + (until - now) > MAX_VACATION:
        left = MAX_VACATION - used
        raise ClockError(f"at most 14 days of vacation per game; {max(left, timedelta(0))} left")
    sc.vacation_until = until
    sc.vacation_used_s = int((used + (until - now)).total_seconds())
    sc.updated_at = now
    for row in open_deadlines(session, game_id, seat):
        if row.vacation_until and row.vacation_until > now and row.paused_remaining_s is not None:
            remaining = row.paused_remaining_s
        else:
            remaining = max(0, int((row.deadline_at - now).total_seconds()))
        row.paused_remaining_s = remaining
        row.vacation_until = until
        row.deadline_at = until + timedelta(seconds=remaining)
        row.moves += 1  # the calendar invitation's SEQUENCE (issue 32.2)
        plan(row, sc, now)
    session.flush()
    return sc


def end_vacation(session: Session, game_id: str, seat: int, now: datetime | None = None) -> SeatClock | None:
    """Back early: deadlines run again from now with the time they had left; the unused vacation
    is given back."""
    now = _naive(now)
    sc = seat_clock(session, game_id, seat)
    if sc is None or not on_vacation(sc, now):
        return sc
    sc.vacation_used_s = max(0, sc.vacation_used_s - int((sc.vacation_until - now).total_seconds()))
    sc.vacation_until = None
    sc.updated_at = now
    for row in open_deadlines(session, game_id, seat):
        if row.vacation_until and row.vacation_until > now and row.paused_remaining_s is not None:
            row.deadline_at = now + timedelta(seconds=row.paused_remaining_s)
            row.moves += 1  # the calendar invitation's SEQUENCE (issue 32.2)
        row.vacation_until = None
        row.paused_remaining_s = None
        plan(row, sc, now)
    session.flush()
    return sc

