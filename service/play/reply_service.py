"""Playing by replying: every received mail goes through `handle_inbound(app, raw)`.

Transports (all hand raw bytes over): the built-in SMTP receiver (`skyjo-pbem inbound-smtp`), IMAP
polling in the worker's tick (`IMAP_URL`, see `service.clock.scheduler`), and the dev mailbox's reply box.

What happens to a mail, in one write transaction:
1. `replies.read_reply`: auto-replies, bounces, lists and our own mail are logged and dropped;
2. its Message-ID is recorded (`inbound_reply`, insert-or-nothing): a mail seen before is dropped;
3. the seat is found from the secret reply address (`play+<game>-<mac>.<version>@domain`, any case);
   an unknown or rotated address is dropped (there is nobody to answer: never the forgeable From);
4. the command text is read as a whole-turn plan (`engine.plans`: refused as a whole, or played up
   to a move that depends on a card it turned up) through the same path as a link POST
   (`moves.play_plan_for` -> `moves.decide`, the game row locked first, the plan bound to the
   seat's own decision, so replies of several seats at once are all played, one after the other);
   the player's other text (after the move, or the whole
   reply when it has no move at all) goes to the table as a message (`play.talk`, issue 19),
   written before the move in the same transaction;
5. every reply from a known seat gets an answer mail to the seat's stored address: what was
   understood and done with the new board, or why nothing was done, the legal moves and the help.

A mail to a VERP return path (`bounce+<outbox id>.<mac>@domain`, issue 29) is no reply: `_bounce`
checks the mac (a forged one changes nothing), reads the report (`service.mail.bounces.report_kind`)
and hands a hard bounce or a complaint to `play.bounces`, once per mail like a reply.

Nothing secret is logged: no tokens, addresses or mail text, only reasons and the game id.
"""

from __future__ import annotations

import logging

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from service.i18n import speaking
from service.mail import bounces as verp
from service.mail.body import as_message
from service.mail.replies import MAX_REPLY_ADDRESSES, REPLY_LOCAL_PART, InboundReply, message_key, read_reply
from service.play import bounces, lookups, moves, notify, talk
from service.play.errors import Conflict, UseCaseError
from service.play.lookups import load_engine_game, lock_game
from service.store import tokens
from service.store.db import transaction
from service.store.models import GameRow, MessageRow, SeatRow
from service.store.reply_models import InboundReplyRow
from service.words.reply_words import in_words_of

log = logging.getLogger(__name__)

MAX_ECHO_CHARS = 300


def _is_app(obj) -> bool:
    return hasattr(obj, "extensions") and hasattr(obj, "app_context")


def our_addresses(app) -> list[str]:
    domain = tokens.mail_domain()
    return [a for a in (app.config.get("MAIL_FROM"), f"{REPLY_LOCAL_PART}@{domain}") if a]


def handle_inbound(app_or_none, raw: bytes) -> str:
    """Process one received mail (see the module docstring). Returns what happened (for logs and
    tests): ignored | no-address | duplicate | unknown | applied | message | refused | stale | closed,
    and for a mail to a return path: forged | bounced | complaint (or ignored, duplicate, unknown).
    Raises only on a failure worth retrying (database down; a move that lost a race, which the game
    row's lock rules out): the SMTP receiver then answers 451 and
    IMAP flags the message; nothing was recorded, so the retry is processed normally."""
    app = app_or_none if _is_app(app_or_none) else current_app._get_current_object()  # type: ignore[attr-defined]
    with app.app_context():
        bounced = _bounce(app, raw)
        if bounced is not None:
            return bounced
        r = read_reply(raw, tokens.mail_domain(), our_addresses(app))
        if r.ignore:
            log.info("reply mail ignored: %s", r.ignore)
            return "ignored"
        if not r.tokens:
            log.info("reply mail dropped: not addressed to a reply address")
            return "no-address"
        with transaction(write=True) as s:
            if not _record_once(s, r.key):
                log.info("reply mail dropped: already processed")
                return "duplicate"
            found = _find_seat(s, r.tokens)
            if found is None:
                _note(s, r.key, None, None, "unknown")
                log.info("reply mail dropped: unknown or replaced reply address")
                return "unknown"
            seat, game, tag = found
            lock_game(s, game.id)  # the move path's lock; then the game as it is now
            s.refresh(game)
            # the version read from the address belongs to the first reply address only
            with speaking(seat.lang):  # the answer (and what the reply's words mean) in the seat's language
                outcome = _apply(s, seat, game, r, r.version if tag == r.tokens[0] else None)
            _note(s, r.key, game.id, seat.seat, outcome)
            log.info("reply mail for game %s seat %s: %s", game.id, seat.seat, outcome)
        from service.mail.sender import wake_background_sender

        wake_background_sender(app)
        return outcome


