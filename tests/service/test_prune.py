"""Retention (issue 29.5, issue 34.4a): after MAIL_KEEP_DAYS a sent mail keeps no body, context or
working link (its row, Message-ID and threading headers stay); after GAME_KEEP_DAYS a finished
game's mails are gone; unsent mail is never touched; two workers pruning at once do it once. On
SQLite and PostgreSQL (the `app` fixture)."""

from __future__ import annotations

import threading
from datetime import UTC, timedelta

from sqlalchemy import update
from sqlmodel import select

from service.cli import main
from service.clock import scheduler
from service.mail.delivery import deliver_due
from service.mail.retention import Pruned, prune
from service.mail.transport import DevTransport
from service.play import games
from service.store import db
from service.store.models import GameRow
from service.store.outbox_models import OutboxMail, utcnow

DAY = timedelta(days=1)


def start_game(app, n: int, deliver: bool = True) -> tuple[str, list[str]]:
    """A dealt two-player game: its mails (invitation, acceptance, the deal's turns) delivered."""
    with app.app_context(), db.transaction(write=True) as s:
        created = games.create_game(s, host_name="Ann", host_email=f"ann{n}@example.com",
                                       players=[("Bo", f"bo{n}@example.com")], setup={"seed": f"prune-{n}"})
        games.accept(s, created.tokens[1])
        game_id, tokens = created.game.id, list(created.tokens.values())
    if deliver:
        with app.app_context():
            deliver_due(db.get_engine(app), DevTransport(), limit=1000)
    return game_id, tokens


def outbox(app) -> list[OutboxMail]:
    with app.app_context(), db.transaction() as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)))


def age(app, days: float, *, game: str | None = None) -> None:
    """Move the sent rows (of `game`, or all) `days` into the past."""
    with app.app_context(), db.transaction(write=True) as s:
        for row in s.exec(select(OutboxMail).where(OutboxMail.sent_at.is_not(None))):
            if game is None or row.game_ref == game:
                row.sent_at -= timedelta(days=days)


def end(app, game_id: str, days_ago: float, status: str = "finished") -> None:
    with app.app_context(), db.transaction(write=True) as s:
        s.execute(update(GameRow).where(GameRow.id == game_id)
                  .values(status=status, updated_at=(utcnow() - timedelta(days=days_ago)).replace(tzinfo=UTC)))


def holds_a_link(row: OutboxMail, tokens: list[str]) -> bool:
    """Does anything stored in the row hold a seat's token or a reply address?"""
    stored = " ".join(str(getattr(row, c.name)) for c in OutboxMail.__table__.columns)
    return any(tok in stored for tok in tokens) or "play+" in stored


def test_old_mails_keep_no_link_and_a_finished_game_s_mails_go(app):
    live, live_tokens = start_game(app, 1)
    over, over_tokens = start_game(app, 2)
    recent, _ = start_game(app, 3)
    age(app, 20, game=live)  # sent 20 days ago: bodies go, rows stay
    age(app, 40, game=over)
    end(app, over, days_ago=31)  # over for 31 days: its rows go
    start_game(app, 5, deliver=False)  # unsent mails are never touched
    with app.app_context(), db.transaction(write=True) as s:  # a held mail dropped unsent 20 days ago
        dropped = s.exec(select(OutboxMail).where(OutboxMail.game_ref == live).order_by(OutboxMail.id.desc())).first()
        dropped.transport = "dropped"
        dropped_id = dropped.id
    before = {r.id: r for r in outbox(app)}
    assert all(holds_a_link(r, live_tokens) for r in before.values() if r.game_ref == live)

    with app.app_context():
        done = prune(db.get_engine(app), mail_keep_days=14, game_keep_days=30, batch=3)
    after = {r.id: r for r in outbox(app)}

    gone = [i for i, r in before.items() if r.game_ref == over] + [dropped_id]
    stripped = [i for i, r in before.items() if r.game_ref == live and r.sent_at is not None and i != dropped_id]
    assert gone and stripped and done == Pruned(bodies=len(stripped), rows=len(gone))
    assert not set(gone) & set(after)
    for i in stripped:
        row, was = after[i], before[i]
        assert row.text_body is None and row.html_body is None and row.context is None
        assert not holds_a_link(row, live_tokens)
        assert set(row.headers) <= {"In-Reply-To", "References"} and "List-Unsubscribe" in was.headers
        assert (row.message_id, row.subject, row.sent_at, row.to_addr, row.headers.get("References")) == (
            was.message_id, was.subject, was.sent_at, was.to_addr, was.headers.get("References"))
    for i, was in before.items():
        if was.game_ref == recent or was.sent_at is None:  # sent today, or not sent: as they were
            assert after[i].text_body == was.text_body and after[i].headers == was.headers
    with app.app_context():  # once: a second prune finds nothing
        assert prune(db.get_engine(app), mail_keep_days=14, game_keep_days=30) == Pruned(0, 0)


