"""Issue 29.4: an address-wide "never mail me" (the invitation's link, its RFC 8058 header), the
block list it writes, /new refusing such an address, and /new's rate limits."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from service.mail.delivery import deliver_due
from service.mail.message import build_message
from service.mail.transport import SmtpTransport
from service.store import db
from service.store.bounce_models import MailBlockRow, address_hash
from service.store.models import SeatRow
from service.store.outbox_models import OutboxMail
from tests.conftest import make_app
from tests.service.helpers import csrf_of, links_of, mails, new_game, only_game
from tests.service.smtp_fixture import smtp_server  # noqa: F401  (the fixture)

PLAYERS = (("Ann", "ann@example.com"), ("Bo", "bo@example.com"), ("Cy", "cy@example.org"))


def _invitation(app, to: str) -> OutboxMail:
    return next(m for m in mails(app) if m.to_addr == to and "invites you" in m.text_body)


def _never_path(mail: OutboxMail) -> str:
    return next(p for p in links_of(mail) if p.endswith("/never"))


def _reason(app, address: str) -> str | None:
    with app.app_context(), db.transaction() as s:
        return s.exec(select(MailBlockRow.reason).where(MailBlockRow.address_hash == address_hash(address))).first()


def test_the_invitation_offers_never_mail_me_as_a_link_and_a_one_click_header(app, client) -> None:
    assert new_game(client, PLAYERS)[0] == 303
    invitation = _invitation(app, "cy@example.org")
    path = _never_path(invitation)
    assert re.fullmatch(r"/s/[A-Za-z0-9_-]+/never", path)
    assert "I don't want mail from this service" in invitation.text_body
    assert path in (invitation.html_body or "")
    with app.app_context():
        msg = build_message(invitation)
    assert msg["List-Unsubscribe"] == f"<http://localhost{path}>"
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    turn_like = next(m for m in mails(app) if m.to_addr == "ann@example.com")  # other mails: this game only
    assert "/never" not in (turn_like.headers or {}).get("List-Unsubscribe", "")


def test_link_confirm_then_new_refuses_and_queued_mails_are_not_sent(app, client, smtp_server) -> None:  # noqa: F811
    assert new_game(client, PLAYERS)[0] == 303
    path = _never_path(_invitation(app, "cy@example.org"))
    page = client.get(path)
    assert page.status_code == 200 and "cy@example.org" in page.text
    assert client.head(path).status_code == 200
    assert _reason(app, "cy@example.org") is None  # GET and HEAD change nothing
    r = client.post(path)  # the page's form, or a mail client's one-click POST: no CSRF token
    assert r.status_code == 200
    assert _reason(app, "cy@example.org") == "never"
    game = only_game(app)
    with app.app_context(), db.transaction() as s:
        cy = s.exec(select(SeatRow).where(SeatRow.email == "cy@example.org")).one()
    assert cy.status == "declined"  # the host is not left waiting
    assert any(m.to_addr == "ann@example.com" and "Cy declined" in m.text_body for m in mails(app))
    # the invitation queued before the click is not sent
    with app.app_context():
        deliver_due(db.get_engine(app), SmtpTransport(smtp_server.url))
    assert {r.rcpt_tos[0] for r in smtp_server.received} == {"ann@example.com", "bo@example.com"}
    assert [m.transport for m in mails(app) if m.to_addr == "cy@example.org"] == ["suppressed"]
    # /new refuses the address with a clear message, the form kept
    status, text = new_game(client, (("Dee", "dee@example.com"), ("Cy", "cy@example.org")))
    assert status == 400
    assert "cy@example.org asked for no mail from this service" in text
    assert 'value="Dee"' in text
    assert len({r.game_id for r in _all_seats(app)}) == 1 and only_game(app).id == game.id
    # a second click (a mail client posting again) is the same
    assert client.post(path, data={"List-Unsubscribe": "One-Click"}).status_code == 200


def _all_seats(app) -> list[SeatRow]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(SeatRow)))


def test_a_seat_in_play_that_says_never_gets_no_more_mail(app, client) -> None:
    assert new_game(client, PLAYERS)[0] == 303
    path = _never_path(_invitation(app, "cy@example.org"))
    seat_path = path.removesuffix("/never")
    page = client.get(seat_path)
    assert client.post(seat_path + "/accept", data={"csrf_token": csrf_of(page.text)}).status_code == 303
    bo = _invitation(app, "bo@example.com")
    bo_path = next(p for p in links_of(bo) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    client.post(bo_path + "/accept", data={"csrf_token": csrf_of(client.get(bo_path).text)})
    assert only_game(app).status == "active"
    last = max(m.id for m in mails(app))
    assert client.post(path).status_code == 200
    with app.app_context(), db.transaction() as s:
        cy = s.exec(select(SeatRow).where(SeatRow.email == "cy@example.org")).one()
    assert cy.mail_pref == "off" and cy.status == "accepted"
    assert all(m.sent_at is not None for m in mails(app) if m.to_addr == "cy@example.org")
    assert not [m for m in mails(app, last) if m.to_addr == "cy@example.org"]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_new_is_rate_limited_per_client(db_url) -> None:
    app = make_app(db_url, NEW_GAME_RATE_LIMIT="2 per hour")
    client = app.test_client()
    for i in range(2):
        assert new_game(client, ((f"H{i}", f"h{i}@example.com"), ("Bo", "bo@example.com")))[0] == 303
    status, text = new_game(client, (("Dee", "dee@example.com"), ("Bo", "bo@example.com")))
    assert status == 429 and "Too many new games" in text and 'value="Dee"' in text
    db.get_engine(app).dispose()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_new_is_rate_limited_per_host_address(db_url) -> None:
    app = make_app(db_url, NEW_GAME_HOST_RATE_LIMIT="2 per hour")
    client = app.test_client()
    for _ in range(2):
        assert new_game(client, (("Ann", "ann@example.com"), ("Bo", "bo@example.com")))[0] == 303
    assert new_game(client, (("Ann", "ANN@example.com"), ("Bo", "bo@example.com")))[0] == 429
    assert new_game(client, (("Eve", "eve@example.com"), ("Bo", "bo@example.com")))[0] == 303
    db.get_engine(app).dispose()


def test_the_correction_page_refuses_a_bad_or_suppressed_address_and_keeps_the_form(app, client) -> None:
    from service.play import blocklist

    assert new_game(client, PLAYERS)[0] == 303
    with app.app_context(), db.transaction(write=True) as s:
        blocklist.block(s, "cy@example.org", "bounce", "550 test")
        blocklist.block(s, "dee@example.com", "never", "asked")
    host_mail = next(m for m in mails(app) if m.to_addr == "ann@example.com")
    host_path = next(p for p in links_of(host_mail) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    fix = f"{host_path}/bounced/2"
    page = client.get(fix)
    assert page.status_code == 200
    for typed, why in (("a@b@c", "Not a valid email address."),
                       ("dee@example.com", "dee@example.com asked for no mail from this service"),
                       ("bo@example.com", "Every player needs a different email address.")):
        r = client.post(fix, data={"csrf_token": csrf_of(page.text), "email": typed})
        assert r.status_code == 400 and why in r.text and f'value="{typed}"' in r.text, typed
    assert _reason(app, "cy@example.org") == "bounce"  # nothing changed
    bo_path = next(p for p in links_of(_invitation(app, "bo@example.com")) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    assert client.get(f"{bo_path}/bounced/2").status_code == 403  # the host's page only


def test_queue_mail_adds_nothing_for_a_blocked_address(app) -> None:
    from service.mail.outbox import queue_mail
    from service.play import blocklist

    with app.app_context(), db.transaction(write=True) as s:
        blocklist.block(s, "Cy@Example.org", "never", "asked")  # any case: one address
        queue_mail(s, to_addr="cy@example.org", to_name="Cy", subject="x", text="x")
        queue_mail(s, to_addr="bo@example.com", to_name="Bo", subject="y", text="y")
    assert [m.to_addr for m in mails(app)] == ["bo@example.com"]