def _bounce(app, raw: bytes) -> str | None:
    """A mail to a return path (see the module docstring), or None for any other mail (only its
    headers are read for that)."""
    targets = verp.bounce_targets(verp.headers_of(raw), tokens.mail_domain())
    if not targets:
        return None
    key = str(app.config["SECRET_KEY"]).encode()
    if not any(verp.check_target(key, row_id, mac) for row_id, mac in targets):
        log.info("bounce dropped: forged return path")
        return "forged"
    m = as_message(raw)
    kind = verp.report_kind(m)
    if kind not in ("permanent", "complaint"):
        log.info("mail to a return path ignored: %s", kind or "no delivery report")
        return "ignored"
    with transaction(write=True) as s:
        mail_key = message_key(m, raw if isinstance(raw, bytes) else None)
        if not _record_once(s, mail_key):
            return "duplicate"
        row = bounces.bounce_row(s, key, targets)
        if row is None:
            _note(s, mail_key, None, None, "unknown")
            return "unknown"
        if kind == "complaint":
            bounces.complaint(s, row.to_addr, row.game_ref)
        else:
            bounces.address_bounced(s, row.to_addr, row.game_ref, "delivery report: failed")
        outcome = "complaint" if kind == "complaint" else "bounced"
        _note(s, mail_key, row.game_ref, row.seat, outcome)
    log.info("return path mail for outbox row %s: %s", row.id, outcome)
    from service.mail.sender import wake_background_sender

    wake_background_sender(app)
    return outcome


def _record_once(s: Session, key: str) -> bool:
    """Insert the mail's key unless it is there already; True when this is the first time."""
    dialect = s.get_bind().dialect.name
    values = {"key": key[:255], "outcome": "", "received_at": InboundReplyRow().received_at}
    if dialect == "postgresql":
        stmt = postgresql.insert(InboundReplyRow).values(**values).on_conflict_do_nothing(index_elements=["key"])
    elif dialect == "sqlite":
        stmt = sqlite.insert(InboundReplyRow).values(**values).on_conflict_do_nothing(index_elements=["key"])
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        if s.exec(select(InboundReplyRow).where(InboundReplyRow.key == key[:255])).first():
            return False
        s.add(InboundReplyRow(**values))
        s.flush()
        return True
    # RETURNING, not rowcount: psycopg reports -1 for INSERT .. ON CONFLICT DO NOTHING
    return s.connection().execute(stmt.returning(InboundReplyRow.id)).first() is not None


def _note(s: Session, key: str, game_id: str | None, seat: int | None, outcome: str) -> None:
    s.connection().execute(update(InboundReplyRow).where(InboundReplyRow.key == key[:255])
                           .values(game_id=game_id, seat=seat, outcome=outcome))


def _find_seat(s: Session, tags: list[str]) -> tuple[SeatRow, GameRow, str] | None:
    for tag in tags[:MAX_REPLY_ADDRESSES]:  # (read_reply reads no more: issue 34.3b)
        parts = tokens.split_reply_token(tag)
        if parts is None:
            continue
        game = s.get(GameRow, parts[0])
        if game is None:
            continue
        for seat in lookups.seats_of(s, game.id):
            if tokens.check_reply_token(tag, game.id, seat.token_hash):
                return seat, game, tag
    return None