def test_a_cancelled_game_and_mails_of_no_game(app):
    game_id, _tokens = start_game(app, 4)
    end(app, game_id, days_ago=3, status="cancelled")
    age(app, 5)
    with app.app_context():
        assert prune(db.get_engine(app), mail_keep_days=14, game_keep_days=30) == Pruned(0, 0)
        n = len(outbox(app))
        assert prune(db.get_engine(app), mail_keep_days=1, game_keep_days=2).rows == n
    assert outbox(app) == []


def test_two_workers_pruning_at_once_prune_each_row_once(app):
    for n in range(3):
        start_game(app, 10 + n)
    age(app, 20)
    total = sum(1 for r in outbox(app) if r.sent_at is not None)
    results: list[Pruned] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def worker():
        try:
            barrier.wait(5)
            with app.app_context():
                results.append(prune(db.get_engine(app), mail_keep_days=14, batch=2))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert sum(r.bodies for r in results) == total
    assert all(r.text_body is None for r in outbox(app) if r.sent_at is not None)


def test_prune_command_and_the_daily_job(app, db_url, monkeypatch, capsys):
    start_game(app, 20)
    age(app, 15)
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("SKYJO_ENV", "development")
    monkeypatch.setenv("SECRET_KEY", "k" * 40)
    monkeypatch.delenv("MAIL_KEEP_DAYS", raising=False)
    assert main(["prune"]) == 0
    out = capsys.readouterr().out
    sent = sum(1 for r in outbox(app) if r.sent_at is not None)
    assert f"mail bodies dropped: {sent}, outbox rows deleted: 0" in out and sent

    start_game(app, 21)  # the worker's (and serve's) scheduler prunes daily with the app's settings
    age(app, 20)
    sched = scheduler._scheduler(scheduler.BackgroundScheduler, lambda: None, 30, app=app)
    job = sched.get_job(scheduler.PRUNE_JOB_ID)
    assert job is not None and job.trigger.interval == scheduler.PRUNE_EVERY
    whole = sum(1 for r in outbox(app) if r.text_body is not None)
    assert whole and job.func() == Pruned(bodies=whole, rows=0)
    assert all(r.text_body is None for r in outbox(app))
    sched = scheduler.start_in_process(app, use_reloader=False)  # `serve`'s clock has the same job
    try:
        assert sched.get_job(scheduler.PRUNE_JOB_ID) is not None
    finally:
        scheduler.stop_in_process()


def test_the_dev_mailbox_shows_a_pruned_mail(app):
    """A mail whose body was dropped still opens in the dev mailbox (headers, no text)."""
    start_game(app, 30)
    age(app, 20)
    with app.app_context():
        assert prune(db.get_engine(app), mail_keep_days=14).bodies
    row = outbox(app)[0]
    client = app.test_client()
    page = client.get(f"/dev/mail/{row.id}")
    assert page.status_code == 200 and row.message_id.strip("<>") in page.text
    assert '<pre class="devmail-text"></pre>' in page.text  # no text left (not "None")
    assert client.get(f"/dev/mail/{row.id}/raw").status_code == 200
