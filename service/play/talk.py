"""Table talk (issue 19): players write to the table, from their board or in a reply mail.

* `write(s, token, text)`: the board's form. It locks the game row first (`seat_by_token(...,
  lock=True)`), so the rate limit's count and the write happen once, also on PostgreSQL.
* `from_reply(s, game, seat, text)`: the text of a reply mail besides its move (`split_reply`), in
  the transaction of that reply and BEFORE the move's `moves.decide` (the one move path, unchanged):
  the mails the move queues then carry the message. `came_with(row, game)` afterwards gives the
  message the version the move brought the game to, so pages show it after that move.
* `hide(s, token, message_id)`: the host hides a message (its text is no longer shown anywhere).
* `board(s, game, seat)`: a page's view and its timeline (the public event log with the talk in it;
  the current round's by default).
* `exported(s, game)`: the messages for `export` (replay ignores them: engine records skip unknown
  keys).

A message is plain text the player typed (at most `MAX_MESSAGE_CHARS`), never anything from the
game's state (C13: no hidden information travels in it). A seat may ask for a mail per message
(`SeatRow.talk_mail`, off by default, only with the mail preference `every`). A seat may write `RATE_PER_HOUR` messages
an hour: the rows of the last hour are counted (simple, and shared by every process). Which mail
carries which message is `service.mail.talk`.
"""

from __future__ import annotations

import re
from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy import func
from sqlmodel import Session, select

import engine
from engine.plans import read_plan
from service.mail import compose as mails
from service.mail.reply_text import ReplyCommands
from service.play.errors import Forbidden, Invalid, NotFound
from service.play.lookups import load_engine_game, lock_game, log_by_move, seat_by_token, seat_view, seats_of
from service.play.names import clean_talk
from service.render.since import since_own_move
from service.render.talk import timeline
from service.store.models import MAX_MESSAGE_CHARS, GameRow, MessageRow, SeatRow, utcnow
from service.words.reply_words import to_english

RATE_PER_HOUR = 20
_CELL = re.compile(r"\b[A-Za-z][0-9]{1,2}\b")


def clean(text: str) -> str:
    """The text as it is stored: line breaks unified, control, direction and other invisible
    characters removed (`names.clean_talk`), surrounding blank space stripped. Plain text: nothing
    is interpreted."""
    return clean_talk(text)


def _post(s: Session, game: GameRow, seat: SeatRow, text: str) -> MessageRow:
    """Check and write one message (the caller holds the game row's lock)."""
    if game.status in {"inviting", "cancelled"} or game.state is None:
        raise Invalid(_("Messages can be written once the game has started."), game=game, seat=seat)
    if seat.seat is None:
        raise Forbidden(_("You are not playing in this game."))
    text = clean(text)
    if not text:
        raise Invalid(_("Write something first: your message is empty."), game=game, seat=seat)
    if len(text) > MAX_MESSAGE_CHARS:
        raise Invalid(
            _(
                "Your message is %(n)s characters long; at most %(max)s fit. It was not passed on.",
                n=len(text),
                max=MAX_MESSAGE_CHARS,
            ),
            game=game,
            seat=seat,
        )
    now = utcnow()
    recent = s.exec(
        select(func.count())
        .select_from(MessageRow)
        .where(
            MessageRow.game_id == game.id,
            MessageRow.seat == seat.seat,
            MessageRow.created_at > now - timedelta(hours=1),
        )
    ).one()
    if recent >= RATE_PER_HOUR:
        raise Invalid(
            _(
                "You have written %(n)s messages in the last hour; please wait a little before "
                "writing again. This one was not passed on.",
                n=recent,
            ),
            game=game,
            seat=seat,
        )
    row = MessageRow(game_id=game.id, seat=seat.seat, text=text, version=game.version, created_at=now)
    s.add(row)
    s.flush()  # its id: the game's newest message
    game.last_message_id = row.id
    _mail_each(s, game, seat)
    return row


def _mail_each(s: Session, game: GameRow, writer: SeatRow) -> None:
    """The mail per message for the seats that asked for it (`talk_mail`, with `every`: the digest
    and off preferences get none); it carries the messages since their previous mail, as any mail."""
    for r in seats_of(s, game.id):
        if r.id != writer.id and r.talk_mail and r.mail_pref == "every" and r.seat is not None:
            mails.send(s, game, r, "talk")


def write(s: Session, token: str, text: str) -> MessageRow:
    """A message from the board (the game row locked first: see the module docstring)."""
    seat, game = seat_by_token(s, token, lock=True)
    return _post(s, game, seat, text)


def from_reply(s: Session, game: GameRow, seat: SeatRow, text: str) -> MessageRow:
    """A message from a reply mail, in the reply's transaction (before its move, if any)."""
    lock_game(s, game.id)
    return _post(s, game, seat, text)


def came_with(row: MessageRow | None, game: GameRow) -> None:
    """The move the message came with was applied: the message belongs after it."""
    if row is not None:
        row.version = game.version


