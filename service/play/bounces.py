"""Bounces, complaints and "never mail me" (issue 29): what a failed address means for its games.

* `address_bounced(s, address, game_ref, detail)`: a permanent failure (an SMTP 5xx when sending,
  a hard bounce report, or too many soft failures): the address goes on the block list (its unsent
  mails end, no new ones are queued) and, once per address, every game it plays in is told:
  - a seat invited to a game not dealt yet: the host gets "Bo's address bounces: correct it or let
    the computer play this seat" with a link to the correction page (`correct_address`, or
    `games.computer_takes_seat`);
  - a seat in play: the host (with the link) and the other players are told; the seat's decisions go
    to the clock's timeout as for any absent player, and its mails stop until the host corrects it.
* `complaint(s, address, game_ref)`: a spam complaint (RFC 5965): the address is unsubscribed from
  that game at once (its mail preference "off", as RFC 8058's one-click does).
* `never_mail(s, token)`: the invitation's "I don't want mail from this service": the address goes
  on the block list for good; an open invitation counts as declined (the host is told, as always).
* `MailFailures(app)`: the outbox sender's hook (`service.mail.delivery.Failures`): each mail's VERP
  envelope sender, the soft-failure limit (MAIL_SOFT_BOUNCE_LIMIT), and `address_bounced` in its
  own transaction.
"""

from __future__ import annotations

import logging

from email_validator import EmailNotValidError, validate_email
from flask_babel import gettext as _
from sqlalchemy import func
from sqlmodel import Session, select

from service.mail import bounces as verp
from service.mail import compose as mails
from service.mail.config import clean_address
from service.play import blocklist, games, settings
from service.play.errors import Conflict, Forbidden, Invalid, NotFound
from service.play.lookups import seat_by_token, seats_of
from service.render.links import bounced_path
from service.store import tokens
from service.store.bounce_models import BOUNCE, NEVER
from service.store.db import transaction
from service.store.models import GameRow, SeatRow
from service.store.outbox_models import OutboxMail

log = logging.getLogger(__name__)

OPEN = ("inviting", "active")
DEFAULT_SOFT_BOUNCE_LIMIT = 12  # with the sender's back-off (30 s doubling, at most 1 h): about 7 hours


def _seats_at(s: Session, address: str, game_ref: str | None = None) -> list[tuple[SeatRow, GameRow]]:
    """The person seats with `address` in open games (only `game_ref`'s, when given)."""
    query = (select(SeatRow, GameRow).join(GameRow, GameRow.id == SeatRow.game_id)
             .where(func.lower(SeatRow.email) == address.strip().lower(), SeatRow.computer.is_(None),
                    GameRow.status.in_(OPEN)))
    if game_ref is not None:
        query = query.where(GameRow.id == game_ref)
    return list(s.exec(query).all())


def address_bounced(s: Session, address: str, game_ref: str | None, detail: str = "") -> int:
    """See the module docstring. Returns how many seats were concerned (0: told before, or none)."""
    if not blocklist.block(s, address, BOUNCE, detail):
        return 0  # blocked already: its games were told then
    concerned = _seats_at(s, address)
    for seat, game in concerned:
        _tell(s, game, seat)
    log.info("address bounced: %s seat(s) in open games", len(concerned))
    return len(concerned)


def _tell(s: Session, game: GameRow, seat: SeatRow) -> None:
    if seat.is_host:  # nobody else can correct it: the host sees it when they next visit (/new lifts it)
        return
    seats = seats_of(s, game.id)
    host = next(r for r in seats if r.is_host)
    name = seat.name
    if game.status == "inviting":
        message = lambda: _("%(name)s's address bounces: correct it or let the computer play this seat.",  # noqa: E731
                            name=name)
    else:
        message = lambda: _("%(name)s's address bounces: correct it. Until then %(name)s gets no mail, "  # noqa: E731
                            "and the computer plays for %(name)s when the clock runs out.", name=name)
    mails.bounce_notice(s, game, host, message, bounced_path(tokens.seat_token(host.token_salt), seat.position))
    if game.status != "active":
        return
    for other in seats:
        if other.id in (seat.id, host.id) or other.computer or other.mail_pref == "off":
            continue
        mails.bounce_notice(s, game, other, lambda: _(
            "%(name)s's address bounces: %(name)s gets no mail until the host corrects it, and the computer "
            "plays for %(name)s when the clock runs out.", name=name), None)


