"""The table talk a mail carries (issue 19): every mail to a seat (turn, round over, game over, the
answer to a reply, a notice) shows the messages the others wrote since that seat's previous mail,
once. No extra mail per message.

"Since the previous mail" is a pointer on the seat (`SeatRow.mailed_message_id`: the newest message
its mails have covered), moved when a mail is queued, in the caller's transaction: the mail and the
pointer commit together or not at all. A game without talk costs no query (`GameRow.last_message_id`
is None, or not past the pointer). A seat's own messages and hidden ones are passed over."""

from __future__ import annotations

from sqlalchemy import and_
from sqlmodel import Session, select

from service.store.models import GameRow, MessageRow, SeatRow

MAX_IN_A_MAIL = 20  # the newest ones; the board shows every message


def since_last_mail(s: Session, game: GameRow, seat: SeatRow) -> dict | None:
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
