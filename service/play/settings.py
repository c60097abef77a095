"""What a player sets for a seat: a new link (token rotation), the mail preference, vacations (the
seat's deadlines paused) and the host's "play for them now". Each counts as the player acting (the computer stops playing for them) and mirrors into the clock's seat row."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlmodel import Session

from service.clock.deadlines import ClockError
from service.clock.seats import (
    end_vacation,
    play_now,
    seat_clock,
    set_seat_settings,
    set_vacation,
    vacation_left,
)
from service.i18n import LANGUAGES
from service.mail import compose as mails
from service.play import clock_service
from service.play.errors import Conflict, Forbidden, Invalid
from service.play.lookups import seat_at, seat_by_token
from service.store import tokens
from service.store.clock_models import utcnow
from service.store.models import GameRow, SeatRow


def rotate_token(s: Session, token: str) -> tuple[SeatRow, str]:
    seat, game = seat_by_token(s, token, lock=True)
    seat.token_salt = tokens.new_salt()
    new = tokens.seat_token(seat.token_salt)
    seat.token_hash = tokens.hash_token(new)
    clock_service.player_acted(s, game, seat)
    mails.new_link(s, game, seat)
    return seat, new


def set_mail_pref(s: Session, token: str, pref: str, *, talk_mail: bool | None = None,
                  lang: str | None = None, calendar: bool | None = None) -> SeatRow:
    """`pref`: every | digest | off. `talk_mail`: a mail for every message the others write to the
    table (issue 19; only with `every`), None leaves it as it is. `lang`: the seat's language for its
    pages and mails (issue 17), None leaves it. `calendar`: calendar invitations of the seat's
    deadlines in its turn mails (issue 32.2, `mail.ical`), None leaves it."""
    if pref not in {"every", "digest", "off"}:
        raise Invalid(_("Unknown mail preference."))
    if lang is not None and lang not in LANGUAGES:
        raise Invalid(_("Unknown language."))
    seat, game = seat_by_token(s, token, lock=True)
    seat.mail_pref = pref
    if talk_mail is not None:
        seat.talk_mail = talk_mail
    if lang is not None:
        seat.lang = lang
    if calendar is not None:
        seat.calendar = calendar
    clock_service.player_acted(s, game, seat)
    mirror_mail_pref(s, game, seat)
    return seat


def _owned(s: Session, token: str) -> tuple[SeatRow, GameRow]:
    seat, game = seat_by_token(s, token, lock=True)
    if game.status != "active" or seat.seat is None:
        raise Conflict(_("This is only possible while the game is running."), game=game, seat=seat)
    return seat, game


def start_vacation(s: Session, token: str, days: int, now: datetime | None = None, *,
                   seen: str | None = None) -> tuple[datetime, bool]:
    """The board's vacation form: pause the seat's deadlines for `days` days (1..14 in total per
    game); during a vacation, `days` more at its end (issue 28.7: after taking 3 of 14 days the
    form offers the 11 left, and the days add up). `seen` is the end of the vacation the form was
    shown with (ISO, "" for none): when the vacation has changed since (a second press of the same
    form, another tab), nothing changes and Conflict says so (exactly once). Returns the end (naive
    UTC) and whether a running vacation was extended. ClockError (too much vacation) -> 400."""
    if not isinstance(days, int) or not 1 <= days <= 14:
        raise Invalid(_("A vacation lasts from 1 to 14 days."))
    seat, game = _owned(s, token)
    now = now or utcnow()
    sc = seat_clock(s, game.id, seat.seat)
    running = sc.vacation_until if sc is not None and sc.vacation_until and sc.vacation_until > now else None
    if seen is not None and seen != (running.isoformat() if running else ""):
        raise Conflict(_("Your vacation was already changed from another page; nothing was changed now."))
    return _vacation_until(s, game, seat, (running or now) + timedelta(days=days), now), running is not None


def pause_for(s: Session, token: str, days: int, now: datetime | None = None) -> datetime:
    """"Pause all my games for N days" in one game (issue 31.4): the seat's deadlines paused until
    N days from now, or left as they are when a vacation already runs at least that long, so that
    pressing it twice (or in two tabs) pauses once. Limits as `start_vacation`'s."""
    if not isinstance(days, int) or not 1 <= days <= 14:
        raise Invalid(_("A vacation lasts from 1 to 14 days."))
    seat, game = _owned(s, token)
    now = now or utcnow()
    sc = seat_clock(s, game.id, seat.seat)
    until = now + timedelta(days=days)
    if sc is not None and sc.vacation_until and sc.vacation_until >= until - timedelta(minutes=1):
        return sc.vacation_until
    return _vacation_until(s, game, seat, until, now)


def _vacation_until(s: Session, game, seat, until: datetime, now: datetime) -> datetime:
    try:
        set_vacation(s, game.id, seat.seat, until, now)
    except ClockError as exc:
        left = vacation_left(seat_clock(s, game.id, seat.seat), now)
        raise Invalid(_("At most 14 days of vacation per game; %(days)s days left.",
                                 days=round(left.total_seconds() / 86400, 1)), clock_error=str(exc)) from exc
    return until


def stop_vacation(s: Session, token: str, now: datetime | None = None) -> None:
    seat, game = _owned(s, token)
    end_vacation(s, game.id, seat.seat, now)
    clock_service.player_acted(s, game, seat, now)


def host_play_now(s: Session, token: str, seat_no: int, now: datetime | None = None) -> str:
    """The host's "play for them now" (games with policy `wait`): the seat's owed decisions are
    played by the computer at the next sweep. Returns the player's name."""
    host, game = _owned(s, token)
    if not host.is_host:
        raise Forbidden(_("Only the host can do this."))
    if getattr(game, "timeout_policy", "bot") != "wait":
        raise Conflict(_("In this game the computer plays for late players by itself."))
    target = seat_at(s, game.id, seat_no)
    if target is None or target.seat == host.seat:
        raise Invalid(_("No such player in this game."))
    clock_service.player_acted(s, game, host, now)
    if play_now(s, game.id, target.seat, now) == 0:
        raise Conflict(_("%(name)s owes no decision right now.", name=target.name))
    clock_service.wake_clock_after_commit(s)  # due now: the sweep need not wait for its tick (issue 31.2)
    return target.name


def mirror_mail_pref(s: Session, game: GameRow, seat: SeatRow, now: datetime | None = None) -> None:
    """`seat.mail_pref` changed: the clock's copy follows (reminders, digests)."""
    if seat.seat is not None and game.state is not None:
        set_seat_settings(s, game.id, seat.seat, now=now, address=seat.email, mail_pref=seat.mail_pref)


def unsubscribe(s: Session, token: str) -> SeatRow:
    """RFC 8058 one-click unsubscribe (posted by the mail client, not the player: it does not count
    as the player acting): no more mails for this game, no reminders or digests either."""
    seat, game = seat_by_token(s, token, lock=True)
    seat.mail_pref = "off"
    mirror_mail_pref(s, game, seat)
    return seat
