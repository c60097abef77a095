"""Playing by replying, through the real service on SQLite and PostgreSQL: turn mails carry the seat's
reply address, replies arrive over SMTP (the built-in receiver), IMAP (a private Dovecot, polled by the
worker's tick) or the dev mailbox's reply box, and every reply is answered by mail."""

from __future__ import annotations

import logging
import random
import re
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlmodel import select

import engine
from service.clock import scheduler
from service.mail.delivery import deliver_due
from service.mail.inbound import InboundSMTP
from service.mail.replies import parse_reply_address
from service.mail.sender import app_engine
from service.mail.transport import DevTransport, SmtpTransport
from service.play import games, lookups, reply_service, settings
from service.store import db
from service.store.models import MoveRow
from service.store.reply_models import InboundReplyRow
from tests.conftest import sqlite_suffices
from tests.service import helpers as h
from tests.service.smtp_fixture import free_port, smtp_server  # noqa: F401  (fixture)
from tests.service.test_inbound import _append, dovecot  # noqa: F401  (fixture)

DOMAIN = "localhost"  # MAIL_FROM's domain in the test app
REPLY_RE = re.compile(r"^play\+[0-9a-f]{12}-[a-z2-7]{26}\.\d+@localhost$")


def start(app, client, players=(("Ann", "ann@example.com"), ("Bo", "bo@example.com"))):
    h.new_game(client, players=players)
    h.accept_all(app, client)
    return h.only_game(app)


def latest_reply_mail(app, addr: str):
    """The newest mail to `addr` that can be answered (it has a Reply-To)."""
    found = [m for m in h.mails(app) if m.to_addr == addr and m.headers.get("Reply-To")]
    return found[-1] if found else None


def reply_to(mail, body: str, *, mid: str | None = None, to: str | None = None) -> bytes:
    m = EmailMessage()
    m["From"] = f"{mail.to_name} <{mail.to_addr}>"
    m["To"] = to or mail.headers["Reply-To"]
    m["Subject"] = "Re: " + mail.subject
    m["Message-ID"] = mid or make_msgid(domain="player.example.com")
    m["In-Reply-To"] = mail.message_id
    quoted = "\n".join("> " + line for line in mail.text_body.splitlines())
    m.set_content(f"{body}\n\n-- \n{mail.to_name}\n\nOn Mon, 30 Nov 2026, SKYJO <skyjo@localhost> wrote:\n{quoted}\n")
    return m.as_bytes()


def version_of(app, gid: str) -> int:
    return h.game_state(app, gid)[0]


def answers(app, since: int, addr: str):
    return [m for m in h.mails(app, since) if m.to_addr == addr and m.text_body.count("\n") and (
        "Understood:" in m.text_body or "Not applied" in m.text_body)]


def last_id(app) -> int:
    ms = h.mails(app)
    return ms[-1].id if ms else 0


# ------------------------------------------------------------------------------ turn mails
def test_turn_mails_carry_the_seat_reply_address_and_the_command_help(app, client):
    game = start(app, client)
    turn = [m for m in h.mails(app) if h.move_links(m)]
    assert {m.to_addr for m in turn} == {"ann@example.com", "bo@example.com"}
    addrs = set()
    for m in turn:
        rt = m.headers["Reply-To"]
        assert REPLY_RE.match(rt), rt
        tag, version = parse_reply_address(rt, DOMAIN)
        assert version == game.version and tag.startswith(game.id + "-")
        addrs.add(rt)
        for part in (m.text_body, m.html_body):
            assert "Reply with your move on the first line" in part
            assert "draw: if 4 or less swap B2" in part
    assert len(addrs) == 2  # one per seat
    # invitations and other mails do not play by reply
    assert not any(m.headers.get("Reply-To") for m in h.mails(app) if not h.move_links(m))


