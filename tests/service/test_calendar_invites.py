"""Issue 32.2: calendar invitations of deadlines, read the way a mail client reads them.

Mails go out over real SMTP (aiosmtpd) and the text/calendar parts the sink receives are parsed
with icalendar: off by default (no calendar part); with the setting on, the opening mail is a
METHOD:REQUEST for the decision's deadline (UID per decision, SEQUENCE, ORGANIZER = MAIL_FROM,
ATTENDEE = the seat, alarms at the reminder offsets, the board's URL, summary in the seat's
language) that round-trips; the reminder of the same decision after a vacation keeps the UID with a
higher SEQUENCE and the moved DTSTART; the next mail after the decision is made cancels it
(METHOD:CANCEL) next to the next decision's REQUEST; the same row builds the same bytes again.
"""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from icalendar import Calendar
from sqlmodel import select

import engine
from service.clock.deadlines import open_deadlines
from service.mail import compose
from service.mail.delivery import deliver_due
from service.mail.message import build_message
from service.mail.transport import SmtpTransport
from service.play import games, notify, settings
from service.store import db
from service.store.models import GameRow, SeatRow
from tests.service import helpers as h
from tests.service.smtp_fixture import smtp_server  # noqa: F401  (the fixture)
from tests.service.test_decision_links import ANN, BO, CY, PLAYERS, finish_opening, game_of

pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # a mail path, not a race


def _tokens(app) -> dict[str, str]:
    """Each address's seat token, from its invitation."""
    out = {}
    for m in h.mails(app):
        if "invites you" in (m.text_body or "") or m.to_addr not in out:
            paths = [p for p in h.links_of(m) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p)]
            if paths:
                out.setdefault(m.to_addr, paths[0][3:])
    return out


def _start(app, client, calendar_for: tuple[str, ...], langs: dict[str, str] | None = None) -> tuple[GameRow, dict]:
    app.config["GAME_SETUP"] = {"seed": "decision-links-0"}
    h.new_game(client, players=PLAYERS)
    tokens = _tokens(app)
    for addr in calendar_for:
        form = {"mail_pref": "every", "calendar": "y"}
        if langs and addr in langs:
            form["lang"] = langs[addr]
        assert h.post_form(client, f"/s/{tokens[addr]}/prefs", form).status_code == 303
    h.accept_all(app, client)
    return h.only_game(app), tokens


def _deliver(app, sink) -> None:
    with app.app_context():
        deliver_due(db.get_engine(app), SmtpTransport(sink.url), limit=1000)


def _calendars(msg) -> list[tuple[str, Calendar, bool]]:
    """(METHOD parameter of the part, the parsed object, is it an attachment) of each calendar part."""
    return [(part.get_param("method"), Calendar.from_ical(part.get_content()), part.is_attachment())
            for part in msg.walk() if part.get_content_type() == "text/calendar"]


def _received(sink, addr: str) -> list:
    return [r.message for r in sink.received if addr in r.rcpt_tos]


def _deadline(app, game_id: str, seat: int):
    with app.app_context(), db.transaction() as s:
        rows = open_deadlines(s, game_id, seat)
        return min(r.deadline_at for r in rows)


def test_off_by_default_no_mail_has_a_calendar_part(app, client, smtp_server):  # noqa: F811
    game, _tokens_ = _start(app, client, calendar_for=())
    _deliver(app, smtp_server)
    assert smtp_server.received
    assert all(not _calendars(r.message) for r in smtp_server.received)
    assert all(m.calendar is None for m in h.mails(app))