def _apply(s: Session, seat: SeatRow, game: GameRow, r: InboundReply, version: int | None) -> str:
    """Play the reply's move and pass its other text on to the table (`talk.split_reply`), both in
    this one transaction: the message is written first, so the mails the move queues carry it."""
    g = load_engine_game(game) if game.state is not None else None  # the one decode of this reply
    text, said = talk.split_reply(game, r.commands, seat.lang if seat.lang != "en" else None, g=g)
    message, said_note = _say(s, seat, game, said)
    if said and not text:  # no move at all: only a message
        headline = (_("No move in your reply: your message was passed on to the table.") if message is not None
                    else _("No move in your reply, and your message could not be passed on."))
        notify.reply_answer(s, game, seat, headline=headline, details=said_note, error=message is None,
                            message_only=message is not None)
        return "message" if message is not None else "refused"
    wrote = _echo(text)
    stale_headline = _("Not applied: the game moved on since the mail you answered. Here is the current board.")
    if version is None:
        notify.reply_answer(s, game, seat, headline=stale_headline, details=said_note)
        return "stale"
    try:
        played = moves.play_plan_for(s, seat, game, text, version, g=g)
    except Conflict as exc:
        if exc.context.get("race"):  # (never with the lock) nothing was played: not done, let it come again
            raise
        if exc.context.get("stale") and game.status == "active":
            notify.reply_answer(s, game, seat, headline=stale_headline, details=[exc.message, *said_note])
            return "stale"
        notify.reply_answer(s, game, seat, headline=_("Not applied."), details=[exc.message, *said_note])
        return "closed" if game.status != "active" else "stale"
    except UseCaseError as exc:
        details = [_("You wrote: %(text)s", text=wrote)] if wrote else []
        details += [exc.message, *said_note]
        notify.reply_answer(s, game, seat, headline=_("Not applied: your reply could not be played."),
                            details=details, error=True)
        return "refused"
    talk.came_with(message, game)
    details = [_("Done: %(what)s", what=in_words_of(", ".join(played.moves), seat.lang))]
    if played.stopped:
        details.append(played.stopped)
    notify.reply_answer(s, game, seat, headline=_("Understood: %(plan)s", plan=in_words_of(played.plan_text, seat.lang)),
                        details=[*details, *said_note], events=played.events, played=True, g=played.engine_game)
    return "applied"


def _say(s: Session, seat: SeatRow, game: GameRow, said: str) -> tuple[MessageRow | None, list[str]]:
    """Pass a reply's message on to the table: (the message, or None; the answer's line about it).
    A refused message (too long, too many) changes nothing else: the move still applies."""
    if not said:
        return None, []
    try:
        message = talk.from_reply(s, game, seat, said)
    except UseCaseError as exc:
        return None, [exc.message]
    return message, [_("Your message was passed on to the table: %(text)s", text=_echo(message.text))]


def _echo(text: str) -> str:
    return text if len(text) <= MAX_ECHO_CHARS else text[:MAX_ECHO_CHARS] + "…"


# ---------------------------------------------------------------------------------------------------
# the transports' side (the servers that need an app start in `service.cli_service`)


def quiet_smtp_log() -> None:
    """aiosmtpd logs every command line at INFO, `RCPT TO:<play+secret…>` included: keep its logger
    to warnings so reply addresses (passwords to a seat) never reach the log."""
    logging.getLogger("mail.log").setLevel(logging.WARNING)


def poll_imap_once(app) -> int:
    """One IMAP pass (`IMAP_URL`), each message through `handle_inbound`; 0 when IMAP_URL is unset."""
    url = app.config.get("IMAP_URL")
    if not url:
        return 0
    from service.mail.inbound import poll_imap

    return poll_imap(url, lambda raw: handle_inbound(app, raw))