# ------------------------------------------------------------------------------ SMTP end to end
def test_a_reply_over_smtp_plays_and_the_answer_goes_out_over_smtp(app, client, smtp_server, caplog):  # noqa: F811
    game = start(app, client)
    ann = latest_reply_mail(app, "ann@example.com")
    v0 = version_of(app, game.id)
    since = last_id(app)
    port = free_port()
    caplog.set_level(logging.DEBUG)
    reply_service.quiet_smtp_log()
    with InboundSMTP(lambda raw: reply_service.handle_inbound(app, raw), "127.0.0.1", port,
                     accept_domains=[DOMAIN]), smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        # a mail system that lowercases the address changes nothing
        smtp.send_message(_msg(reply_to(ann, "Reveal A1, reveal C3")),
                          to_addrs=[ann.headers["Reply-To"].upper().replace("PLAY+", "play+")])
    assert version_of(app, game.id) == v0 + 2
    tag = parse_reply_address(ann.headers["Reply-To"], DOMAIN)[0]
    assert "reply mail for game" in caplog.text
    assert tag.split("-")[1] not in caplog.text.lower()  # no reply secret in any log line
    with app.app_context(), db.transaction() as s:
        moves = [m.move for m in s.exec(select(MoveRow).where(MoveRow.game_id == game.id).order_by(MoveRow.number))]
    assert moves == ["reveal A1", "reveal C3"]
    got = answers(app, since, "ann@example.com")
    assert len(got) == 1 and "Understood: reveal A1, reveal C3" in got[0].text_body
    assert "Bo" in got[0].text_body and "[  ]" in got[0].text_body  # the board
    # outbound over real SMTP too
    with app.app_context():
        deliver_due(app_engine(app), SmtpTransport(smtp_server.url), limit=1000)
    delivered = [r.message for r in smtp_server.received if "ann@example.com" in r.rcpt_tos]
    assert any("Understood: reveal A1, reveal C3" in msg.get_body(("plain",)).get_content() for msg in delivered)


def _msg(raw: bytes) -> EmailMessage:
    from email import message_from_bytes, policy

    return message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]


# ------------------------------------------------------------------------------ IMAP through the worker tick
def test_replies_from_an_imap_mailbox_are_played_by_the_worker_tick(app, client, dovecot):  # noqa: F811
    game = start(app, client)
    app.config["IMAP_URL"] = dovecot["url"]
    ann = latest_reply_mail(app, "ann@example.com")
    bo = latest_reply_mail(app, "bo@example.com")
    v0 = version_of(app, game.id)
    _append(dovecot["port"], reply_to(ann, "reveal A1, reveal B1"))
    _append(dovecot["port"], reply_to(bo, "reveal D3 and reveal D2"))
    auto = _msg(reply_to(bo, "reveal A1"))
    auto["Auto-Submitted"] = "auto-replied"
    _append(dovecot["port"], auto.as_bytes())
    ticks = []
    job = scheduler.with_reply_polling(app, lambda: ticks.append(1) or "report")
    assert job() == "report" and ticks == [1]
    assert version_of(app, game.id) >= v0 + 4
    with app.app_context(), db.transaction() as s:
        rows = {r.outcome for r in s.exec(select(InboundReplyRow))}
    assert rows == {"applied"}
    job()  # nothing new: nothing happens
    with app.app_context(), db.transaction() as s:
        assert len(list(s.exec(select(InboundReplyRow)))) == 2
    # the worker does not poll without IMAP_URL
    app.config["IMAP_URL"] = None
    plain = lambda: None  # noqa: E731
    assert scheduler.with_reply_polling(app, plain) is plain


# ------------------------------------------------------------------------------ a whole game by replies

@sqlite_suffices  # a whole game: PostgreSQL adds nothing its race tests miss (tests/conftest.py)
def test_a_whole_classic_game_played_by_replies_only(app, client):
    game = start(app, client)
    rng = random.Random(11)
    outcomes: list[str] = []
    for _n in range(600):
        _v, state, status = h.game_state(app, game.id)
        if status == "finished":
            break
        g = engine.Game.from_json(state)
        seat_rows = {r.seat: r for r in h.seats(app, game.id)}
        seat = rng.choice(sorted({p.seat for p in g.pending()}))
        mail = latest_reply_mail(app, seat_rows[seat].email)
        outcomes.append(reply_service.handle_inbound(app, reply_to(mail, h.random_reply_plan(g, seat, rng))))
    else:
        raise AssertionError("the game did not finish")
    assert set(outcomes) == {"applied"}, outcomes
    assert h.game_state(app, game.id)[2] == "finished"
    assert any("Game over" in m.text_body for m in h.mails(app))
    conditional = [m for m in h.mails(app) if "Understood: draw: if" in m.text_body]
    assert conditional, "conditional plans were played"
    with app.app_context(), db.transaction() as s:
        record = games.export_record(s, game.id)
    assert engine.replay(record).to_json() == h.full_state(app, game.id)


