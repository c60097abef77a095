"""Quoted service mail never becomes table talk (issue 34.4): a reply with a message and the quote
of the turn mail below the quote header of Gmail, Outlook, Apple Mail or Thunderbird in en, sv, nl,
af or de goes through the reply path (`reply_service.handle_inbound`) and puts the message, and
nothing of the header or the quote, on the table."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

from sqlmodel import select

from service.play import reply_service
from service.store import db
from service.store.models import MessageRow
from tests.conftest import sqlite_suffices
from tests.service.quote_headers import QUOTE_HEADERS
from tests.service.test_reply_service import latest_reply_mail, start

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"))


def _table(app, game_id: str) -> list[str]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(MessageRow.text).where(MessageRow.game_id == game_id).order_by(MessageRow.id)))


def _reply(mail, said: str, header: str, quoted: bool) -> bytes:
    """A reply whose body is `said`, the client's quote header and the turn mail (quoted or not)."""
    quote = "\n".join(("> " + line if quoted else line) for line in mail.text_body.splitlines())
    m = EmailMessage()
    m["From"] = f"{mail.to_name} <{mail.to_addr}>"
    m["To"] = mail.headers["Reply-To"]
    m["Subject"] = "Re: " + mail.subject
    m["Message-ID"] = make_msgid(domain="player.example.com")
    m["In-Reply-To"] = mail.message_id
    m.set_content(f"{said}\n\n{header}\n{quote}\n")
    return m.as_bytes()


@sqlite_suffices  # what pages and mails say: PostgreSQL adds nothing (tests/conftest.py)
def test_quote_headers_of_common_clients_in_five_languages_put_no_quoted_text_on_the_table(app, client):
    game = start(app, client, PLAYERS)
    expected = []
    for i, (client_name, header, quoted) in enumerate(QUOTE_HEADERS):
        addr = PLAYERS[i % 2][1]
        said = f"Good luck, everyone! ({client_name})"
        outcome = reply_service.handle_inbound(app, _reply(latest_reply_mail(app, addr), said, header, quoted))
        assert outcome == "message", (client_name, outcome)
        expected.append(said)
    table = _table(app, game.id)
    assert table == expected  # each message alone: no header line, no quoted line of the turn mail
    assert not any("SKYJO" in text or "Your move" in text or "skyjo@" in text for text in table)
