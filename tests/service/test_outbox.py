"""Outbox rows: queued iff committed, claimed once, retried with backoff, found by an index."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone

import pytest
from flask import Flask
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from service.mail import config as mail_config
from service.mail import delivery, outbox
from service.mail.config import MailConfig
from service.mail.delivery import BACKOFF_CAP, LEASE, backoff_delay, deliver_due
from service.mail.message import build_message
from service.mail.outbox import queue_mail
from service.mail.sender import (
    BackgroundSender,
    start_background_sender,
    stop_background_sender,
    wake_background_sender,
)
from service.mail.transport import DevTransport, SmtpTransport, TransportUnavailable, transport_from_url
from service.store.bounce_models import MailBlockRow
from service.store.outbox_models import OutboxMail, utcnow
from tests.service.smtp_fixture import engine, sqlite_only  # noqa: F401  (fixtures)

CFG = MailConfig(mail_from="SKYJO <play@skyjo.example>", base_url="https://skyjo.example")
T0 = datetime(2026, 1, 1, 12, 0, 0)


class RecordingTransport:
    """Records Message-IDs; `fail` maps Message-ID -> exception to raise (once per entry)."""

    name = "test"

    def __init__(self, delay: float = 0.0):
        self.sent: list[str] = []
        self.delay = delay
        self.fail: dict[str, list[BaseException]] = {}
        self.down = False
        self.lock = threading.Lock()

    def send(self, msg):
        mid = msg["Message-ID"]
        if self.down:
            raise TransportUnavailable("ConnectionRefusedError: [Errno 111] Connection refused")
        errors = self.fail.get(mid)
        if errors:
            raise errors.pop(0)
        if self.delay:
            time.sleep(self.delay)
        with self.lock:
            self.sent.append(mid)

    def close(self):
        pass


def queue(session, n=1, to="ann@example.org", **kw):
    rows = []
    for i in range(n):
        args = dict(
            to_addr=to,
            to_name="Ann",
            subject="SKYJO with Bo",
            text=f"text {i}",
            html=f"<p>html {i}</p>",
            config=CFG,
            now=kw.pop("now", T0),
        )
        args.update(kw)
        rows.append(queue_mail(session, **args))
    return rows


def all_rows(eng):
    with Session(eng, expire_on_commit=False) as s:
        return list(s.execute(select(OutboxMail).order_by(OutboxMail.id)).scalars())


# --------------------------------------------------------------------------------------------------
# iff committed
# --------------------------------------------------------------------------------------------------


def test_queue_mail_never_commits_and_rolled_back_mail_is_never_sent(engine):  # noqa: F811
    t = RecordingTransport()
    with Session(engine, expire_on_commit=False) as s:
        queue(s)
        s.rollback()  # the move failed: its mail must vanish with it
    with pytest.raises(RuntimeError):
        with Session(engine, expire_on_commit=False) as s, s.begin():
            queue(s)
            raise RuntimeError("stale version")
    with Session(engine, expire_on_commit=False) as s:
        queue(s)  # never committed by anyone: closing the session discards it
    assert deliver_due(engine, t, now=T0 + timedelta(hours=2)) == 0
    assert all_rows(engine) == []

    with Session(engine, expire_on_commit=False) as s, s.begin():
        (row,) = queue(s)
    assert deliver_due(engine, t, now=T0) == 1
    assert t.sent == [row.message_id]
    assert deliver_due(engine, t, now=T0 + timedelta(days=1)) == 0  # once only


def test_sent_row_is_marked_with_transport_and_time(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        queue(s)
    assert deliver_due(engine, DevTransport(), now=T0 + timedelta(seconds=5)) == 1
    (row,) = all_rows(engine)
    assert row.transport == "dev"
    assert row.sent_at == T0 + timedelta(seconds=5)
    assert row.sent_at.tzinfo is None and row.created_at.tzinfo is None  # naive UTC
    assert row.claimed_until is None and row.claimed_by is None


def test_aware_now_is_stored_as_naive_utc(sqlite_only):  # noqa: F811
    cet = timezone(timedelta(hours=1))
    with Session(sqlite_only, expire_on_commit=False) as s, s.begin():
        queue(s, now=datetime(2026, 1, 1, 13, 0, tzinfo=cet))
    (row,) = all_rows(sqlite_only)
    assert row.created_at == datetime(2026, 1, 1, 12, 0) and row.send_after == row.created_at


# --------------------------------------------------------------------------------------------------
# headers
# --------------------------------------------------------------------------------------------------


def test_headers_threading_unsubscribe_and_stable_message_id(sqlite_only):  # noqa: F811
    with Session(sqlite_only, expire_on_commit=False) as s, s.begin():
        a, b = queue(s, 2, thread_key="game-12-seat-1", unsubscribe_url="https://skyjo.example/u/tok?x=1")
        (c,) = queue(s, to="bo@example.org", thread_key="game-12-seat-2")
    ma, mb, mc = build_message(a), build_message(b), build_message(c)
    assert len({ma["Message-ID"], mb["Message-ID"], mc["Message-ID"]}) == 3
    assert ma["Message-ID"].endswith("@skyjo.example>")
    assert build_message(a)["Message-ID"] == ma["Message-ID"] == a.message_id  # stable per row
    assert ma["In-Reply-To"] == mb["In-Reply-To"] == ma["References"] == "<game-12-seat-1@skyjo.example>"
    assert mc["References"] == "<game-12-seat-2@skyjo.example>"
    assert ma["List-Unsubscribe"] == "<https://skyjo.example/u/tok?x=1>"
    assert ma["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mc["List-Unsubscribe"] is None
    assert ma["Auto-Submitted"] == "auto-generated"
    assert ma["From"] == "SKYJO <play@skyjo.example>"
    assert ma["To"] == "Ann <ann@example.org>"
    assert ma["Subject"] == "SKYJO with Bo"
    assert ma["Date"]
    assert ma["Reply-To"] is None


def test_reply_to_for_the_seat_reply_address(sqlite_only):  # noqa: F811
    with Session(sqlite_only, expire_on_commit=False) as s:
        (row,) = queue(s, reply_to="play+SEATTOKEN@skyjo.example")
        assert build_message(row)["Reply-To"] == "play+SEATTOKEN@skyjo.example"
        with pytest.raises(ValueError):
            queue(s, reply_to="a@b.org, evil@c.org")
        s.rollback()


def test_domain_falls_back_to_base_url_and_app_config_wins(sqlite_only):  # noqa: F811
    cfg = MailConfig(mail_from="skyjo", base_url="https://play.example.net:8443/x")
    assert cfg.domain == "play.example.net"
    app = Flask("t")
    app.config.update(MAIL_FROM="Game <g@app.example>", BASE_URL="https://app.example")
    with app.app_context(), Session(sqlite_only, expire_on_commit=False) as s:
        row = queue_mail(s, to_addr="a@b.org", to_name="A", subject="s", text="t", html=None)
        assert row.message_id.endswith("@app.example>") and row.from_addr == "Game <g@app.example>"
        s.rollback()
    mail_config.configure(mail_from="W <w@worker.example>")
    try:
        with Session(
            sqlite_only, expire_on_commit=False
        ) as s:  # no app context: the worker's configure() applies
            row = queue_mail(
                s,
                to_addr="a@b.org",
                to_name="A",
                subject="s",
                text="t",
                html=None,
                thread_key="game-1-seat-0",
            )
            assert row.headers["References"] == "<game-1-seat-0@worker.example>"
            s.rollback()
    finally:
        mail_config._configured = None


def test_header_injection_is_neutralised(sqlite_only):  # noqa: F811
    with Session(sqlite_only, expire_on_commit=False) as s:
        (row,) = queue(
            s, to_name="Eve\r\nBcc: victim@example.com", subject="Hi\r\nBcc: victim@example.com\n\nbody"
        )
        msg = build_message(row)
        raw = msg.as_string()
        assert "\nBcc:" not in raw and msg["Bcc"] is None
        assert msg["Subject"] == "Hi Bcc: victim@example.com body"
        assert msg["To"].addresses[0].addr_spec == "ann@example.org"
        assert msg["To"].addresses[0].display_name == "Eve Bcc: victim@example.com"
        for bad in ["a@b.org, c@d.org", "a@b.org\r\nBcc: c@d.org", "Ann <a@b.org>", "nobody", "a@b@c"]:
            with pytest.raises(ValueError):
                queue(s, to=bad)
        with pytest.raises(ValueError):
            queue(s, unsubscribe_url="https://x.example/u>\r\nBcc: c@d.org")
        s.rollback()


def test_non_ascii_names_are_encoded(sqlite_only):  # noqa: F811
    with Session(sqlite_only, expire_on_commit=False) as s:
        (row,) = queue(s, to_name="Zoë Ångström", subject="SKYJO mit Zoë und Bø", to="zoe@bücher.example")
        raw = build_message(row).as_bytes()
        assert raw.isascii()  # RFC 2047 words and punycode, no raw 8-bit headers
        assert b"=?utf-8?" in raw and b"zoe@xn--bcher-kva.example" in raw
        s.rollback()


def test_html_css_is_inlined_and_both_parts_present(sqlite_only):  # noqa: F811
    html = (
        "<html><head><style>td.up { color: #123456; }</style></head><body><table><tr>"
        "<td class='up'>5</td></tr></table></body></html>"
    )
    with Session(sqlite_only, expire_on_commit=False) as s:
        (row,) = queue(s, html=html, text="plain board")
        assert 'style="color: #123456;"' in row.html_body and "<style>" not in row.html_body
        msg = build_message(row)
        assert msg.get_content_type() == "multipart/alternative"
        parts = [p.get_content_type() for p in msg.iter_parts()]
        assert parts == ["text/plain", "text/html"]
        assert msg.get_body(("plain",)).get_content().strip() == "plain board"
        assert "#123456" in msg.get_body(("html",)).get_content()
        s.rollback()


# --------------------------------------------------------------------------------------------------
# failures and backoff
# --------------------------------------------------------------------------------------------------


def test_backoff_grows_and_is_capped_forever():
    assert backoff_delay(1) == timedelta(seconds=30)
    assert backoff_delay(2) == timedelta(seconds=60)
    assert backoff_delay(5) == timedelta(seconds=480)
    assert backoff_delay(8) == BACKOFF_CAP
    assert backoff_delay(10_000) == BACKOFF_CAP


def test_failed_row_is_retried_with_backoff_and_never_dropped(engine):  # noqa: F811
    import smtplib

    t = RecordingTransport()
    with Session(engine, expire_on_commit=False) as s, s.begin():
        (bad,) = queue(s, to="ann@example.org")
        (good,) = queue(s, to="bo@example.org")
    t.fail[bad.message_id] = [smtplib.SMTPDataError(452, b"4.3.1 mailbox full")] * 10
    now = T0
    assert deliver_due(engine, t, now=now) == 1  # the other recipient's mail is not held back
    assert t.sent == [good.message_id]
    for attempt in range(1, 11):
        row = next(r for r in all_rows(engine) if r.id == bad.id)
        assert row.attempts == attempt and row.sent_at is None
        assert "SMTPDataError" in row.last_error and "mailbox full" in row.last_error
        assert row.send_after == now + backoff_delay(attempt)
        assert deliver_due(engine, t, now=row.send_after - timedelta(seconds=1)) == 0  # not yet
        now = row.send_after
        assert deliver_due(engine, t, now=now) == (1 if attempt == 10 else 0)
    row = next(r for r in all_rows(engine) if r.id == bad.id)
    assert row.sent_at == now and row.attempts == 10 and row.last_error is None
    assert Counter(t.sent) == {good.message_id: 1, bad.message_id: 1}


def test_mails_to_one_address_keep_their_order_through_failures(engine):  # noqa: F811
    t = RecordingTransport()
    with Session(engine, expire_on_commit=False) as s, s.begin():
        rows = queue(s, 3, to="ann@example.org")
        (other,) = queue(s, to="bo@example.org")
    t.fail[rows[0].message_id] = [RuntimeError("boom")]
    assert deliver_due(engine, t, now=T0) == 1  # Ann's 2nd and 3rd wait behind her 1st
    assert t.sent == [other.message_id]
    assert deliver_due(engine, t, now=T0 + timedelta(seconds=29)) == 0
    assert deliver_due(engine, t, now=T0 + timedelta(seconds=30)) == 3
    assert t.sent[1:] == [r.message_id for r in rows]


def test_unreachable_server_ends_the_sweep_and_mails_wait(engine):  # noqa: F811
    t = RecordingTransport()
    with Session(engine, expire_on_commit=False) as s, s.begin():
        rows = queue(s, 2, to="ann@example.org") + queue(s, 2, to="bo@example.org")
    t.down = True
    assert deliver_due(engine, t, now=T0) == 0
    states = all_rows(engine)
    assert [r.attempts for r in states] == [1, 0, 0, 0]  # one try, the others untouched
    assert all(r.claimed_by is None and r.sent_at is None for r in states)
    t.down = False
    assert deliver_due(engine, t, now=T0 + timedelta(hours=1)) == 4
    assert t.sent == [r.message_id for r in rows]  # all due: id order


def test_a_crashed_sender_leaves_a_claim_that_expires(engine):  # noqa: F811
    class Crash(BaseException):
        pass

    class CrashingTransport(RecordingTransport):
        def send(self, msg):
            raise Crash()

    with Session(engine, expire_on_commit=False) as s, s.begin():
        (row,) = queue(s)
    with pytest.raises(Crash):
        deliver_due(engine, CrashingTransport(), now=T0)
    (state,) = all_rows(engine)
    assert state.claimed_until == T0 + LEASE and state.sent_at is None
    t = RecordingTransport()
    assert deliver_due(engine, t, now=T0 + LEASE - timedelta(seconds=1)) == 0  # still claimed
    assert deliver_due(engine, t, now=T0 + LEASE + timedelta(seconds=1)) == 1
    assert t.sent == [row.message_id]


def test_a_sender_that_lost_its_claim_does_not_send(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        (row,) = queue(s)
    ids = None
    with Session(engine, expire_on_commit=False) as s:
        ids = delivery._claim_batch(s, T0, "slow-sender", 10, LEASE)
    assert [(r.id, r.to_addr) for r in ids] == [(row.id, "ann@example.org")]
    t = RecordingTransport()
    later = T0 + LEASE + timedelta(seconds=1)  # the slow sender's lease expired: another takes over
    assert deliver_due(engine, t, now=later) == 1
    with Session(engine, expire_on_commit=False) as s:
        assert delivery._renew(s, [row.id], "slow-sender", later, LEASE) == set()  # slow one must skip


def test_a_slow_sender_renews_its_claims_and_no_mail_goes_twice(engine):  # noqa: F811
    """Claims are renewed together once a quarter of the lease has passed (not per mail): with sends slower
    than the lease, a second sender never takes over a row the first one still holds."""
    with Session(engine, expire_on_commit=False) as s, s.begin():
        for i in range(12):
            queue(s, to=f"p{i}@example.org", now=utcnow() - timedelta(seconds=1))
    t = RecordingTransport(delay=0.1)
    lease = timedelta(seconds=0.25)  # a batch of 6 takes 0.6 s: it must be renewed on the way
    errors: list[BaseException] = []

    def sender():
        try:
            while len(t.sent) < 12:
                deliver_due(engine, t, batch_size=6, lease=lease)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors
    assert sorted(Counter(t.sent).values()) == [1] * 12


# --------------------------------------------------------------------------------------------------
# concurrency
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)
def test_the_sender_skips_the_wal_wait_for_its_own_transactions_only(engine):  # noqa: F811
    """On PostgreSQL the sender's claims and marks commit without waiting for the WAL flush; the
    setting is LOCAL to those transactions: the pooled connection goes back to the moves with
    `synchronous_commit` on (a move's commit must be durable). (PostgreSQL's setting: no SQLite case.)"""
    with Session(engine, expire_on_commit=False) as s, s.begin():
        queue(s, 3)
    with engine.connect() as conn:
        assert (
            deliver_due(lambda: Session(bind=conn, expire_on_commit=False), RecordingTransport(), now=T0) == 3
        )
        assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"


def test_concurrent_senders_deliver_each_row_exactly_once(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        for i in range(120):
            queue(s, to=f"p{i % 15}@example.org")
    t = RecordingTransport(delay=0.002)  # one shared transport log across all senders
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def sender():
        try:
            start.wait()
            for _ in range(200):
                deliver_due(engine, t, now=T0, limit=7, batch_size=3)
                if len(t.sent) >= 120:
                    break
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=sender) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors
    counts = Counter(t.sent)
    assert len(counts) == 120 and set(counts.values()) == {1}
    rows = all_rows(engine)
    assert all(r.sent_at is not None for r in rows)
    by_recipient: dict[str, list[int]] = {}
    ids = {r.message_id: r for r in rows}
    for mid in t.sent:
        by_recipient.setdefault(ids[mid].to_addr, []).append(ids[mid].id)
    assert all(seq == sorted(seq) for seq in by_recipient.values())  # per-recipient order kept


# --------------------------------------------------------------------------------------------------
# the sweep is found by an index
# --------------------------------------------------------------------------------------------------


def test_due_rows_are_found_by_an_index(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        for i in range(3000):
            s.add(
                OutboxMail(
                    from_addr="a@b",
                    to_addr=f"p{i % 50}@x.org",
                    subject="s",
                    text_body="t",
                    message_id=f"<{i}@x>",
                    created_at=T0,
                    send_after=T0,
                    sent_at=T0,
                )
            )
        queue(s, 3)
    from sqlalchemy.dialects import postgresql, sqlite

    t = OutboxMail.__table__.c
    query = select(t.id).where(delivery._due_condition(T0 + timedelta(seconds=1))).order_by(t.id).limit(10)
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            sql = str(query.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
            plan = " | ".join(str(r[-1]) for r in c.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
            assert "ix_outbox_due" in plan or "ix_outbox_to_unsent" in plan, plan
            assert "SCAN outbox " not in plan + " " and not plan.startswith("SCAN outbox"), plan
        else:
            c.execute(text("ANALYZE outbox"))
            sql = str(query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
            plan = " | ".join(r[0] for r in c.execute(text("EXPLAIN " + sql)))
            assert "ix_outbox_due" in plan, plan
            assert "Seq Scan on outbox" not in plan, plan
    assert deliver_due(engine, RecordingTransport(), now=T0 + timedelta(seconds=1)) == 3


# --------------------------------------------------------------------------------------------------
# background sender
# --------------------------------------------------------------------------------------------------


def _wait_for(pred, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def test_background_sender_delivers_and_stops(sqlite_only, monkeypatch):  # noqa: F811
    app = Flask("t")
    app.config.update(DEV_MAILBOX=True, MAIL_URL=None, MAIL_FROM="S <s@x.example>", BASE_URL="http://x")
    app.extensions["skyjo_db"] = sqlite_only
    monkeypatch.delenv("WERKZEUG_RUN_MAIN", raising=False)
    sender = start_background_sender(app, interval=30)
    try:
        assert sender is not None and sender.running
        assert start_background_sender(app) is sender  # never twice
        with Session(sqlite_only, expire_on_commit=False) as s, s.begin():
            queue(s, now=utcnow())
        wake_background_sender(app)
        assert _wait_for(lambda: all(r.sent_at for r in all_rows(sqlite_only)))
        assert all_rows(sqlite_only)[0].transport == "dev"
    finally:
        stop_background_sender(app)
        mail_config._configured = None
    assert not sender.running and "outbox_sender" not in app.extensions


def test_background_sender_respects_the_reloader_and_refuses_to_lose_mail(sqlite_only, monkeypatch):  # noqa: F811
    app = Flask("t")
    app.config.update(DEV_MAILBOX=True)
    app.extensions["skyjo_db"] = sqlite_only
    monkeypatch.delenv("WERKZEUG_RUN_MAIN", raising=False)
    assert start_background_sender(app, use_reloader=True) is None  # the reloader's watcher process
    monkeypatch.setenv("WERKZEUG_RUN_MAIN", "true")
    sender = start_background_sender(app, use_reloader=True)  # the serving child
    try:
        assert sender is not None and sender.running
    finally:
        stop_background_sender(app)
        mail_config._configured = None
    prod = Flask("p")
    prod.config.update(MAIL_URL=None, DEV_MAILBOX=False)
    prod.extensions["skyjo_db"] = sqlite_only
    with pytest.raises(RuntimeError):
        start_background_sender(prod, use_reloader=False)


def test_stopping_the_sender_mid_sweep_finishes_the_mail_and_leaves_no_claim(engine):  # noqa: F811
    """Issue 20.8: a stopped sender (SIGTERM) left its claimed rows to wait out the lease. Now the
    mail being sent is finished and marked, the rest released: the next sender goes on at once."""
    with Session(engine, expire_on_commit=False) as s, s.begin():
        for i in range(30):
            queue(s, to=f"p{i % 3}@example.org", now=utcnow())
    t = RecordingTransport(delay=0.05)
    sender = BackgroundSender(engine, t, interval=30).start()
    assert _wait_for(lambda: len(t.sent) >= 3)
    started = time.monotonic()
    sender.stop()
    assert not sender.running and time.monotonic() - started < 2
    rows = all_rows(engine)
    assert all(r.claimed_by is None and r.claimed_until is None for r in rows)
    assert {r.message_id for r in rows if r.sent_at is not None} == set(t.sent)  # each sent mail marked
    assert 3 <= len(t.sent) < 30
    assert deliver_due(engine, RecordingTransport()) == 30 - len(t.sent)  # no lease to wait out


def test_background_sender_survives_a_broken_database(tmp_path, caplog):
    from sqlalchemy import create_engine

    broken = create_engine(f"sqlite:///{tmp_path}/missing-dir/x.db")
    sender = BackgroundSender(broken, DevTransport(), interval=0.01)
    with caplog.at_level(logging.ERROR, logger="service.mail.sender"):
        sender.start()
        assert _wait_for(lambda: sender.sweeps >= 2)
        sender.stop()
    assert not sender.running
    assert "sweep failed (OperationalError)" in caplog.text


# --------------------------------------------------------------------------------------------------
# nothing hidden in logs
# --------------------------------------------------------------------------------------------------


def test_logs_and_errors_hold_no_secrets(engine, caplog):  # noqa: F811
    secret_link = "https://skyjo.example/s/SECRET-TOKEN-123/move/take"
    t = RecordingTransport()
    with Session(engine, expire_on_commit=False) as s, s.begin():
        (row,) = queue(
            s,
            text=f"take: {secret_link}",
            html=f"<a href='{secret_link}'>take</a>",
            unsubscribe_url="https://skyjo.example/u/SECRET-TOKEN-123",
        )
    t.fail[row.message_id] = [ValueError("bad")]
    with caplog.at_level(logging.DEBUG, logger="service.mail"):
        deliver_due(engine, t, now=T0)
        deliver_due(engine, t, now=T0 + timedelta(hours=1))
    assert t.sent == [row.message_id]
    assert "SECRET-TOKEN-123" not in caplog.text
    assert "SECRET-TOKEN-123" not in repr(row) and "SECRET-TOKEN-123" not in str(row)
    with pytest.raises(ValueError):
        SmtpTransport("smtp://user:pw-SECRET@mail.example:25")  # no clear-text password
    tr = SmtpTransport("smtp://user:pw%40SECRET@mail.example:587")
    assert "SECRET" not in repr(tr) and tr.starttls and tr.port == 587
    assert tr._password == "pw@SECRET"


def test_transport_urls():
    t = SmtpTransport("smtps://u:p@mail.example")
    assert t.implicit_tls and t.port == 465 and not t.starttls
    t = SmtpTransport("smtp://mail.example:2525?starttls=1&timeout=5")
    assert t.starttls and t.timeout == 5.0 and t.username is None
    t = SmtpTransport("smtp://127.0.0.1:1025")
    assert not t.starttls
    with pytest.raises(ValueError):
        SmtpTransport("http://mail.example")
    assert isinstance(transport_from_url(None), DevTransport)
    assert isinstance(transport_from_url("smtp://h:587"), SmtpTransport)


def test_utcnow_is_naive_utc():
    now = utcnow()
    assert now.tzinfo is None
    assert abs(datetime.now(UTC).replace(tzinfo=None) - now) < timedelta(seconds=5)


def test_senders_and_writers_together_on_the_service_sqlite_engine(tmp_path):
    """With service.store.db's own SQLite engine (explicit BEGIN, WAL, busy timeout): moves queueing mail
    while two senders sweep never hit "database is locked", and every mail goes exactly once."""
    from service.store.db import _immediate, make_engine

    eng = make_engine(f"sqlite:///{tmp_path}/svc.sqlite3")
    OutboxMail.__table__.create(eng)
    MailBlockRow.__table__.create(eng)  # queueing reads the block list (issue 29)
    t = RecordingTransport(delay=0.001)
    errors: list[BaseException] = []
    done = threading.Event()

    def writer():
        try:
            for i in range(60):
                token = _immediate.set(True)  # what db.transaction(write=True) does
                try:
                    with Session(eng, expire_on_commit=False) as s, s.begin():
                        queue(s, to=f"p{i % 4}@example.org", now=utcnow())
                finally:
                    _immediate.reset(token)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)
        finally:
            done.set()

    def sender():
        try:
            deadline = time.monotonic() + 60
            while len(t.sent) < 60 and time.monotonic() < deadline:
                if deliver_due(eng, t, limit=5, batch_size=2) == 0:
                    time.sleep(0.005)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=f) for f in (writer, sender, sender)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    eng.dispose()
    assert not errors, errors
    counts = Counter(t.sent)
    assert len(counts) == 60 and set(counts.values()) == {1}


# --------------------------------------------------------------------------------------------------
# intents: queued small, rendered by the sender
# --------------------------------------------------------------------------------------------------


def intent(session, n: int = 1, to: str = "ann@example.org", template: str = "turn") -> None:
    for i in range(n):
        outbox.insert_mail(
            session,
            to_addr=to,
            to_name="Ann",
            subject="SKYJO with Bo",
            template=template,
            context={"n": i},
            config=CFG,
            now=T0,
        )


def test_intent_is_rendered_when_claimed_and_stored_with_the_send(engine):  # noqa: F811
    calls = []

    def renderer(template, context):
        calls.append((template, context["n"]))
        return f"text {context['n']}", f"<style>p {{ color: red }}</style><p>html {context['n']}</p>"

    with pytest.raises(RuntimeError):
        with Session(engine, expire_on_commit=False) as s, s.begin():
            intent(s)
            raise RuntimeError("stale version")  # rolled back: the intent is gone with the move
    assert all_rows(engine) == []
    with Session(engine, expire_on_commit=False) as s, s.begin():
        intent(s, 2)
    (first, second) = all_rows(engine)
    assert first.text_body is None and first.html_body is None and first.template == "turn"

    class Capture(RecordingTransport):
        def send(self, msg):
            self.bodies = getattr(self, "bodies", []) + [msg.as_bytes()]
            super().send(msg)

    t = Capture()
    assert deliver_due(engine, t, now=T0, renderer=renderer) == 2
    assert calls == [("turn", 0), ("turn", 1)]
    rows = all_rows(engine)
    assert [r.text_body for r in rows] == ["text 0", "text 1"]
    assert '<p style="color: red;">html 0' in rows[0].html_body  # CSS inlined at render time too
    assert rows[0].context is None  # the bodies replace the context
    assert b"text 0" in t.bodies[0] and t.sent == [first.message_id, second.message_id]


def test_render_failure_backs_off_and_keeps_the_mail_and_the_order(engine, caplog):  # noqa: F811
    state = {"broken": True}

    def renderer(template, context):
        if state["broken"] and context["n"] == 0:
            raise KeyError("secret-looking detail")
        return f"text {context['n']}", None

    with Session(engine, expire_on_commit=False) as s, s.begin():
        intent(s, 2)
    t = RecordingTransport()
    with caplog.at_level(logging.WARNING, logger="service.mail"):
        assert deliver_due(engine, t, now=T0, renderer=renderer) == 0  # the 2nd waits behind the 1st
    first = all_rows(engine)[0]
    assert first.attempts == 1 and first.text_body is None and "RenderFailed" in first.last_error
    assert "secret-looking" not in caplog.text
    state["broken"] = False
    t.down = True  # rendered, but the server is down: the bodies are kept with the back-off
    assert deliver_due(engine, t, now=T0 + timedelta(minutes=5), renderer=renderer) == 0
    first = all_rows(engine)[0]
    assert first.attempts == 2 and first.text_body == "text 0" and first.context is None
    t.down = False
    assert deliver_due(engine, t, now=T0 + timedelta(hours=2), renderer=renderer) == 2
    assert [r.text_body for r in all_rows(engine)] == ["text 0", "text 1"]


def test_no_renderer_means_no_send_and_no_loss(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        intent(s)
    assert deliver_due(engine, RecordingTransport(), now=T0) == 0
    (row,) = all_rows(engine)
    assert row.sent_at is None and row.attempts == 1 and row.template == "turn"


def test_render_pending_fills_bodies_without_sending(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s, s.begin():
        intent(s, 3)
        queue(s)  # a mail queued with its bodies is left alone
    assert outbox.render_pending(engine, lambda tpl, ctx: (f"t{ctx['n']}", None)) == 3
    rows = all_rows(engine)
    assert [r.text_body for r in rows] == ["t0", "t1", "t2", "text 0"]
    assert all(r.sent_at is None for r in rows)


def test_a_mail_has_either_bodies_or_a_template():
    with pytest.raises(ValueError):
        outbox.mail_values(to_addr="a@b.org", to_name="A", subject="s", config=CFG)
    with pytest.raises(ValueError):
        outbox.mail_values(to_addr="a@b.org", to_name="A", subject="s", text="t", template="turn", config=CFG)


def test_intents_of_a_transaction_are_written_at_commit_and_dropped_with_it(engine):  # noqa: F811
    with Session(engine, expire_on_commit=False) as s:
        intent(s, 2)
        s.rollback()  # dropped: a later transaction of the same session does not write them
        with s.begin():
            intent(s, 1, to="bo@example.org")
    with Session(engine, expire_on_commit=False) as s:
        intent(s, 3)  # closed without commit: gone too
    with Session(engine, expire_on_commit=False) as s:
        s.begin()
        intent(s, 1, to="cy@example.org")
        s.close()
    rows = all_rows(engine)
    assert [r.to_addr for r in rows] == ["bo@example.org"]
    with Session(engine, expire_on_commit=False) as s, s.begin():  # order kept with ORM-queued rows
        intent(s, 1, to="di@example.org")
        queue(s, to="di@example.org")
        intent(s, 1, to="di@example.org")
    di = [r for r in all_rows(engine) if r.to_addr == "di@example.org"]
    assert [r.template for r in di] == ["turn", None, "turn"]