# ------------------------------------------------------------------------------ protection
def _to_turn(app, client):
    """A game past the opening, waiting for a seat's turn; returns (game, seat row of the player)."""
    game = start(app, client)
    for r in h.seats(app, game.id):
        mail = latest_reply_mail(app, r.email)
        assert reply_service.handle_inbound(app, reply_to(mail, "reveal A1, reveal B1")) == "applied"
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    while g.owes(g.pending()[0].seat) != "turn":  # extra reveals on a tie
        p = g.pending()[0].seat
        row = next(r for r in h.seats(app, game.id) if r.seat == p)
        mv = g.legal_moves(p)[0].text()
        assert reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, row.email), mv)) == "applied"
        g = engine.Game.from_json(h.game_state(app, game.id)[1])
    player = next(r for r in h.seats(app, game.id) if r.seat == g.pending()[0].seat)
    return game, player


def test_duplicate_and_stale_replies_are_not_applied(app, client):
    game, player = _to_turn(app, client)
    mail = latest_reply_mail(app, player.email)
    raw = reply_to(mail, "take swap A1")
    v = version_of(app, game.id)
    assert reply_service.handle_inbound(app, raw) == "applied"
    assert version_of(app, game.id) == v + 2
    since = last_id(app)
    assert reply_service.handle_inbound(app, raw) == "duplicate"  # the same Message-ID again
    assert h.mails(app, since) == []
    # a new reply to the old turn mail: answered with the current board, not applied
    v2 = version_of(app, game.id)
    assert reply_service.handle_inbound(app, reply_to(mail, "take swap B2")) == "stale"
    assert version_of(app, game.id) == v2
    got = answers(app, since, player.email)
    assert len(got) == 1 and "Not applied: the game moved on" in got[0].text_body
    assert "[  ]" in got[0].text_body


def test_other_seats_addresses_rotated_and_forged_addresses(app, client):
    game, player = _to_turn(app, client)
    other = next(r for r in h.seats(app, game.id) if r.id != player.id)
    v = version_of(app, game.id)
    since = last_id(app)
    # the other seat's address: it is not their move, nothing is applied, the answer says why
    assert reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, other.email), "draw swap A1")) \
        in ("refused", "stale")
    assert version_of(app, game.id) == v
    assert all(m.to_addr == other.email for m in h.mails(app, since))  # never to the player's From
    # a forged address (right game, wrong secret) and an unknown game: dropped, nobody answered
    mail = latest_reply_mail(app, player.email)
    tag, ver = parse_reply_address(mail.headers["Reply-To"], DOMAIN)
    forged = f"play+{tag[:-4]}aaaa.{ver}@{DOMAIN}"
    since = last_id(app)
    assert reply_service.handle_inbound(app, reply_to(mail, "take swap A1", to=forged)) == "unknown"
    assert reply_service.handle_inbound(app, reply_to(mail, "take swap A1", to=f"play+{'0' * 12}-{tag[13:]}.{ver}@{DOMAIN}")) \
        == "unknown"
    assert h.mails(app, since) == [] and version_of(app, game.id) == v
    # the player replaces their links: the old reply address stops working, the new mail's works
    token = next(p for p in h.links_of(mail) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p)).rsplit("/", 1)[1]
    with app.app_context(), db.transaction(write=True) as s:
        _seat, new_token = settings.rotate_token(s, token)
    assert reply_service.handle_inbound(app, reply_to(mail, "take swap A1")) == "unknown"
    assert version_of(app, game.id) == v
    # the answer to any reply comes with the new address, and replying to it plays
    since = last_id(app)
    with app.app_context(), db.transaction(write=True) as s:
        seat, g = lookups.seat_by_token(s, new_token)
        from service.play import notify as mails

        mails.decision_or_nothing(s, g, seat, lookups.load_engine_game(g))
    fresh = latest_reply_mail(app, player.email)
    assert fresh.id > since and fresh.headers["Reply-To"] != mail.headers["Reply-To"]
    assert reply_service.handle_inbound(app, reply_to(fresh, "take swap A1")) == "applied"


