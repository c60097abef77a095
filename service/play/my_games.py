"""My games, without an account (issue 31.4): the page one signed link opens (`tokens.my_games_token`,
mailed by "mail me my links"), listing every game of the address: waiting on you (with your
deadline in your zone), waiting on the others, finished (results; the rematch is the board's own
POST, `games.rematch`). From it, for all the games at once: the mail preference and language (each
seat through `settings.set_mail_pref`) and "pause all my games" (each running game through
`settings.pause_for`, with the board's limits: what happened is said per game).

Everything shown comes from each seat's own view (`lookups.view_for`), never the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import func
from sqlmodel import Session, select

from service import i18n
from service.mail import compose as mails
from service.play import clock_service, settings
from service.play.errors import Invalid, UseCaseError
from service.play.forget import FORGOTTEN
from service.play.lookups import seats_of, view_for
from service.render.links import base_url, seat_path
from service.render.moves import status_line
from service.render.sheet import standings
from service.store import tokens
from service.store.models import GameRow, SeatRow

LISTED = ("inviting", "active", "finished")


class BadLink(UseCaseError):
    """The "my games" link is forged, too old (410) or no longer that address's (404): the page
    offers to mail a new one."""


@dataclass
class Entry:
    game: GameRow
    seat: SeatRow
    title: str
    path: str  # the seat's board (its secret link)
    line: str  # who owes what, from the seat's view
    invitation: list[SeatRow] | None = None  # the game's seats while the others are asked (_invitation_status.html)
    deadline: str | None = None  # the seat's own deadline, in its zone
    standings: list[dict] = field(default_factory=list)


@dataclass
class MyGames:
    name: str
    lang: str
    mail_pref: str
    calendar: bool = False  # issue 32.2: the newest game's, like mail_pref
    yours: list[Entry] = field(default_factory=list)
    others: list[Entry] = field(default_factory=list)
    finished: list[Entry] = field(default_factory=list)


def link_days() -> float:
    return float(current_app.config["MY_GAMES_LINK_DAYS"])  # env_config: 7 unless set


def link_url(seat: SeatRow) -> str:
    return f"{base_url()}/me/{tokens.my_games_token(seat.id, seat.email)}"


def _email_of(s: Session):
    def email_of(seat_id: int) -> str | None:
        seat = s.get(SeatRow, seat_id) if 0 < seat_id < 2**31 else None
        if seat is None or seat.computer or not seat.email or seat.email == FORGOTTEN:
            return None
        return seat.email
    return email_of


def _seats(s: Session, signed: str) -> list[tuple[SeatRow, GameRow]]:
    """The address's seats (not declined) in listed games, newest game first; BadLink if the link
    does not hold."""
    try:
        seat_id = tokens.my_games_seat(signed, link_days() * 86400, _email_of(s))
    except tokens.LinkExpired:
        raise BadLink(_("This link to your games has expired."), expired=True) from None
    if seat_id is None:
        raise BadLink(_("This link to your games is not valid."))
    email = s.get(SeatRow, seat_id).email
    rows = s.exec(select(SeatRow, GameRow).join(GameRow, GameRow.id == SeatRow.game_id)
                  .where(func.lower(SeatRow.email) == email.lower(), SeatRow.status != "declined",
                         GameRow.status.in_(LISTED))
                  .order_by(GameRow.created_at.desc(), GameRow.id)).all()
    return [(seat, game) for seat, game in rows]


def page(s: Session, signed: str, now: datetime | None = None) -> MyGames:
    seats = _seats(s, signed)
    first = seats[0][0] if seats else None
    found = MyGames(name=first.name if first else "", lang=first.lang if first else i18n.DEFAULT,
                    mail_pref=first.mail_pref if first else "every", calendar=bool(first and first.calendar))
    i18n.use_seat(found.lang)  # the page speaks the newest game's language
    for seat, game in seats:
        rows = seats_of(s, game.id)
        names = [r.name for r in rows if r.status != "declined"]
        entry = Entry(game, seat, i18n.game_title(names), seat_path(tokens.seat_token(seat.token_salt)), "")
        if game.status == "inviting":
            if seat.status == "invited":
                entry.line = _("You are invited to play. Will you join?")
                found.yours.append(entry)
            else:
                entry.invitation = rows  # said as on the invitation's own page
                found.others.append(entry)
            continue
        view = view_for(s, game, seat.seat)
        entry.line = status_line(view)
        if game.status == "finished":
            entry.standings = standings(view)
            found.finished.append(entry)
        elif any(p["seat"] == seat.seat for p in view.get("pending") or []):
            entry.deadline = clock_service.deadline_text(s, game, seat, now)
            found.yours.append(entry)
        else:
            found.others.append(entry)
    return found


def mail_my_links(s: Session, email: str) -> int:
    """Mail the address one link to the page of its games (issue 31.4, `play.my_games`). Returns
    how many games it has (never shown to the user)."""
    email = email.strip()
    rows = s.exec(select(SeatRow, GameRow).join(GameRow, GameRow.id == SeatRow.game_id)
                  .where(func.lower(SeatRow.email) == email.lower(), SeatRow.status != "declined",
                         GameRow.status.in_(LISTED))
                  .order_by(GameRow.created_at.desc())).all()
    if rows:
        seat = rows[0][0]
        mails.links(s, seat, link_url(seat), link_days())
    return len(rows)


def _in_order(seats: list[tuple[SeatRow, GameRow]]) -> list[tuple[SeatRow, GameRow]]:
    """By game id: every use case locks its game row, and two requests lock in the same order."""
    return sorted(seats, key=lambda sg: sg[1].id)


def set_all(s: Session, signed: str, pref: str, lang: str, *, calendar: bool | None = None) -> int:
    """The mail preference, language and calendar invitations (issue 32.2) of every listed game of the address (each seat through
    `settings.set_mail_pref`, the seat page's own path). Returns how many games."""
    seats = _seats(s, signed)
    for seat, _game in _in_order(seats):
        settings.set_mail_pref(s, tokens.seat_token(seat.token_salt), pref, lang=lang, calendar=calendar)
    i18n.use_seat(lang)
    return len(seats)


@dataclass
class Paused:
    title: str
    until: datetime | None  # None: not paused, `why` says why
    why: str | None = None


def pause_all(s: Session, signed: str, days: int, now: datetime | None = None) -> list[Paused]:
    """"Pause all my games for N days": a vacation until N days from now in each running game
    (`settings.pause_for`, with the board's limits: 14 days per game in all). A game that refuses
    keeps what it had (a savepoint); the others are paused. Pressed twice, the second finds every
    game paused that long already and changes nothing."""
    if not isinstance(days, int) or not 1 <= days <= 14:
        raise Invalid(_("A vacation lasts from 1 to 14 days."))
    seats = _seats(s, signed)
    lang = seats[0][0].lang if seats else i18n.DEFAULT
    done = []
    for seat, game in _in_order(seats):
        if game.status != "active" or seat.seat is None:
            continue
        rows = seats_of(s, game.id)
        names = [r.name for r in rows if r.status != "declined"]
        try:
            with s.begin_nested():
                until = settings.pause_for(s, tokens.seat_token(seat.token_salt), days, now)
        except UseCaseError as exc:
            i18n.use_seat(lang)
            done.append(Paused(i18n.game_title(names), None, exc.message))
        else:
            i18n.use_seat(lang)
            done.append(Paused(i18n.game_title(names), until))
    return done