def complaint(s: Session, address: str, game_ref: str | None) -> int:
    """A spam complaint about a mail of `game_ref` (or of no game: then every open game of the
    address): that seat gets no more mail from the game. Returns how many seats."""
    concerned = _seats_at(s, address, game_ref)
    for seat, game in concerned:
        seat.mail_pref = "off"
        settings.mirror_mail_pref(s, game, seat)
        s.add(seat)
    blocklist.end_unsent(s, address, "suppressed", "complaint")
    return len(concerned)


def bounced_seat(s: Session, token: str, position: int, *, lock: bool = False) -> tuple[SeatRow, SeatRow, GameRow]:
    """(host, the seat at `position`, game) for the host's correction page; NotFound, Forbidden or
    Conflict when it is not such a page."""
    host, game = seat_by_token(s, token, lock=lock)
    if not host.is_host:
        raise Forbidden(_("Only the host can do this."))
    target = next((r for r in seats_of(s, game.id) if r.position == position), None)
    if target is None or target.is_host or target.computer:
        raise NotFound(_("There is no such seat in this game."))
    if game.status not in OPEN:
        raise Conflict(_("This game is over."))
    if blocklist.reason_of(s, target.email) != BOUNCE:
        raise Conflict(_("Mail to %(name)s is delivered: there is nothing to correct.", name=target.name))
    return host, target, game


def correct_address(s: Session, token: str, position: int, email: str) -> SeatRow:
    """The host corrects a bounced seat's address: the seat gets a new token (its old links and a
    first invitation's are dead) and, before the deal, a new invitation to the new address; in play,
    a mail with its new link. The new address may be the same one (another try)."""
    host, target, game = bounced_seat(s, token, position, lock=True)
    email = _valid_address(email)
    if any(r.email.lower() == email.lower() for r in seats_of(s, game.id) if r.id != target.id):
        raise Invalid(_("Every player needs a different email address."))
    blocklist.check_invited(s, [email])
    target.email = email
    target.token_salt = tokens.new_salt()
    target.token_hash = tokens.hash_token(tokens.seat_token(target.token_salt))
    s.add(target)
    if game.status == "inviting" and target.status == "invited":
        mails.invitation(s, game, target, host, seats_of(s, game.id), again=True)
    else:
        settings.mirror_mail_pref(s, game, target)  # the clock's copy of the address
        mails.notice(s, game, target, lambda: _("The host corrected your address. This is your link to the game."))
    return target


def _valid_address(email: str | None) -> str:
    """The address as typed (trimmed), if our mail can reach it (as /new checks), else Invalid."""
    email = (email or "").strip()
    try:
        validate_email(email, check_deliverability=False)
        clean_address(email)
    except (EmailNotValidError, ValueError) as exc:
        raise Invalid(_("Not a valid email address.")) from exc
    if not email.rpartition("@")[0].isascii():
        raise Invalid(_("Not a valid email address."))
    return email


def never_mail(s: Session, token: str) -> SeatRow:
    """"I don't want mail from this service" (see the module docstring)."""
    seat, game = seat_by_token(s, token, lock=True)
    if not seat.email:
        raise Invalid(_("This seat has no address."))
    blocklist.block(s, seat.email, NEVER, "asked")
    if game.status == "inviting" and seat.status == "invited":
        games.decline(s, token)
    else:
        seat.mail_pref = "off"
        settings.mirror_mail_pref(s, game, seat)
    return seat


class MailFailures:
    """The outbox sender's failure hook for `app` (`service.mail.delivery.Failures`)."""

    def __init__(self, app) -> None:
        self.app = app
        self.soft_limit = int(app.config.get("MAIL_SOFT_BOUNCE_LIMIT") or DEFAULT_SOFT_BOUNCE_LIMIT)

    def _key_and_domain(self) -> tuple[bytes, str]:
        cfg = self.app.config
        return str(cfg["SECRET_KEY"]).encode(), tokens._mail_domain(cfg.get("MAIL_DOMAIN"), str(cfg.get("MAIL_FROM") or ""))

    def return_path(self, row_id: int) -> str | None:
        key, domain = self._key_and_domain()
        return verp.return_path(key, row_id, domain)

    def permanent(self, row: OutboxMail, answer: str) -> None:
        with self.app.app_context(), transaction(write=True) as s:
            address_bounced(s, row.to_addr, row.game_ref, answer)


def bounce_row(s: Session, key: bytes, targets: list[tuple[int, str]]) -> OutboxMail | None:
    """The outbox row of the first `bounce+` recipient whose mac is right, else None (forged)."""
    for row_id, mac in targets:
        if verp.check_target(key, row_id, mac):
            return s.get(OutboxMail, row_id)
    return None
