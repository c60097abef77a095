"""DKIM signing (issue 29.1): every mail the real SMTP server receives verifies with dkimpy against
the published key (a stub DNS function answers the selector's TXT record), also a mail sent again
after a refused attempt and after a sender died before marking it sent: the same bytes each time."""

from __future__ import annotations

import random
import time
from datetime import timedelta
from types import SimpleNamespace

import dkim
import pytest
from sqlalchemy import update

from service.mail.delivery import deliver_due
from service.mail.signing import DkimSigner, SigningConfigError, dns_record, new_private_key
from service.mail.transport import SmtpTransport
from service.play import games
from service.store import db
from service.store.outbox_models import OutboxMail, utcnow
from tests.conftest import make_app, sqlite_suffices
from tests.service.helpers import accept_all, new_game, play_by_mail
from tests.service.smtp_fixture import RecordingHandler, SmtpServer

SELECTOR = "skyjo2026"
DOMAIN = "skyjo.example"
MAIL_FROM = "SKYJO Ärlig <play@skyjo.example>"


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    path.write_bytes(new_private_key())
    return path


def published(key_file):
    """The DNS as a receiver sees it: the keygen's record at the selector, nothing else."""
    record = dns_record(key_file.read_bytes()).encode()

    def dnsfunc(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == f"{SELECTOR}._domainkey.{DOMAIN}.".encode() else None

    return dnsfunc


class RecordingAttempts(RecordingHandler):
    """Also keeps what arrived with the DATA commands it refused (`fail_next`)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[bytes] = []

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.fail_next > 0:
                self.refused.append(envelope.content)
        return await super().handle_DATA(server, session, envelope)


def signing_app(db_url, key_file, **extra):
    return make_app(db_url, MAIL_FROM=MAIL_FROM, DKIM_SELECTOR=SELECTOR, DKIM_KEY_FILE=str(key_file),
                    MAIL_DOMAIN=DOMAIN, **extra)


def start_game(app, seed: str = "dkim-1") -> str:
    """A game whose mails cover several kinds: invitations, an acceptance, the deal's turn mails; a
    seat in Swedish and names outside ASCII (encoded headers)."""
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Zoë", host_email="zoe@example.com",
                                       players=[("Åsa", "asa@example.org"), ("Bo", "bo@example.net")],
                                       setup={"seed": seed}, langs=["sv", "en"])
        for position, token in created.tokens.items():
            if position:
                games.accept(s, token)
        return created.game.id


def deliver(app, server: SmtpServer, now=None) -> int:
    with app.app_context():
        return deliver_due(db.get_engine(app), SmtpTransport(server.url), now=now)


def test_every_mail_of_a_game_verifies_against_the_published_key(db_url, key_file):
    app = signing_app(db_url, key_file)
    server = SmtpServer().start()
    try:
        start_game(app)
        assert deliver(app, server) >= 5
    finally:
        server.stop()
    dnsfunc = published(key_file)
    assert len(server.received) >= 5
    for got in server.received:
        assert got.data.startswith(b"DKIM-Signature: "), got.data[:80]
        assert dkim.verify(got.data, dnsfunc=dnsfunc), got.message["Subject"]
        sig = dkim.util.parse_tag_value(got.message["DKIM-Signature"].encode())
        assert sig[b"d"] == DOMAIN.encode() and sig[b"s"] == SELECTOR.encode()  # aligned with From
        signed = set(sig[b"h"].replace(b" ", b"").split(b":"))
        assert {b"from", b"to", b"subject", b"date", b"message-id", b"list-unsubscribe",
                b"list-unsubscribe-post"} <= signed
        # a changed subject does not verify: the signature covers what the player sees
        assert not dkim.verify(got.data.replace(b"\r\nSubject: ", b"\r\nSubject: X"), dnsfunc=dnsfunc)


@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_a_whole_game_by_mail_every_kind_verifies(db_url, key_file):
    """A game played to its end through the mails' links (turns, round over, game over, notices)."""
    app = signing_app(db_url, key_file)
    client = app.test_client()
    status, _where = new_game(client, (("Ann", "ann@example.com"), ("Bö", "bo@example.org")), target=1)
    assert status == 303
    accept_all(app, client)
    play_by_mail(app, client, rng=random.Random(29))
    server = SmtpServer().start()
    try:
        assert deliver(app, server, now=utcnow() + timedelta(hours=1)) >= 10
    finally:
        server.stop()
    dnsfunc = published(key_file)
    subjects = [r.message["Subject"] for r in server.received]
    assert any(s.startswith("Game over") for s in subjects) and any(" over: " in s for s in subjects)
    assert all(dkim.verify(r.data, dnsfunc=dnsfunc) for r in server.received)


def test_a_mail_sent_again_is_the_same_signed_bytes(db_url, key_file, monkeypatch):
    """A refused DATA (451) and the retry two hours later, then a second delivery of the same row
    as after a sender that died between the server's 250 and marking the row sent: the three copies
    are byte for byte the same (the signature's time is the row's, not the clock's), and each
    verifies."""
    app = signing_app(db_url, key_file)
    handler = RecordingAttempts()
    server = SmtpServer(handler).start()
    try:
        start_game(app, "dkim-2")
        handler.fail_next = 1
        deliver(app, server)
        assert len(handler.refused) == 1
        first = handler.refused[0]
        later = time.time() + 7200  # dkimpy reads `time.time()` for a signature's t=
        monkeypatch.setattr(dkim, "time", SimpleNamespace(time=lambda: later))
        assert deliver(app, server, now=utcnow() + timedelta(hours=2)) >= 1  # after the back-off
        again = next(r.data for r in handler.received if r.data.split(b"Message-ID: ")[1][:60]
                     == first.split(b"Message-ID: ")[1][:60])
        assert again == first
        message_id = server.received[0].message["Message-ID"]
        before = server.received[0].data
        with app.app_context():  # the sender died before marking it: the row goes out once more
            with db.get_engine(app).begin() as c:
                c.execute(update(OutboxMail).where(OutboxMail.message_id == message_id)
                          .values(sent_at=None, transport=None))
        assert deliver(app, server, now=utcnow() + timedelta(hours=4)) == 1
        assert server.received[-1].data == before
    finally:
        server.stop()
    dnsfunc = published(key_file)
    assert dkim.verify(first, dnsfunc=dnsfunc) and dkim.verify(before, dnsfunc=dnsfunc)


def test_no_dkim_configuration_sends_unsigned(db_url):
    app = make_app(db_url)
    assert app.extensions["outbox_signer"] is None
    server = SmtpServer().start()
    try:
        start_game(app, "dkim-3")
        assert deliver(app, server) >= 1
    finally:
        server.stop()
    assert all(b"DKIM-Signature" not in r.data for r in server.received)


def test_half_a_dkim_configuration_is_refused_at_start(tmp_path, key_file):
    with pytest.raises(SigningConfigError, match="DKIM_KEY_FILE"):
        DkimSigner.from_config({"DKIM_SELECTOR": SELECTOR, "MAIL_FROM": MAIL_FROM})
    with pytest.raises(SigningConfigError, match="DKIM_SELECTOR"):
        DkimSigner.from_config({"DKIM_KEY_FILE": str(key_file), "MAIL_FROM": MAIL_FROM})
    with pytest.raises(SigningConfigError, match="no such file|No such file"):
        DkimSigner.from_config({"DKIM_SELECTOR": SELECTOR, "DKIM_KEY_FILE": str(tmp_path / "nope.pem"),
                                "MAIL_FROM": MAIL_FROM})
    (tmp_path / "bad.pem").write_text("not a key")
    with pytest.raises(SigningConfigError, match="no RSA private key"):
        DkimSigner.from_config({"DKIM_SELECTOR": SELECTOR, "DKIM_KEY_FILE": str(tmp_path / "bad.pem"),
                                "MAIL_FROM": MAIL_FROM})
