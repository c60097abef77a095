"""A held turn mail (issue 15.2) obeys the mail preference at send time (issue 34.2): a seat that
unsubscribes or sets its preference to "off" (or "digest") while its next-decision mail is held
never gets that mail; one that keeps "every" still does. Both databases."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from service.mail.delivery import deliver_due
from service.mail.transport import DevTransport
from service.store import db
from service.store.outbox_models import utcnow
from tests.service import helpers as h
from tests.service.test_decision_links import PLAYERS, _row, finish_opening, last_id, link, start


def _held_draw(app, client) -> tuple[str, int]:
    """The player on turn draws on the board: (their seat token, the id of their held turn mail)."""
    game = start(app, client)
    g = finish_opening(app, client, game.id)
    addr = PLAYERS[g.turn][1]
    since = last_id(app)
    path = link(app, addr, "draw")
    assert h.confirm(client, path).status_code == 303
    held = [m for m in h.mails(app, since) if m.to_addr == addr and m.hold_decision]
    assert len(held) == 1
    return re.search(r"/s/([^/?]+)", path).group(1), held[0].id


def _deliver_after_hold(app) -> None:
    later = utcnow() + timedelta(minutes=11)
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport(), now=later)


@pytest.mark.parametrize("how", ["unsubscribe", "off", "digest"])
def test_a_held_mail_is_dropped_when_the_seat_turned_mails_off_meanwhile(app, client, how):
    token, held = _held_draw(app, client)
    if how == "unsubscribe":  # RFC 8058 one-click, as the mail client posts it
        assert client.post(f"/s/{token}/unsubscribe").status_code == 200
    else:
        r = h.post_form(client, f"/s/{token}/prefs", {"mail_pref": how})
        assert r.status_code == 303, r.text
    _deliver_after_hold(app)
    row = _row(app, held)
    assert row.sent_at is not None and row.transport == "dropped"


def test_a_held_mail_still_goes_when_the_seat_keeps_every(app, client):
    token, held = _held_draw(app, client)
    assert h.post_form(client, f"/s/{token}/prefs", {"mail_pref": "every"}).status_code == 303
    _deliver_after_hold(app)
    assert _row(app, held).transport == "dev"
