"""A game's life outside its moves: create it (invitations out), accept, decline, cancel, the deal
when everybody has answered (first deadlines, first turn mails), the rematch, the exported record
(with the table talk beside the moves)."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask_babel import gettext as _
from sqlalchemy import func, update
from sqlmodel import Session, select

import engine
from engine import deals
from service import i18n
from service.clock.deadlines import ClockError, ClockSettings, close_game
from service.clock.zones import valid_zone
from service.i18n import speaking
from service.mail import compose as mails
from service.play import blocklist, clock_service, names, notify, talk
from service.play.computer import LEVELS, computer_name
from service.play.errors import Conflict, Forbidden, Invalid, NotFound
from service.play.lookups import load_engine_game, lock_game, seat_by_token, seats_of
from service.store import tokens
from service.store.models import GameRow, MoveRow, SeatRow, utcnow
from service.store.outbox_models import OutboxMail
from service.store.outbox_models import utcnow as outbox_now
from service.words.sentences import say

MAX_PLAYERS = 8
MIN_PLAYERS = 2


def game_title(names: list[str]) -> str:
    """The stored title (English: what a seat in English and the logs see; `mail.compose` and the
    pages say it in each seat's language from the names, `i18n.game_title`)."""
    with speaking("en"):
        return i18n.game_title(names)


def default_options(variant: str = "classic") -> dict:
    g = engine.new_game(["A", "B"], variant=variant, seed=1)
    return dict(engine.view(g, None)["options"])


@dataclass
class Created:
    game: GameRow
    tokens: dict[int, str] = field(default_factory=dict)  # position -> token


Invitee = tuple[str, str] | tuple[str, str, str | None]
"""(name, email) of a person, or (name, email, level): level None for a person, else the computer
plays the seat at that level (easy | normal | strong; its email is ignored, its name may be empty)."""


def _everyone(host_name: str, host_email: str, players: list[Invitee]) -> list[tuple[str, str, str | None]]:
    """(name, email, computer level or None) of every seat, host first; computer seats named. A name
    with an invisible character, or one that looks like another seat's, is refused (`names`)."""
    everyone = [(host_name, host_email.strip(), None)]
    for p in players:
        name, email, level = (p[0], p[1], p[2] if len(p) > 2 else None)
        if level is not None and level not in LEVELS:
            raise Invalid(_("Unknown computer level."))
        everyone.append((name or "", "" if level else (email or "").strip(), level))
    if not MIN_PLAYERS <= len(everyone) <= MAX_PLAYERS:
        raise Invalid(_("A game needs 2 to 8 players."))
    if any(names.has_invisible(name) for name, _e, _level in everyone):
        raise Invalid(_("Use letters, digits and punctuation only."))
    everyone = [(names.normal_name(name), email, level) for name, email, level in everyone]
    taken = {names.skeleton(n) for n, _e, level in everyone if level is None}
    named = []
    for name, email, level in everyone:
        if level is not None:
            name = computer_name(name, level, taken, names.skeleton)
            taken.add(names.skeleton(name))
        named.append((name, email, level))
    if names.lookalike_pairs([name for name, _e, _level in named]):
        raise Invalid(_("Every player needs a different name."))
    return named


def create_game(s: Session, *, host_name: str, host_email: str, players: list[Invitee],
                variant: str = "classic", options: dict | None = None, decision_hours: int = 48,
                setup: dict | None = None, rematch_of: str | None = None, host_tz: str | None = None,
                reminder_hours: list | None = None, timeout_policy: str = "bot", host_lang: str = "en",
                langs: list[str] | None = None) -> Created:
    """A new game: the host and the invitees (`Invitee`: a person's name and email, or a computer
    seat's level). Invitations go out to the persons; computer seats are accepted at once, so a
    game of the host against computers is dealt right away. `langs`: each invitee's language
    (issue 17; default: the host's), in `players`' order."""
    everyone = _everyone(host_name, host_email, players)
    emails = [e.lower() for _n, e, level in everyone if level is None]
    if len(set(emails)) != len(emails):
        raise Invalid(_("Every player needs a different email address."))
    blocklist.check_invited(s, [e for _n, e, level in everyone if level is None])  # issue 29
    names = [n for n, _e, _level in everyone]
    if len({n.casefold() for n in names}) != len(names):
        raise Invalid(_("Every player needs a different name."))
    try:  # validate variant and options with the engine itself (the game is dealt later)
        engine.new_game(names, variant=variant, options=options or {}, seed=1)
    except ValueError as exc:
        raise Invalid(say(exc)) from exc
    if host_tz is not None and not valid_zone(host_tz):
        raise Invalid(_("Unknown time zone."))
    reminder_hours = [24, 4] if reminder_hours is None else list(reminder_hours)
    try:
        ClockSettings.from_hours(decision_hours, reminder_hours, timeout_policy)
    except ClockError as exc:
        raise Invalid(_("The clock settings are not valid: %(why)s", why=str(exc))) from exc
    game = GameRow(id=tokens.new_game_id(), variant=variant, options=dict(options or {}),
                   decision_hours=decision_hours, title=game_title(names), setup=dict(setup or {}),
                   spectator_salt=tokens.new_salt(), rematch_of=rematch_of, reminder_hours=reminder_hours,
                   timeout_policy=timeout_policy)
    s.add(game)
    created = Created(game)
    seat_rows = []
    languages = [i18n.known(host_lang)] + [i18n.known(lang) for lang in (langs or [])]
    languages += [languages[0]] * (len(everyone) - len(languages))
    for pos, (name, email, level) in enumerate(everyone):
        salt = tokens.new_salt()
        token = tokens.seat_token(salt)
        row = SeatRow(game_id=game.id, position=pos, name=name, email=email, is_host=pos == 0,
                      status="accepted" if pos == 0 or level else "invited", token_salt=salt,
                      token_hash=tokens.hash_token(token), tz=host_tz if pos == 0 else None,
                      computer=level, mail_pref="off" if level else "every", lang=languages[pos])
        s.add(row)
        seat_rows.append(row)
        created.tokens[pos] = token
    s.flush()
    host = seat_rows[0]
    previous = s.get(GameRow, rematch_of) if rematch_of else None
    for row in seat_rows[1:]:
        if not row.computer:
            mails.invitation(s, game, row, host, seat_rows, rematch_of=previous)
    mails.host_created(s, game, host, seat_rows)
    if all(r.status == "accepted" for r in seat_rows):  # nobody to wait for: only computers were invited
        deal(s, game, seat_rows)
    return created


def _check_deal(s: Session, game: GameRow, seats: list[SeatRow]) -> None:
    live = [r for r in seats if r.status != "declined"]
    if len(live) < MIN_PLAYERS:
        # the host may still let the computer play a declined seat (issue 18), or cancel: the game
        # waits for that choice (the host's notice of the decline says so)
        return
    if all(r.status == "accepted" for r in live):
        deal(s, game, seats)


def deal(s: Session, game: GameRow, seats: list[SeatRow]) -> engine.Game:
    players = [r for r in seats if r.status == "accepted"]
    for i, r in enumerate(players):
        r.seat = i
    g = engine.new_game([r.name for r in players], variant=game.variant, options=game.options,
                        seed=game.setup.get("seed"), deals=game.setup.get("deals"))
    game.state = g.to_json()
    game.record = g.record()
    game.version = g.version
    game.status = "active"
    game.updated_at = utcnow()
    s.flush()
    clock_service.dealt(s, game, seats, g)  # deadlines first: the turn mails show them
    for r in players:
        notify.decision_or_nothing(s, game, r, g, first=True)
    return g


def accept(s: Session, token: str, tz: str | None = None, lang: str | None = None) -> tuple[SeatRow, GameRow, bool]:
    """`tz`: the player's time zone (IANA name; None = the host's). Returns the seat, the game and
    whether the seat had accepted already (a double click: nothing is done twice). A seat that
    declined may accept while the game still waits for answers (issue 28.7)."""
    if tz is not None and not valid_zone(tz):
        raise Invalid(_("Unknown time zone."))
    seat, game = seat_by_token(s, token, lock=True)
    if seat.status == "accepted":  # also once the game was dealt: a double click is no conflict
        return seat, game, True
    if game.status != "inviting":  # dealt without them (their seat is filled), or cancelled
        raise Conflict(_("This game is no longer waiting for answers."))
    # a declined invitee may still accept while the game waits (issue 28.7): the seat is not filled
    # until the deal (a seat the computer took has a new token: this link no longer reaches it)
    declined = seat.status == "declined"
    seat.status = "accepted"
    seat.tz = tz or seat.tz
    if lang is not None:
        seat.lang = i18n.known(lang)
    seats = seats_of(s, game.id)
    if declined:  # the title names them again
        game.title = game_title([r.name for r in seats if r.status != "declined"])
    host = next(r for r in seats if r.is_host)
    mails.notice(s, game, host, lambda: _("%(name)s accepted the invitation.", name=seat.name))
    _check_deal(s, game, seats)
    return seat, game, False


def decline(s: Session, token: str) -> tuple[SeatRow, GameRow]:
    seat, game = seat_by_token(s, token, lock=True)
    if game.status != "inviting":
        raise Conflict(_("This game is no longer waiting for answers."))
    if seat.is_host:
        raise Invalid(_("The host cannot decline; cancel the game instead."))
    if seat.status == "declined":
        return seat, game
    if seat.status == "accepted":  # an invitation is answered once (also when both are pressed at once)
        raise Conflict(_("You already accepted this invitation; the host can cancel the game."))
    seat.status = "declined"
    seats = seats_of(s, game.id)
    # the title (every mail's subject) names the players who may still play
    game.title = game_title([r.name for r in seats if r.status != "declined"])
    host = next(r for r in seats if r.is_host)
    _check_deal(s, game, seats)
    if game.status == "inviting":
        mails.notice(s, game, host, lambda: _(
            "%(name)s declined the invitation. On your game's page you can let the computer play this "
            "seat, or cancel the game.", name=seat.name))
    else:
        mails.notice(s, game, host, lambda: _("%(name)s declined the invitation.", name=seat.name))
    return seat, game


def computer_takes_seat(s: Session, token: str, position: int, level: str) -> SeatRow:
    """The host lets the computer play a seat that declined or whose address bounces (issue 29)
    (before the deal): the seat becomes a
    computer seat of `level`, accepted, with a new name and a new token (the person's links no
    longer reach it) and no address. The game is dealt when everybody else has accepted."""
    seat, game = seat_by_token(s, token, lock=True)
    if not seat.is_host:
        raise Forbidden(_("Only the host can let the computer play a seat."))
    if game.status != "inviting":
        raise Conflict(_("This game is no longer waiting for answers."))
    if level not in LEVELS:
        raise Invalid(_("Unknown computer level."))
    seats = seats_of(s, game.id)
    target = next((r for r in seats if r.position == position), None)
    if target is None or target.is_host:
        raise NotFound(_("There is no such seat in this game."))
    if target.status != "declined" and not (target.email and blocklist.reason_of(s, target.email) == "bounce"):
        raise Conflict(_("Only a seat whose player declined can be played by the computer."))
    taken = {r.name.casefold() for r in seats if r.id != target.id}
    target.name = computer_name("", level, taken)
    target.computer, target.status, target.email, target.mail_pref = level, "accepted", "", "off"
    target.token_salt = tokens.new_salt()
    target.token_hash = tokens.hash_token(tokens.seat_token(target.token_salt))
    game.title = game_title([r.name for r in seats if r.status != "declined"])
    _check_deal(s, game, seats)
    return target


def cancel(s: Session, token: str) -> GameRow:
    seat, game = seat_by_token(s, token, lock=True)
    if not seat.is_host:
        raise Forbidden(_("Only the host can cancel the game."))
    if game.status != "inviting":
        raise Conflict(_("Only a game that has not started yet can be cancelled."))
    _cancelled(s, game, [r for r in seats_of(s, game.id) if not r.is_host],
               lambda: _("%(name)s cancelled the game.", name=seat.name))
    return game


def operator_cancel(s: Session, game_id: str) -> tuple[GameRow, bool]:
    """`skyjo-pbem cancel GAME` (issue 31.3): the operator ends a game that is inviting or running
    (its open deadlines close); every player is told by mail as after a host's cancel. Returns the
    game and whether it was cancelled already (nothing is done twice)."""
    lock_game(s, game_id)
    game = s.get(GameRow, game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r}")  # the operator's English (a command, not a page)
    if game.status == "cancelled":
        return game, True
    if game.status not in {"inviting", "active"}:
        raise Conflict(f"game {game_id} is {game.status}; there is nothing to cancel")
    if game.status == "active":
        close_game(s, game.id)
    _cancelled(s, game, seats_of(s, game.id), lambda: _("The service's operator cancelled the game."))
    return game, False


def _cancelled(s: Session, game: GameRow, told: list[SeatRow], message) -> None:
    """The one way a game is cancelled: its status, its mails not sent yet dropped (an invitation
    or a turn of a game that is no more), and a notice to each of `told` who did not decline."""
    game.status = "cancelled"
    game.updated_at = utcnow()
    s.connection().execute(update(OutboxMail).where(OutboxMail.game_ref == game.id, OutboxMail.sent_at.is_(None))
                           .values(sent_at=outbox_now(), transport="dropped", claimed_until=None, claimed_by=None))
    for r in told:
        if r.status != "declined":
            mails.notice(s, game, r, message)


def export_record(s: Session, game_id: str) -> dict:
    """The engine record of the game (`replay` reproduces it) with its table talk under `messages`."""
    game = s.get(GameRow, game_id)
    if game is None or game.record is None:
        raise NotFound(_("No such game, or it has not been dealt yet."))
    moves = s.exec(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number)).all()
    record = dict(game.record)
    record["moves"] = list(record.get("moves") or []) + [f"{m.seat}: {m.move}" for m in moves]
    # the table talk (issue 19) beside the moves: `replay` reads only the keys it knows
    record["messages"] = talk.exported(s, game, list(record.get("players") or []))
    return record


