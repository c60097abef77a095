"""What happened since a seat's previous mail: the table talk (issue 19) and the public events
(issue 28.1). Every mail to a seat (turn, reminder, round over, game over, the answer to a reply, a
notice, the digest) shows the messages the others wrote and the moves the others made since that
seat's previous mail, once. No extra mail per message or move.

"Since the previous mail" is two pointers on the seat, moved together when a mail is queued, in the
caller's transaction (the mail and the pointers commit together or not at all): the newest message
its mails have covered (`SeatRow.mailed_message_id`) and the game version its previous mail showed
(`SeatRow.mailed_version`; None, for seats of before: since the seat's own last move). A game
without talk costs no query for it (`GameRow.last_message_id` is None, or not past the pointer). A
seat's own messages and moves, and hidden messages, are passed over. The events are the move rows'
public events (`MoveRow.events`, C13: what every seat saw) as stored; the mail says them in the
reader's language when it is rendered (`service.mail.render`, `words.sentences.event_text`)."""

from __future__ import annotations

from sqlalchemy import and_, func
from sqlmodel import Session, select

from service.store.models import GameRow, MessageRow, MoveRow, SeatRow

MAX_IN_A_MAIL = 20  # the newest ones; the board shows every message
MAX_EVENTS = 8  # the newest events a mail lists; it says how many more the board's log has


def since_last_mail(s: Session, game: GameRow, seat: SeatRow, *, with_events: bool = True,
                    held: bool = False) -> tuple[dict | None, dict | None]:
    """(talk, events) a mail to `seat` carries now (`talk` and `events` below), and the seat's
    pointers move past them. `with_events=False`: a mail that shows no board (a notice) lists no
    events and leaves their pointer where it is, for the next mail. `held`: a turn mail held back
    while the seat looks at its board (issue 15.2; dropped if it decides there): it lists the
    events but leaves their pointer, so a dropped one hides none from the next mail."""
    return talk(s, game, seat), events(s, game, seat, move=not held) if with_events else None


def events(s: Session, game: GameRow, seat: SeatRow, *, move: bool = True) -> dict | None:
    """The public events of the others' decisions since the seat's previous mail, oldest first:
    `{"events": [event, ...], "earlier": n}` (the newest `MAX_EVENTS`; n more are in the board's
    log), or None (nothing happened, or the game is not dealt). Each event keeps its `seat` (the
    mail groups them by player and marks the cells they changed). The
    seat's pointer moves to the game's version unless `move` is False."""
    since = seat.mailed_version
    if move:
        seat.mailed_version = game.version
    if game.state is None or seat.seat is None:
        return None
    if since is None:  # a seat of before the pointer: since its own last move
        since = s.exec(select(func.max(MoveRow.number)).where(MoveRow.game_id == game.id,
                                                               MoveRow.seat == seat.seat)).one() or 0
    if since >= game.version:
        return None
    rows = s.exec(select(MoveRow.seat, MoveRow.events)
                  .where(MoveRow.game_id == game.id, MoveRow.number > since, MoveRow.events.is_not(None))
                  .order_by(MoveRow.number)).all()
    shown = [e for mover, evs in rows for e in evs or ()
             if not (mover == seat.seat and e.get("seat") == seat.seat)]  # its own moves: it made them
    if not shown:
        return None
    return {"events": shown[-MAX_EVENTS:], "earlier": max(0, len(shown) - MAX_EVENTS)}


def talk(s: Session, game: GameRow, seat: SeatRow) -> dict | None:
    """The messages a mail to `seat` carries now, oldest first (`{"messages": [{"name", "text"}],
    "earlier": n}`: n more are on the board), or None; the seat's pointer moves past them."""
    newest = game.last_message_id
    seen = seat.mailed_message_id or 0
    if newest is None or newest <= seen:
        return None
    rows = s.exec(
        select(MessageRow, SeatRow.name)
        .join(SeatRow, and_(SeatRow.game_id == MessageRow.game_id, SeatRow.seat == MessageRow.seat))
        .where(MessageRow.game_id == game.id, MessageRow.id > seen)
        .order_by(MessageRow.id)
    ).all()
    seat.mailed_message_id = max([newest, *(m.id for m, _name in rows)])
    shown = [{"name": name, "text": m.text} for m, name in rows if not m.hidden and m.seat != seat.seat]
    if not shown:
        return None
    return {"messages": shown[-MAX_IN_A_MAIL:], "earlier": max(0, len(shown) - MAX_IN_A_MAIL)}
