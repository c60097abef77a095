"""Queueing mails: one intent per mail (a template name and a JSON context built from a seat's view,
never the state) in the caller's transaction; `service.mail.render` makes the bodies when the sender
takes the row. The primitives only (`send` to a seat, invitations, notices, links): who is mailed
what after a move is decided in `service.play.notify`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import orjson
from flask_babel import gettext as _
from sqlalchemy import bindparam
from sqlmodel import select

from service.i18n import DEFAULT, game_title, speaking
from service.mail import subjects
from service.mail.ical import calendar_of
from service.mail.outbox import insert_mail
from service.mail.render import is_view
from service.mail.talk import since_last_mail
from service.render.links import base_url, never_mail_url, seat_path, unsubscribe_url
from service.render.rules import terms_of
from service.store import tokens
from service.store.clock_models import Deadline
from service.store.models import GameRow, SeatRow


def _thread(game: GameRow, seat: SeatRow) -> str:
    # one thread per game and player (the email stays the same through a token rotation)
    return f"game-{game.id}-{seat.position}"


def reply_to_of(game: GameRow, seat: SeatRow) -> str:
    """The seat's secret reply address for a mail showing the game's current version."""
    from service.mail.replies import reply_address

    return reply_address(tokens.mail_domain(), tokens.reply_token(game.id, seat.token_hash), game.version)


def send(s, game: GameRow, seat: SeatRow, template: str, *, asks: bool = False, subject: str | None = None,
         starts_thread: bool = False, hold_until: datetime | None = None,
         hold_for: tuple[str, str] | None = None, calendar: dict | None = None, **ctx) -> None:
    """Queue one mail to `seat` as an intent: the template's name and a JSON context (the seat's
    view, never the state), rendered by `render_intent` when the sender takes the row. Mail goes out
    iff the caller's transaction commits; the move's transaction stays small.

    `asks=True`: the mail asks the seat for a decision, so replying to it plays (Reply-To is the
    seat's reply address with the game version, and the two lines of command help are shown).
    The mail carries the table talk written and the others' moves made since the seat's previous
    mail (`mail.talk`: `talk` and `since`, issues 19 and 28.1). Its
    subject says its kind (`mail.subjects`: "Your turn · round 2 · ...", "Round 2 over: ...") unless
    `subject` is given; every mail of one game and seat shares one thread (`_thread`), whose root
    is the seat's first mail (`starts_thread`: the invitation, or the host's "set up" mail).
    `hold_until`, `hold_for`: a held turn mail (see `outbox.mail_values`). A seat the computer plays
    (issue 18) has no address and gets no mail: nothing is queued.
    `calendar`: the decision the mail asks for and its deadline (`play.notify.calendar_event`); a
    seat that asked for calendar invitations gets it as an event, and any mail to a seat carries the
    cancellation of its previous event once that decision is no longer asked for (`mail.ical`,
    issue 32.2)."""
    if seat.computer:
        return
    token = tokens.seat_token(seat.token_salt)
    talk, since = since_last_mail(s, game, seat, with_events=is_view(ctx.get("view")), held=hold_until is not None)
    if talk is not None:
        ctx["talk"] = talk
    if since is not None:
        ctx["since"] = since
    lang = seat.lang or DEFAULT
    title = game.title if lang == DEFAULT else _title_in(s, game, lang)
    context = _plain({**ctx, "game": _game_ctx(game, title), "seat": _seat_ctx(seat), "token": token,
                      "base": base_url(), "asks": asks, "lang": lang})
    if subject is None:
        with speaking(lang):  # the subject in the recipient's language, like the body
            subject = subjects.subject_for(template, title, ctx)
    cal = calendar_of(seat, game_id=game.id, title=title, url=base_url() + seat_path(token),
                      domain=tokens.mail_domain(), event=calendar,
                      still_open=lambda row_id: _deadline_open(s, row_id)) if calendar or seat.calendar_event else None
    insert_mail(s, to_addr=seat.email, to_name=seat.name, subject=subject, template=template, context=context,
                game_id=None, seat=seat.seat if seat.seat is not None else seat.position,
                thread_key=_thread(game, seat), unsubscribe_url=_unsubscribe_url(template, token),
                reply_to=reply_to_of(game, seat) if asks else None, starts_thread=starts_thread,
                hold_until=hold_until, hold_for=hold_for, game_ref=game.id, calendar=cal)


def _deadline_open(s, row_id: int) -> bool:
    """Is the clock's row `row_id` (a decision's deadline) still open? (`mail.ical`: its event stays)"""
    return s.execute(select(Deadline.id).where(Deadline.id == row_id, Deadline.fired_at.is_(None))).first() is not None


def _unsubscribe_url(template: str, token: str) -> str:
    """RFC 8058 one-click target: an invitation's is "no mail from this service at all" (issue 29:
    the address has no game here yet), every other mail's is this game's mails."""
    return never_mail_url(token) if template == "invitation" else unsubscribe_url(token)


def _game_ctx(game: GameRow, title: str | None = None) -> dict:
    return {"id": game.id, "title": title or game.title, "status": game.status}


_NAMES = (select(SeatRow.name).where(SeatRow.game_id == bindparam("game_id"), SeatRow.status != "declined")
          .order_by(SeatRow.position))


def _title_in(s, game: GameRow, lang: str) -> str:
    """The game's title in `lang` (the stored one is English): from the names of its players who did
    not decline, read once per transaction and title."""
    names = s.info.setdefault("title_names", {})
    key = (game.id, game.title)  # a decline changes the title (and who it names)
    if key not in names:
        names[key] = list(s.exec(_NAMES, params={"game_id": game.id}))
    with speaking(lang):
        return game_title(names[key])


def _seat_ctx(seat: SeatRow) -> dict:
    return {"name": seat.name, "seat": seat.seat, "position": seat.position, "is_host": seat.is_host,
            "computer": seat.computer}


def _json_default(value):
    if isinstance(value, SeatRow):
        return _seat_ctx(value)
    if isinstance(value, GameRow):
        return _game_ctx(value)
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    raise TypeError(f"{type(value).__name__} does not belong in a mail context")


def _plain(ctx: dict) -> orjson.Fragment:
    """A mail context as JSON text, ready for the outbox's JSON column: seats and games as the few
    fields templates show, datetimes tagged (`_revive` turns them back), views without their event
    log (no mail shows it). One orjson call (in C) instead of walking the context in Python, and
    nothing is serialized twice: this runs for every mail a move queues."""
    ctx = {k: {n: x for n, x in v.items() if n != "log"} if is_view(v) and "log" in v else v
           for k, v in ctx.items()}
    return orjson.Fragment(orjson.dumps(ctx, default=_json_default,
                                        option=orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS))


def invitation(s, game: GameRow, seat: SeatRow, host: SeatRow, seats: list[SeatRow],
               rematch_of: GameRow | None = None, *, again: bool = False) -> None:
    """`rematch_of`: the finished game this one is a rematch of (the mail says so, by its title in
    the seat's language). `again`: a second invitation of the seat (to a corrected address, issue
    29): it joins the thread the first one started."""
    previous = None
    if rematch_of is not None:
        lang = seat.lang or DEFAULT
        previous = rematch_of.title if lang == DEFAULT else _title_in(s, rematch_of, lang)
    send(s, game, seat, "invitation", host=host, seats=seats, rematch_of=previous, starts_thread=not again,
         never_url=never_mail_url(tokens.seat_token(seat.token_salt)),
         terms=terms_of(game))


def host_created(s, game: GameRow, host: SeatRow, seats: list[SeatRow]) -> None:
    send(s, game, host, "created", seats=seats, starts_thread=True)


def notice(s, game: GameRow, seat: SeatRow, message: str | Callable[[], str]) -> None:
    """A short notice to `seat`. `message` as a function (`lambda: _("...")`) is said in the seat's
    language; a text is taken as it is."""
    if seat.mail_pref == "off":
        return
    if callable(message):
        with speaking(seat.lang):
            message = message()
    send(s, game, seat, "notice", message=message)


def bounce_notice(s, game: GameRow, seat: SeatRow, message: Callable[[], str], fix_path: str | None) -> None:
    """Issue 29: a seat's address bounces. `message` is said in `seat`'s language; `fix_path` (the
    host's mail only): the page to correct the address or hand the seat to the computer."""
    with speaking(seat.lang):
        text = message()
    send(s, game, seat, "notice", message=text, fix_url=base_url() + fix_path if fix_path else None)


def new_link(s, game: GameRow, seat: SeatRow) -> None:
    with speaking(seat.lang):
        message = _("Your link was replaced; the old one no longer works. This is your new link.")
    send(s, game, seat, "notice", message=message)


def links(s, seat: SeatRow, url: str, days: float) -> None:
    """"Mail me my links" (issue 31.4): one mail with one signed link to the page of the address's
    games (`play.my_games`), valid `days` days, queued as an intent like every other mail."""
    lang = seat.lang or DEFAULT
    with speaking(lang):
        subject = _("Your SKYJO games")
    insert_mail(s, to_addr=seat.email, to_name=seat.name, subject=subject,
                template="links", context=_plain({"url": url, "days": round(days), "base": base_url(), "lang": lang}),
                thread_key=f"links-{seat.email.lower()}")


def digest(s, address: str, to_name: str, games: list[dict], *, now: datetime | None = None,
           lang: str = DEFAULT) -> None:
    """The morning digest (clock's `digest` preference): one mail to `address` listing its games
    that wait for a decision, each `{"title", "view" (the seat's own), "url", "due", "talk", "since"}`
    (the game's table talk and the others' moves since the seat's previous mail, `mail.talk`)."""
    with speaking(lang):
        subject = (_("SKYJO: %(n)s games are waiting for you", n=len(games)) if len(games) > 1
                   else _("SKYJO: a game is waiting for you"))
    insert_mail(s, to_addr=address, to_name=to_name, subject=subject, template="digest",
                context=_plain({"games": games, "base": base_url(), "lang": lang}),
                thread_key=f"digest-{address}", now=now)