def export_deals(s: Session, game_id: str) -> dict:
    """The deal record of the game's rounds that are over (`engine.deals.deal_record`, issue 32.1):
    what `skyjo-pbem verify` checks; nothing of the round being played."""
    game = s.get(GameRow, game_id)
    if game is None or game.state is None:
        raise NotFound(_("No such game, or it has not been dealt yet."))
    return deals.deal_record(load_engine_game(game))


def rematch_of_title(s: Session, game: GameRow) -> str | None:
    """The title of the game `game` is a rematch of (None if it is none), in the current language:
    invitations say so."""
    previous = s.get(GameRow, game.rematch_of) if game.rematch_of else None
    if previous is None:
        return None
    return i18n.game_title([r.name for r in seats_of(s, previous.id) if r.status != "declined"])


def rematch(s: Session, token: str) -> tuple[GameRow, str, bool]:
    """New game, same players, options and time zones, the asker is host; once per finished game.
    Returns the rematch, the asker's token in it, and whether it had been started already: then
    pressing Rematch is the asker's yes to it (their invitation is accepted, no second visit)."""
    seat, game = seat_by_token(s, token, lock=True)
    if game.status != "finished":
        raise Conflict(_("A rematch can be started once the game is over."))
    seats = [r for r in seats_of(s, game.id) if r.status == "accepted"]
    if game.rematch_id:
        mine = s.exec(select(SeatRow).where(SeatRow.game_id == game.rematch_id,
                                            func.lower(SeatRow.email) == seat.email.lower())).first()
        if mine is None:
            raise Conflict(_("A rematch was already started."))
        mine_token = tokens.seat_token(mine.token_salt)
        if mine.status == "declined":
            raise Conflict(_("You declined the rematch."))
        if mine.status == "invited":
            accept(s, mine_token, tz=mine.tz or seat.tz)
        return s.get(GameRow, game.rematch_id), mine_token, True
    others = [(r.name, r.email, r.computer) for r in seats if r.id != seat.id]
    created = create_game(s, host_name=seat.name, host_email=seat.email, players=others,
                          variant=game.variant, options=game.options, decision_hours=game.decision_hours,
                          rematch_of=game.id, host_tz=seat.tz, reminder_hours=game.reminder_hours,
                          timeout_policy=game.timeout_policy, host_lang=seat.lang,
                          langs=[r.lang for r in seats if r.id != seat.id])
    zones = {r.email.lower(): r.tz for r in seats if r.tz and not r.computer}
    langs = {r.email.lower(): r.lang for r in seats if not r.computer}
    for r in seats_of(s, created.game.id):  # everybody keeps their time zone and language
        r.tz = zones.get(r.email.lower(), r.tz)
        r.lang = langs.get(r.email.lower(), r.lang)
    game.rematch_id = created.game.id
    return created.game, created.tokens[0], False
