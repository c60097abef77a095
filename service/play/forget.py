"""`skyjo-pbem forget ADDRESS` (issue 31.3, GDPR Art. 17): a person's address and names are erased
from the database; the games they played stay playable and replayable for the others.

What happens, in one transaction per call (each of their games locked):

* each seat of that address gets the name "Player N" (its place at the table; unique in the game)
  and the address `FORGOTTEN` (the `.invalid` top-level domain never resolves, and the block list
  keeps it from ever being queued), mail off, a new secret: every link and reply address of the
  person is dead;
* the name and the address are replaced wherever a game holds them: the engine's state (its
  `names`: events name seats by number) and the record (`players`), the title, the others' table talk, and every
  mail of those games, and every mail without a game (links, digests), bodies, subjects and the JSON
  context alike;
* deleted: every mail to the address (sent or not), the table talk the person wrote (it is theirs),
  the log of replies they sent, their digest schedule, and a "bounce" entry of the block list. A
  "never" entry stays: it is a hash of the address, and it is how their "no mail from this
  service" is honoured (and `block` keeps them blocked) if someone invites the address again.

A running game goes on: the seat's deadlines run out and the computer plays it (policy `bot`),
or the host uses "play for them now" (policy `wait`); `skyjo-pbem cancel GAME` ends it instead.
A name is matched as a word, case-insensitively: a short name is also replaced where the same
word means something else in a mail body (what is erased matters more than such a word).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import markupsafe
from sqlalchemy import delete, func, or_
from sqlmodel import Session, select

from service.play import blocklist
from service.play.games import game_title
from service.play.lookups import lock_game, seats_of
from service.play.operator import address_of
from service.store import tokens
from service.store.bounce_models import BOUNCE, NEVER
from service.store.clock_models import DigestSchedule, SeatClock
from service.store.models import GameRow, MessageRow, SeatRow
from service.store.outbox_models import OutboxMail
from service.store.reply_models import InboundReplyRow

FORGOTTEN = "forgotten@forgotten.invalid"
_TEXT_COLUMNS = ("to_name", "subject", "text_body", "html_body", "context", "headers", "calendar")


@dataclass
class Forgotten:
    games: int = 0
    mails_deleted: int = 0
    mails_scrubbed: int = 0
    messages_deleted: int = 0
    replies_deleted: int = 0


class Scrubber:
    """Replaces the given words (names, an address; also HTML-escaped) in text and in JSON values."""

    def __init__(self, words: dict[str, str]):
        forms = {}
        for old, new in words.items():
            forms[old.casefold()] = new
            for escape in (html.escape, lambda t: str(markupsafe.escape(t))):  # as Python, as Jinja escapes
                forms[escape(old).casefold()] = escape(new)
        self._new = forms
        alternatives = sorted(forms, key=len, reverse=True)
        self._re = re.compile(r"(?<!\w)(" + "|".join(re.escape(a) for a in alternatives) + r")(?!\w)",
                              re.IGNORECASE)

    def text(self, value: str) -> str:
        return self._re.sub(lambda m: self._new[m.group(1).casefold()], value)

    def __call__(self, value):
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        return value


def _placeholder(seat: SeatRow, taken: set[str]) -> str:
    n = seat.position + 1
    while f"Player {n}".casefold() in taken:
        n += 1
    return f"Player {n}"


def forget(s: Session, text: str) -> Forgotten:
    """Erase the address `text` and its names (see the module docstring). Invalid for a bad address."""
    address = address_of(text)
    spellings = blocklist._spellings(address)
    done = Forgotten()
    game_ids = sorted(set(s.exec(select(SeatRow.game_id).where(func.lower(SeatRow.email) == address.lower()))))
    words = {address: FORGOTTEN}
    for game_id in game_ids:
        lock_game(s, game_id)
        game = s.get(GameRow, game_id)
        seats = seats_of(s, game_id)
        mine = [r for r in seats if r.email.lower() == address.lower()]
        taken = {r.name.casefold() for r in seats if r not in mine}
        renamed = {}
        for seat in mine:
            new_name = _placeholder(seat, taken)
            taken.add(new_name.casefold())
            renamed[seat.name] = new_name
            _forget_seat(s, game, seat, new_name, done)
        scrub = Scrubber({**renamed, address: FORGOTTEN})
        words.update(renamed)
        # the engine keeps names in one list (its events name seats by number): replaced exactly
        if game.state is not None:
            game.state = {**game.state, "names": [renamed.get(n, n) for n in game.state.get("names", [])]}
        if game.record is not None:
            game.record = {**game.record, "players": [renamed.get(n, n) for n in game.record.get("players", [])]}
        game.title = game_title([r.name for r in seats if r.status != "declined"])
        for message in s.exec(select(MessageRow).where(MessageRow.game_id == game_id)):
            message.text = scrub.text(message.text)
        done.games += 1
    to_them = OutboxMail.to_addr.in_(spellings) | (func.lower(OutboxMail.to_addr) == address.lower())
    done.mails_deleted = s.connection().execute(delete(OutboxMail).where(to_them)).rowcount
    scrub = Scrubber(words)
    mails = OutboxMail.game_ref.is_(None) if not game_ids else or_(OutboxMail.game_ref.is_(None),
                                                                      OutboxMail.game_ref.in_(game_ids))
    for mail in s.exec(select(OutboxMail).where(mails)):
        changed = False
        for column in _TEXT_COLUMNS:
            old = getattr(mail, column)
            new = scrub(old)
            if new != old:
                setattr(mail, column, new)
                changed = True
        done.mails_scrubbed += changed
    s.connection().execute(delete(DigestSchedule).where(func.lower(DigestSchedule.address) == address.lower()))
    if blocklist.reason_of(s, address) == BOUNCE:
        blocklist.lift_bounce(s, address)
    blocklist.block(s, FORGOTTEN, NEVER, "forgotten seats")  # the placeholder is never mailed
    s.flush()
    return done


def _forget_seat(s: Session, game: GameRow, seat: SeatRow, new_name: str, done: Forgotten) -> None:
    seat.name, seat.email, seat.mail_pref, seat.talk_mail = new_name, FORGOTTEN, "off", False
    seat.token_salt = tokens.new_salt()  # a secret nobody was given: every old link and reply address is dead
    seat.token_hash = tokens.hash_token(tokens.seat_token(seat.token_salt))
    if seat.seat is not None:
        done.messages_deleted += s.connection().execute(
            delete(MessageRow).where(MessageRow.game_id == game.id, MessageRow.seat == seat.seat)).rowcount
        done.replies_deleted += s.connection().execute(
            delete(InboundReplyRow).where(InboundReplyRow.game_id == game.id,
                                          InboundReplyRow.seat == seat.seat)).rowcount
        clock = s.get(SeatClock, (game.id, seat.seat))
        if clock is not None:
            clock.address, clock.mail_pref = FORGOTTEN, "off"