def test_malformed_replies_get_an_error_mail_and_change_nothing(app, client):
    game, player = _to_turn(app, client)
    mail = latest_reply_mail(app, player.email)
    v = version_of(app, game.id)
    # (a reply with no move at all, e.g. "hello there", is a message to the table since issue 19:
    # tests/service/test_table_talk.py; a mistyped move is still refused)
    for i, body in enumerate(["drwa swap B2", "draw: if 4 or less swap B2", "swap Z9", "draw swap B2 draw swap C3",
                              "take flip A1", "", "draw: if 4 or less swap B2, if 4 or less flip C3, else swap A1"]):
        since = last_id(app)
        assert reply_service.handle_inbound(app, reply_to(mail, body, mid=f"<bad{i}@x>")) == "refused", body
        assert version_of(app, game.id) == v
        got = answers(app, since, player.email)
        assert len(got) == 1, body
        text = got[0].text_body
        assert "Not applied: your reply could not be played." in text
        assert "Possible now:" in text and "draw" in text
        assert "Reply with your move on the first line" in text
        assert got[0].headers.get("Reply-To")  # answering the error mail plays
    # the draw pile's top card never appears: nothing was drawn
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    assert engine.view(g, player.seat).get("held") is None


def test_ignored_mails_are_dropped_without_answer(app, client):
    start(app, client)
    ann = latest_reply_mail(app, "ann@example.com")
    since = last_id(app)
    auto = _msg(reply_to(ann, "reveal A1, reveal B1"))
    auto["Auto-Submitted"] = "auto-replied"
    assert reply_service.handle_inbound(app, auto.as_bytes()) == "ignored"
    ours = _msg(reply_to(ann, "reveal A1, reveal B1"))
    ours.replace_header("From", "SKYJO <skyjo@localhost>")
    assert reply_service.handle_inbound(app, ours.as_bytes()) == "ignored"
    nowhere = _msg(reply_to(ann, "reveal A1, reveal B1"))
    nowhere.replace_header("To", "someone@localhost")
    assert reply_service.handle_inbound(app, nowhere.as_bytes()) == "no-address"
    assert h.mails(app, since) == []


# ------------------------------------------------------------------------------ dev mailbox and web form
def test_dev_mailbox_reply_box(app, client):
    game = start(app, client)
    with app.app_context():
        deliver_due(app_engine(app), DevTransport(), limit=1000)
    ann = latest_reply_mail(app, "ann@example.com")
    page = client.get(f"/dev/mail/{ann.id}")
    assert page.status_code == 200 and 'data-action="reply"' in page.text
    v = version_of(app, game.id)
    r = client.post(f"/dev/mail/{ann.id}/reply", data={"csrf_token": h.csrf_of(page.text),
                                                       "body": "reveal A1, reveal B1"})
    assert r.status_code == 303
    assert version_of(app, game.id) == v + 2
    got = [m for m in h.mails(app) if m.to_addr == "ann@example.com" and "Understood:" in m.text_body]
    assert got and got[-1].sent_at is not None  # delivered into the mailbox at once
    assert client.post(f"/dev/mail/{ann.id}/reply", data={"body": "reveal C1"}).status_code == 400  # no CSRF
    invitation = next(m for m in h.mails(app) if "invites you" in m.text_body)
    assert 'data-action="reply"' not in client.get(f"/dev/mail/{invitation.id}").text


