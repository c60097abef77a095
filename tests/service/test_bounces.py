"""Issue 29.3: bounces and permanent failures, with real parts: an aiosmtpd server that refuses
recipients (550, 452), delivery reports (tests/service/data/bounces/: RFC 3464 in the styles of
Postfix, Exchange and Gmail, Exim's own format read by flufl.bounce, an RFC 5965 complaint) fed
through a real SMTP session to the `inbound-smtp` receiver and through IMAP (dovecot), and a whole
game whose invitee's address bounces."""

from __future__ import annotations

import random
import re
import smtplib
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlmodel import select

from service.mail import bounces as verp
from service.mail import compose
from service.mail.delivery import deliver_due
from service.mail.failures import FAILURES_KEY
from service.mail.inbound import InboundSMTP
from service.mail.transport import DevTransport, SmtpTransport
from service.play.reply_service import handle_inbound
from service.store import db
from service.store.bounce_models import MailBlockRow, address_hash
from service.store.models import SeatRow
from service.store.outbox_models import OutboxMail, utcnow
from service.store.reply_models import InboundReplyRow
from tests.conftest import make_app, sqlite_suffices
from tests.service.helpers import (
    accept_all,
    csrf_of,
    links_of,
    mails,
    new_game,
    only_game,
    play_by_mail,
    post_form,
    seats,
)
from tests.service.smtp_fixture import RecordingHandler, SmtpServer, free_port
from tests.service.test_inbound import _append, dovecot  # noqa: F401  (the fixture)

DATA = Path(__file__).parent / "data" / "bounces"
DOMAIN = "skyjo.example.org"
PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.org"))


class RefusingHandler(RecordingHandler):
    """Answers RCPT TO with 550 for `refuse` addresses and 452 for `busy` ones."""

    def __init__(self, refuse=(), busy=()) -> None:
        super().__init__()
        self.refuse, self.busy = set(refuse), set(busy)
        self.rcpt_tries: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        self.rcpt_tries.append(address)
        if address in self.refuse:
            return f"550 5.1.1 <{address}>: Recipient address rejected: No such user"
        if address in self.busy:
            return "452 4.2.2 Mailbox full, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def bounce_app(db_url):
    app = make_app(db_url, MAIL_FROM=f"SKYJO <skyjo@{DOMAIN}>", MAIL_SOFT_BOUNCE_LIMIT=3)
    yield app
    db.get_engine(app).dispose()


def _rows(app, to_addr: str | None = None) -> list[OutboxMail]:
    with app.app_context(), db.transaction() as s:
        query = select(OutboxMail).order_by(OutboxMail.id)
        if to_addr:
            query = query.where(OutboxMail.to_addr == to_addr)
        return list(s.exec(query))


def _blocked(app, address: str) -> str | None:
    with app.app_context(), db.transaction() as s:
        return s.exec(select(MailBlockRow.reason).where(MailBlockRow.address_hash == address_hash(address))).first()


def _send(app, server: SmtpServer, now=None) -> int:
    with app.app_context():
        return deliver_due(db.get_engine(app), SmtpTransport(server.url), now=now)


def _host_notices(app, name: str) -> list[OutboxMail]:
    return [m for m in mails(app) if m.to_addr == "ann@example.com" and f"{name}'s address bounces" in m.text_body]