def hide(s: Session, token: str, message_id: int) -> MessageRow:
    """The host hides a message of the game (twice is the same as once): pages show that there was
    one, mails and the export leave its text out."""
    seat, game = seat_by_token(s, token, lock=True)
    if not seat.is_host:
        raise Forbidden(_("Only the host can hide a message."))
    row = s.get(MessageRow, message_id)
    if row is None or row.game_id != game.id:
        raise NotFound(_("There is no such message in this game."))
    row.hidden = True
    return row


# ------------------------------------------------------------------------------ a reply's text
def _reads(g: engine.Game, text: str, lang: str | None = None) -> bool:
    try:
        read_plan(g, to_english(text, lang, opening=_opening(g)) if lang else text)
    except engine.EngineError:
        return False
    return True


def _move_words(g: engine.Game) -> set[str]:
    """The words a move of the variant starts with: those the engine reads alone or before a cell
    (`draw`, `swap A1`), and the first words of the moves legal now (SKYJO Action's `action row 2`)."""
    candidates = {w.lower() for w in ("reveal", "draw", "take", "swap", "flip", "discard")}
    words = {m.text().split()[0].lower() for p in g.pending() for m in g.legal_moves(p.seat)}
    for w in candidates:
        for text in (w, f"{w} A1"):
            try:
                g.parse_move(text)
            except (engine.EngineError, ValueError):
                continue
            words.add(w)
    return words


def _opening(g: engine.Game) -> bool:
    return any(m.text().startswith("reveal") for p in g.pending() for m in g.legal_moves(p.seat))


def _looks_like_a_move(g: engine.Game, line: str, lang: str | None = None) -> bool:
    """A line that names a cell (B2, or a mistyped Z9) or starts with a move word is a move attempt,
    even when it does not read as a whole (the answer then says why it was not played)."""
    if _CELL.search(line):
        return True
    words = (to_english(line, lang) if lang else line).split()
    return bool(words) and words[0].strip(",.;:!?").lower() in _move_words(g)


def split_reply(game: GameRow, commands: ReplyCommands, lang: str | None = None, *,
                g: engine.Game | None = None) -> tuple[str, str]:
    """(the move text, the message text) of a reply mail. The move is the first lines of the reply
    as far as they read as a plan (`draw swap B2`, or a plan over several lines); the player's other
    text (quotes and signatures are already cut) is the message. A first line that is no move
    attempt at all (`Ha! Take that, Bo`) makes the whole reply a message; a failed move attempt
    stays the move (the answer explains why it was not played), and only the text after its first
    paragraph is the message. `g`: the engine game of `game` when the caller decoded it already."""
    lines, rest = list(commands.lines), list(commands.ignored)
    if not lines or game.state is None:
        return commands.text, "\n".join(rest)
    g = g if g is not None else load_engine_game(game)
    for n in range(len(lines), 0, -1):
        if _reads(g, "\n".join(lines[:n]), lang):
            return "\n".join(lines[:n]), "\n".join(lines[n:] + rest)
    if _looks_like_a_move(g, lines[0], lang):
        return commands.text, "\n".join(rest)
    return "", "\n".join(lines + rest)


# ------------------------------------------------------------------------------ pages and export
def _messages(s: Session, game: GameRow, since: int = 0) -> list[MessageRow]:
    """The game's messages that came with version `since` or later, oldest first."""
    return list(s.exec(select(MessageRow).where(MessageRow.game_id == game.id, MessageRow.version >= since)
                       .order_by(MessageRow.id)))


def board(s: Session, game: GameRow, seat: int | None, *,
          whole_log: bool = False) -> tuple[dict, list[dict], list[dict]]:
    """A page's view (`engine.view` without its log), its timeline: the event log with each
    message after the move it came with (`render.talk.timeline`; hidden ones without their text),
    and the others' events since the seat's own last move (`render.since.since_own_move`, issue
    28.1: the page marks what they changed). By default the current round's events and messages
    only (`lookups.log_by_move`), so the page costs what the round costs; `whole_log`: the whole
    game's."""
    g = load_engine_game(game)
    since = 0 if whole_log else g.round_start
    g, after, start = log_by_move(s, game, current_round=not whole_log, g=g)
    view = seat_view(g, seat)
    names = g.names
    talk = [
        {
            "id": m.id,
            "name": names[m.seat] if 0 <= m.seat < len(names) else "?",
            "text": None if m.hidden else m.text,
            "hidden": m.hidden,
            "at": after.get(m.version, start),
        }
        for m in _messages(s, game, since)
    ]
    return view, timeline(g.log, talk, names), since_own_move(g.log, seat)


def exported(s: Session, game: GameRow, names: list[str]) -> list[dict]:
    """The messages for the exported record (a hidden one without its text)."""
    return [
        {
            "seat": m.seat,
            "name": names[m.seat] if 0 <= m.seat < len(names) else None,
            "version": m.version,
            "created_at": m.created_at.isoformat(),
            "hidden": m.hidden,
            "text": None if m.hidden else m.text,
        }
        for m in _messages(s, game)
    ]