def test_request_then_moved_deadline_then_cancel(app, client, smtp_server):  # noqa: F811
    game, tokens = _start(app, client, calendar_for=(ANN, BO, CY), langs={BO: "de"})
    _deliver(app, smtp_server)
    g = game_of(app, game.id)
    seat = {addr: i for i, (_n, addr) in enumerate(PLAYERS)}
    # --- the opening mail: one REQUEST, as the last alternative, beside the text and HTML bodies
    opening = _received(smtp_server, ANN)[-1]
    parts = _calendars(opening)
    assert [(m, a) for m, a in ((p[0], p[2]) for p in parts)] == [("REQUEST", False)]
    assert opening.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in opening.iter_parts()] == ["text/plain", "text/html", "text/calendar"]
    cal = parts[0][1]
    raw = next(p for p in opening.walk() if p.get_content_type() == "text/calendar").get_payload(decode=True)
    assert raw.count(b"\r\n") == raw.count(b"\n")  # CRLF line ends (RFC 5545 3.1)
    assert Calendar.from_ical(cal.to_ical()) == cal  # round trip
    assert str(cal["method"]) == "REQUEST"
    (ev,) = cal.walk("VEVENT")
    due = _deadline(app, game.id, seat[ANN])
    assert ev.decoded("dtstart") == due.replace(tzinfo=UTC, microsecond=0)
    assert ev.decoded("dtend") > ev.decoded("dtstart")
    assert int(ev["sequence"]) == 0
    assert str(ev["organizer"]).lower() == "mailto:skyjo@localhost"  # MAIL_FROM (the default)
    assert str(ev["attendee"]).lower() == f"mailto:{ANN}"
    assert str(ev["url"]) == f"http://localhost/s/{tokens[ANN]}"
    assert str(ev["summary"]).startswith("SKYJO: your move in ")
    alarms = sorted(a.decoded("trigger") for a in ev.walk("VALARM"))
    assert alarms == [-timedelta(hours=24), -timedelta(hours=4)]  # the game's reminder offsets
    uid = str(ev["uid"])
    assert g.decision_id(seat[ANN]) not in uid and game.id not in uid  # derived, names nothing
    # in the seat's language (Bo reads German)
    (bo_ev,) = _calendars(_received(smtp_server, BO)[-1])[0][1].walk("VEVENT")
    assert str(bo_ev["summary"]).startswith("SKYJO: dein Zug in ")
    assert str(bo_ev["uid"]) != uid

    # --- the same row builds the same bytes (DKIM, retries)
    row = [m for m in h.mails(app) if m.to_addr == ANN and m.calendar][-1]
    assert build_message(row).as_bytes() == build_message(row).as_bytes()

    # --- a mail that asks for nothing while the decision is still owed leaves the event alone
    with app.app_context(), db.transaction(write=True) as s:
        ann = s.exec(select(SeatRow).where(SeatRow.game_id == game.id, SeatRow.email == ANN)).one()
        event = ann.calendar_event
        compose.notice(s, s.get(GameRow, game.id), ann, "A notice while Ann still owes her opening.")
    _deliver(app, smtp_server)
    notice = _received(smtp_server, ANN)[-1]
    assert "still owes" in notice.get_body(("plain",)).get_content() and not _calendars(notice)
    with app.app_context(), db.transaction() as s:
        assert s.exec(select(SeatRow.calendar_event).where(SeatRow.email == ANN)).one() == event

    # --- Ann goes on vacation: the deadline moves; her reminder for the same decision updates it
    with app.app_context(), db.transaction(write=True) as s:
        settings.start_vacation(s, tokens[ANN], 2)
    moved = _deadline(app, game.id, seat[ANN])
    assert moved > due
    with app.app_context(), db.transaction(write=True) as s:
        game_row = s.get(GameRow, game.id)
        ann = s.exec(select(SeatRow).where(SeatRow.game_id == game.id, SeatRow.email == ANN)).one()
        notify.decision_or_nothing(s, game_row, ann, engine.Game.from_json(game_row.state), reminder=True)
    _deliver(app, smtp_server)
    (method, cal2, _att), = _calendars(_received(smtp_server, ANN)[-1])
    (ev2,) = cal2.walk("VEVENT")
    assert method == "REQUEST" and str(ev2["uid"]) == uid
    assert int(ev2["sequence"]) == 1
    assert ev2.decoded("dtstart") == moved.replace(tzinfo=UTC, microsecond=0)

    # --- the opening is played: the next mail of the seat on turn carries the next decision's
    # REQUEST and, attached, the CANCEL of its opening event; nobody gets a mail for a CANCEL alone
    before = {addr: len(_received(smtp_server, addr)) for addr in (ANN, BO, CY)}
    g = finish_opening(app, client, game.id)
    _deliver(app, smtp_server)
    on_turn = PLAYERS[g.turn][1]
    for addr in (ANN, BO, CY):
        new = _received(smtp_server, addr)[before[addr]:]
        assert all(_calendars(m) for m in new if addr == on_turn)
        if addr != on_turn:
            assert not any(_calendars(m) for m in new)  # no extra mail: its CANCEL waits for its next mail
    mail = _received(smtp_server, on_turn)[-1]
    parts = _calendars(mail)
    assert [(p[0], p[2]) for p in parts] == [("REQUEST", False), ("CANCEL", True)]
    assert mail.get_content_type() == "multipart/mixed"
    (req,) = parts[0][1].walk("VEVENT")
    (cancel,) = parts[1][1].walk("VEVENT")
    assert str(parts[1][1]["method"]) == "CANCEL" and str(cancel["status"]) == "CANCELLED"
    assert on_turn == ANN  # (the fixed deal): her opening event is the one cancelled
    assert str(cancel["uid"]) == uid
    assert str(req["uid"]) != str(cancel["uid"])
    assert int(cancel["sequence"]) >= 1


def test_a_game_cancelled_mid_decision_cancels_the_event_in_the_mail_it_sends_anyway(app, client, smtp_server):  # noqa: F811
    game, _tokens_ = _start(app, client, calendar_for=(BO,))
    _deliver(app, smtp_server)
    (_m, opening, _a), = _calendars(_received(smtp_server, BO)[-1])
    (ev,) = opening.walk("VEVENT")
    count = len(_received(smtp_server, BO))
    with app.app_context(), db.transaction(write=True) as s:
        games.operator_cancel(s, game.id)
    _deliver(app, smtp_server)
    new = _received(smtp_server, BO)[count:]
    assert len(new) == 1  # the cancel notice the game sends anyway: no mail for the CANCEL alone
    mail = new[0]
    assert mail.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in mail.iter_parts()] == ["text/plain", "text/html", "text/calendar"]
    (method, cal, attached), = _calendars(mail)
    assert (method, attached, str(cal["method"])) == ("CANCEL", False, "CANCEL")
    (cancel,) = cal.walk("VEVENT")
    assert str(cancel["uid"]) == str(ev["uid"]) and int(cancel["sequence"]) == int(ev["sequence"]) + 1
    assert str(cancel["status"]) == "CANCELLED"
    # once cancelled, the seat's later mails carry no calendar part
    with app.app_context(), db.transaction() as s:
        bo = s.exec(select(SeatRow).where(SeatRow.game_id == game.id, SeatRow.email == BO)).one()
        assert bo.calendar and bo.calendar_event is None