def test_web_board_whole_turn_form(app, client):
    game, player = _to_turn(app, client)
    mail = latest_reply_mail(app, player.email)
    seat_path = next(p for p in h.links_of(mail) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    page = client.get(seat_path)
    assert 'id="plan-form"' in page.text
    v = version_of(app, game.id)
    fields = {"csrf_token": h.form_csrf(page.text, seat_path + "/plan"), "version": str(v), "game": game.id,
              "seat": str(player.seat)}
    bad = client.post(seat_path + "/plan", data={**fields, "plan": "draw: if 4 or less swap B2"})
    assert bad.status_code == 400 and "else" in bad.text and version_of(app, game.id) == v
    assert 'value="draw: if 4 or less swap B2"' in bad.text  # kept in its field to be corrected (issue 15)
    ok = client.post(seat_path + "/plan", data={**fields, "plan": "draw: if 4 or less swap B2, else swap C1"})
    assert ok.status_code == 303 and version_of(app, game.id) == v + 2
    again = client.post(seat_path + "/plan", data={**fields, "plan": "take swap A1"})
    assert again.status_code == 409 and version_of(app, game.id) == v + 2
    assert client.post(seat_path + "/plan", data={**fields, "version": ""}).status_code == 400
    # the other seat's page shows no form while it is not their turn... unless it is now
    other = next(r for r in h.seats(app, game.id) if r.id != player.id)
    other_mail = latest_reply_mail(app, other.email)
    other_path = next(p for p in h.links_of(other_mail) if re.fullmatch(r"/s/[A-Za-z0-9_-]+", p))
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    assert ('id="plan-form"' in client.get(other_path).text) == (other.seat in {p.seat for p in g.pending()})


@pytest.mark.parametrize("body", ["draw", "take"])
def test_single_moves_wait_for_the_next_mail(app, client, body):
    """`draw` (or `take`) alone is one decision: the answer shows the card to its holder only, and the
    next mail asks for the rest (replying to it finishes the turn)."""
    game, player = _to_turn(app, client)
    other = next(r for r in h.seats(app, game.id) if r.id != player.id)
    mail = latest_reply_mail(app, player.email)
    since = last_id(app)
    assert reply_service.handle_inbound(app, reply_to(mail, body)) == "applied"
    new = h.mails(app, since)
    assert new and all(m.to_addr == player.email for m in new)  # nobody else hears of the card
    assert any("holds the" in m.text_body for m in new)
    g = engine.Game.from_json(h.game_state(app, game.id)[1])
    held = engine.view(g, other.seat).get("held")
    if body == "draw":
        assert held is None or held.get("value") is None  # the other seat's view hides a drawn card
    nxt = latest_reply_mail(app, player.email)
    assert reply_service.handle_inbound(app, reply_to(nxt, "swap A1")) == "applied"
    assert other.email in {m.to_addr for m in h.mails(app, since)}  # now it is their turn

_WORDS = ["draw", "take", "swap", "flip", "reveal", "if", "else", "or", "less", "more", "B2", "C3", "A1", "D4",
          "Z9", "4", "-2", "13", ":", ",", "\n", "then", "and", "between", "star", "ÅÄÖ", "> quoted", "--"]


@sqlite_suffices  # parsing replies: PostgreSQL adds nothing (tests/conftest.py)
def test_random_and_mutated_replies_never_crash_and_never_apply_invalid_text(app, client):
    """200 random or mutated reply bodies through the whole service: each is applied as a whole,
    answered with an error, or (no move at all) passed on as a message; never half-applied, never a
    crash."""
    game, player = _to_turn(app, client)
    rng = random.Random(2026)
    outcomes = []
    for i in range(200):
        _v, state, status = h.game_state(app, game.id)
        if status == "finished":
            break
        g = engine.Game.from_json(state)
        seat = g.pending()[0].seat
        row = next(r for r in h.seats(app, game.id) if r.seat == seat)
        body = h.random_reply_plan(g, seat, rng)
        kind = rng.randrange(4)
        if kind == 1:
            body = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 9)))
        elif kind == 2:
            p = rng.randrange(len(body) + 1)
            body = body[:p] + rng.choice(_WORDS) + body[p + rng.randrange(3):]
        elif kind == 3:
            body = "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(0, 40)))
        v = version_of(app, game.id)
        before = h.game_state(app, game.id)[1]
        out = reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, row.email), body, mid=f"<fz{i}@x>"))
        outcomes.append(out)
        # "message": no move at all, the text went to the table (issue 19); nothing was played
        assert out in ("applied", "refused", "message"), (body, out)
        if out in ("refused", "message"):
            assert version_of(app, game.id) == v and h.game_state(app, game.id)[1] == before
        else:
            assert version_of(app, game.id) > v
    assert outcomes.count("applied") > 20 and outcomes.count("refused") > 20