# ------------------------------------------------------------------------------ at send time
def test_a_550_recipient_is_undeliverable_after_one_try_and_the_host_is_told(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    server = SmtpServer(RefusingHandler(refuse={"cy@example.org"})).start()
    try:
        assert new_game(client, PLAYERS)[0] == 303
        _send(app, server)
        cy = _rows(app, "cy@example.org")
        assert [(r.attempts, r.transport) for r in cy] == [(1, "undeliverable")]  # one try, never again
        assert "550" in (cy[0].last_error or "")
        assert _blocked(app, "cy@example.org") == "bounce"
        with app.app_context(), db.transaction() as s:
            assert "example.org" not in s.exec(select(MailBlockRow.detail)).one()  # the list names no address
        notice = _host_notices(app, "Cy")
        assert len(notice) == 1
        assert "correct it or let the computer play this seat" in notice[0].text_body
        game = only_game(app)
        host = next(r for r in seats(app, game.id) if r.is_host)
        assert any(re.fullmatch(r"/s/[A-Za-z0-9_-]+/bounced/2", p) for p in links_of(notice[0]))
        _send(app, server)  # the notice itself goes to the host
        to_ann = [r for r in server.received if r.rcpt_tos == ["ann@example.com"]]
        assert any("Cy's address bounces" in r.message.get_body(("plain",)).get_content() for r in to_ann)
        # every mail went with its own VERP return path, whose mac checks out
        key = str(app.config["SECRET_KEY"]).encode()
        for r in server.received:
            target = verp.parse_target(r.mail_from, DOMAIN)
            assert target is not None and verp.check_target(key, *target), r.mail_from
        assert server.handler.rcpt_tries.count("cy@example.org") == 1
        _send(app, server, now=utcnow() + timedelta(days=1))
        assert server.handler.rcpt_tries.count("cy@example.org") == 1  # no retry, ever
        assert host.status == "accepted"
    finally:
        server.stop()


def test_a_452_recipient_is_retried_with_backoff_then_given_up_after_the_limit(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    server = SmtpServer(RefusingHandler(busy={"cy@example.org"})).start()
    try:
        assert new_game(client, PLAYERS)[0] == 303
        now = utcnow()
        _send(app, server, now=now)
        row = _rows(app, "cy@example.org")[0]
        assert (row.attempts, row.sent_at) == (1, None) and row.send_after > now  # backed off
        assert _blocked(app, "cy@example.org") is None and not _host_notices(app, "Cy")
        _send(app, server, now=now + timedelta(seconds=1))  # not due yet: not tried
        assert server.handler.rcpt_tries.count("cy@example.org") == 1
        for hours in (1, 2):  # the limit is 3 tries (MAIL_SOFT_BOUNCE_LIMIT)
            _send(app, server, now=now + timedelta(hours=hours))
        row = _rows(app, "cy@example.org")[0]
        assert (row.attempts, row.transport) == (3, "undeliverable")
        assert server.handler.rcpt_tries.count("cy@example.org") == 3
        assert _blocked(app, "cy@example.org") == "bounce"
        assert len(_host_notices(app, "Cy")) == 1
        _send(app, server, now=now + timedelta(hours=5))
        assert server.handler.rcpt_tries.count("cy@example.org") == 3
    finally:
        server.stop()


def test_smtp_failures_are_classified_by_code_and_enhanced_status() -> None:
    refused = smtplib.SMTPRecipientsRefused
    assert verp.smtp_failure(refused({"a@x": (550, b"5.1.1 no such user")}))[0] == "permanent"
    assert verp.smtp_failure(refused({"a@x": (452, b"4.2.2 full")}))[0] == "soft"
    assert verp.smtp_failure(refused({"a@x": (552, b"5.2.2 mailbox full")}))[0] == "soft"
    assert verp.smtp_failure(smtplib.SMTPDataError(550, b"5.1.1 unknown"))[0] == "permanent"
    assert verp.smtp_failure(smtplib.SMTPDataError(554, b"5.7.1 spam"))[0] == "soft"  # our message, maybe
    assert verp.smtp_failure(smtplib.SMTPSenderRefused(550, b"5.7.1", "bounce+1.x@d")) is None
    assert verp.smtp_failure(RuntimeError("render")) is None


def test_the_return_path_round_trips_and_a_wrong_mac_fails() -> None:
    key = b"k" * 32
    addr = verp.return_path(key, 42, DOMAIN)
    row_id, mac = verp.parse_target(addr.upper(), DOMAIN)  # a mail system may change its case
    assert row_id == 42 and verp.check_target(key, row_id, mac)
    assert not verp.check_target(key, 43, mac) and not verp.check_target(b"x" * 32, 42, mac)
    assert verp.parse_target(addr, "other.example") is None
    assert verp.parse_target(f"play+42.{mac}@{DOMAIN}", DOMAIN) is None


# ------------------------------------------------------------------------------ delivery reports
REPORTS = {"postfix.eml": "permanent", "exim.eml": "permanent", "exchange.eml": "permanent",
           "gmail.eml": "permanent", "delayed.eml": "temporary", "arf_complaint.eml": "complaint"}


def _report(name: str, verp_addr: str, rcpt: str, mid: str = "<orig@skyjo.example.org>") -> bytes:
    text = (DATA / name).read_text()
    for k, v in {"{VERP}": verp_addr, "{RCPT}": rcpt, "{MID}": mid, "{BOUNCE_ID}": f"{name}-{verp_addr}"}.items():
        text = text.replace(k, v)
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode()


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_each_sample_report_is_read_as_what_it_is(name: str) -> None:
    raw = _report(name, f"bounce+7.aaaaaaaaaaaaaaaa@{DOMAIN}", "cy@example.org")
    msg = message_from_bytes(raw, policy=policy.default)
    assert verp.report_kind(msg) == REPORTS[name]
    assert verp.bounce_targets(verp.headers_of(raw), DOMAIN) == [(7, "aaaaaaaaaaaaaaaa")]


def _invited(app, client, invitee: str, host: str) -> tuple[OutboxMail, str]:
    """A new game inviting `invitee`, its mails marked sent (dev transport); (the invitation's
    row, the VERP address it went with)."""
    assert new_game(client, ((f"Host {host}", host), ("Bo", f"bo-{host}"), ("Cy", invitee)))[0] == 303
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport())
        row = next(r for r in _rows(app, invitee) if "invites you" in (r.text_body or ""))
        return row, app.extensions[FAILURES_KEY].return_path(row.id)


def _smtp_to(port: int, rcpt: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as c:
        c.sendmail("", [rcpt], raw)  # a bounce has the null return path


def _effects(app, invitee: str, host: str) -> tuple[str | None, int, str | None]:
    with app.app_context(), db.transaction() as s:
        pref = s.exec(select(SeatRow.mail_pref).where(SeatRow.email == invitee)).first()
    told = [m for m in mails(app) if m.to_addr == host and "Cy's address bounces" in m.text_body]
    return _blocked(app, invitee), len(told), pref


def test_reports_through_the_smtp_receiver_map_to_their_outbox_row_and_seat(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    port = free_port()
    outcomes: list[str] = []
    receiver = InboundSMTP(lambda raw: outcomes.append(handle_inbound(app, raw)), port=port, accept_domains=[DOMAIN])
    with receiver:
        for i, name in enumerate(sorted(REPORTS)):
            invitee, host = f"cy{i}@example.org", f"host{i}@example.com"
            row, return_path = _invited(app, client, invitee, host)
            _smtp_to(port, return_path, _report(name, return_path, invitee, row.message_id))
            blocked, told, pref = _effects(app, invitee, host)
            if REPORTS[name] == "permanent":
                assert (blocked, told, pref) == ("bounce", 1, "every"), name
            elif REPORTS[name] == "complaint":
                assert (blocked, told, pref) == (None, 0, "off"), name  # unsubscribed from the game
            else:
                assert (blocked, told, pref) == (None, 0, "every"), name  # a delay changes nothing
            with app.app_context(), db.transaction() as s:
                noted = s.exec(select(InboundReplyRow).where(InboundReplyRow.game_id == row.game_ref)).all()
            if REPORTS[name] != "temporary":
                assert [(n.seat, n.outcome) for n in noted] == [(row.seat, "bounced" if blocked else "complaint")]
            # the same report again (an SMTP retry) is processed once
            _smtp_to(port, return_path, _report(name, return_path, invitee, row.message_id))
            assert _effects(app, invitee, host) == (blocked, told, pref)
    assert outcomes.count("duplicate") == 5 and outcomes.count("ignored") == 2


def test_a_forged_report_with_a_bad_mac_changes_nothing(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    row, return_path = _invited(app, client, "cy@example.org", "ann@example.com")
    local, _, domain = return_path.partition("@")
    forged = f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{domain}"
    before = [(r.id, r.sent_at, r.transport) for r in _rows(app)]
    for name in ("postfix.eml", "arf_complaint.eml"):
        assert handle_inbound(app, _report(name, forged, "cy@example.org", row.message_id)) == "forged"
    assert _effects(app, "cy@example.org", "ann@example.com") == (None, 0, "every")
    assert [(r.id, r.sent_at, r.transport) for r in _rows(app)] == before
    with app.app_context(), db.transaction() as s:
        assert s.exec(select(InboundReplyRow)).all() == []


def test_reports_through_the_imap_poller_map_to_their_outbox_row(dovecot, db_url) -> None:  # noqa: F811
    from service.play.reply_service import poll_imap_once

    app = make_app(db_url, MAIL_FROM=f"SKYJO <skyjo@{DOMAIN}>", IMAP_URL=dovecot["url"])
    client = app.test_client()
    row, return_path = _invited(app, client, "cy@example.org", "ann@example.com")
    other, other_path = _invited(app, client, "dee@example.org", "eve@example.com")
    _append(dovecot["port"], _report("gmail.eml", return_path, "cy@example.org", row.message_id))
    _append(dovecot["port"], _report("exim.eml", other_path, "dee@example.org", other.message_id))
    assert poll_imap_once(app) == 2
    assert _effects(app, "cy@example.org", "ann@example.com") == ("bounce", 1, "every")
    assert _blocked(app, "dee@example.org") == "bounce"
    assert any(m.to_addr == "eve@example.com" and "Cy's address bounces" in m.text_body for m in mails(app))
    db.get_engine(app).dispose()


# ------------------------------------------------------------------------------ a whole game
@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_a_whole_game_whose_invitee_bounces_is_corrected_by_the_host_and_finishes(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    server = SmtpServer(RefusingHandler(refuse={"cy@example.org"})).start()
    try:
        assert new_game(client, PLAYERS)[0] == 303
        game = only_game(app)
        old_cy = next(m for m in mails(app) if m.to_addr == "cy@example.org")
        old_link = next(p for p in links_of(old_cy) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
        _send(app, server)
        notice = _host_notices(app, "Cy")[0]
        fix = next(p for p in links_of(notice) if "/bounced/" in p)
        page = client.get(fix)
        assert page.status_code == 200 and "cy@example.org" in page.text
        assert _blocked(app, "cy@example.org") == "bounce"  # GET changed nothing
        r = client.post(fix, data={"csrf_token": csrf_of(page.text), "email": "not an address"})
        assert r.status_code == 400 and "not an address" in r.text  # the form kept
        r = client.post(fix, data={"csrf_token": csrf_of(page.text), "email": "cy.right@example.org"})
        assert r.status_code == 303
        assert client.get(old_link).status_code == 404  # the old invitee token is dead
        assert client.get(fix).status_code == 409  # nothing bounces any more
        _send(app, server)
        assert any(r.rcpt_tos == ["cy.right@example.org"] for r in server.received)
        for m in mails(app):  # the new invitee (and Bo) accept from their invitations
            if "invites you" in m.text_body and m.to_addr != "cy@example.org":
                seat_path = next(p for p in links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
                assert post_form(client, seat_path + "/accept", page_path=seat_path).status_code == 303
        assert only_game(app).status == "active"
        assert play_by_mail(app, client, rng=random.Random(29)) == game.id
        assert {r.email for r in seats(app, game.id)} == {"ann@example.com", "bo@example.com", "cy.right@example.org"}
    finally:
        server.stop()


def test_the_host_may_let_the_computer_play_a_seat_that_bounces(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    server = SmtpServer(RefusingHandler(refuse={"cy@example.org"})).start()
    try:
        assert new_game(client, PLAYERS)[0] == 303
        _send(app, server)
        fix = next(p for p in links_of(_host_notices(app, "Cy")[0]) if "/bounced/" in p)
        page = client.get(fix)
        token = fix.split("/")[2]
        r = client.post(f"/s/{token}/computer", data={"csrf_token": csrf_of(page.text), "position": "2",
                                                      "level": "easy"})
        assert r.status_code == 303
        game = only_game(app)
        cy = next(r for r in seats(app, game.id) if r.position == 2)
        assert cy.computer == "easy" and cy.email == ""
    finally:
        server.stop()


def test_a_seat_in_play_that_bounces_tells_the_host_and_the_others_and_gets_no_mail(bounce_app) -> None:
    app, client = bounce_app, bounce_app.test_client()
    assert new_game(client, PLAYERS)[0] == 303
    accept_all(app, client)
    game = only_game(app)
    assert game.status == "active"
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport())
        turn = next(r for r in _rows(app, "cy@example.org") if r.sent_at is not None)
        return_path = app.extensions[FAILURES_KEY].return_path(turn.id)
    assert handle_inbound(app, _report("postfix.eml", return_path, "cy@example.org", turn.message_id)) == "bounced"
    told = {m.to_addr: m.text_body for m in mails(app, turn.id) if "Cy's address bounces" in m.text_body}
    told_ids = [m.id for m in mails(app, turn.id)]
    assert set(told) == {"ann@example.com", "bo@example.com"}
    assert "/bounced/2" in told["ann@example.com"] and "/bounced/" not in told["bo@example.com"]
    with app.app_context(), db.transaction(write=True) as s:  # a mail to the seat is not even queued
        cy = s.exec(select(SeatRow).where(SeatRow.email == "cy@example.org")).one()
        compose.notice(s, game, cy, "hello")
        compose.notice(s, game, s.exec(select(SeatRow).where(SeatRow.email == "bo@example.com")).one(), "hello")
    assert [m.to_addr for m in mails(app, max(told_ids))] == ["bo@example.com"]