def test_two_replies_at_the_same_moment_apply_once(app, client):
    """Two different replies to the same turn mail handled at once (two SMTP deliveries, or SMTP and
    IMAP): the version-checked UPDATE lets one through; the other is answered, not applied."""
    import threading

    game, player = _to_turn(app, client)
    mail = latest_reply_mail(app, player.email)
    v = version_of(app, game.id)
    raws = [reply_to(mail, "take swap A1", mid="<twin-1@x>"), reply_to(mail, "take swap B1", mid="<twin-2@x>")]
    out: list[str] = []
    barrier = threading.Barrier(2)

    def run(raw: bytes) -> None:
        barrier.wait()
        out.append(reply_service.handle_inbound(app, raw))

    threads = [threading.Thread(target=run, args=(raw,)) for raw in raws]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(out) == ["applied", "stale"], out
    assert version_of(app, game.id) == v + 2
    with app.app_context(), db.transaction() as s:
        assert len([m for m in s.exec(select(MoveRow).where(MoveRow.game_id == game.id))]) == v + 2


def test_the_inbound_smtp_command_plays_replies(tmp_path):
    """`skyjo-pbem inbound-smtp --port N` as its own process on a migrated database."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from service import create_app

    root = Path(__file__).resolve().parents[2]
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="cli-test-key", SKYJO_ENV="development",
               BASE_URL="http://localhost")
    up = subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"], cwd=root, env=env,
                        capture_output=True, text=True, timeout=120)
    assert up.returncode == 0, up.stderr
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "cli-test-key",
                      "BASE_URL": "http://localhost", "ENV_NAME": "development"})
    client = app.test_client()
    game = start(app, client)
    ann = latest_reply_mail(app, "ann@example.com")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "inbound-smtp", "--port", str(port),
                             "--host", "127.0.0.1"], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
                    smtp.send_message(_msg(reply_to(ann, "reveal A1, reveal B1")),
                                      to_addrs=[ann.headers["Reply-To"]])
                break
            except (ConnectionRefusedError, smtplib.SMTPServerDisconnected):
                assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read() if proc.stdout else ""
                time.sleep(0.2)
        assert version_of(app, game.id) == game.version + 2
        assert any("Understood: reveal A1, reveal B1" in m.text_body for m in h.mails(app))
    finally:
        proc.terminate()
        try:
            out = proc.communicate(timeout=10)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate(timeout=5)[0]
    assert ann.headers["Reply-To"].split("+")[1].split("-")[1].split(".")[0] not in out  # no secret logged
    db.get_engine(app).dispose()


def test_c5_the_last_openers_third_reveal_stops_the_plan_and_the_answer_says_why(app, client):
    """Issue 20.3: `reveal A1, reveal B1, reveal C1` from the last player of the opening used to be
    applied on a tie and refused (with two messages) otherwise: the answer told the player's hidden
    cards. Now the two reveals are played, the plan stops before the third whatever the cards, and the
    answer says why; the player is asked for the next decision as usual."""
    game = start(app, client)
    ann = latest_reply_mail(app, "ann@example.com")
    reply_service.handle_inbound(app, reply_to(ann, "reveal A1, reveal B1"))
    bo = latest_reply_mail(app, "bo@example.com")
    since = last_id(app)
    v0 = version_of(app, game.id)
    reply_service.handle_inbound(app, reply_to(bo, "reveal A1, reveal B1, reveal C1"))
    assert version_of(app, game.id) == v0 + 2
    got = answers(app, since, "bo@example.com")
    assert len(got) == 1
    assert "Done: reveal A1, reveal B1" in got[0].text_body
    assert "Your plan stopped before “reveal C1”" in got[0].text_body
