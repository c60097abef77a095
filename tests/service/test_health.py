"""Health and metrics (issue 31.2): /healthz, /readyz from the tables (migrations at head, a clock
worker's heartbeat, the oldest due mail and deadline), /metrics in Prometheus text behind a bearer
token; and the wake-up of a separate worker process by PostgreSQL's NOTIFY at the commit."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select, text

from service import create_app
from service.cli_service import upgrade_database
from service.clock.heartbeat import beat
from service.clock.scheduler import make_tick_job
from service.play import games
from service.store import db
from service.store.clock_models import Deadline, utcnow
from service.store.models import MoveRow
from service.store.outbox_models import OutboxMail
from service.store.wake import APPLICATION_NAME
from tests.service.test_clock_support import ROOT, pg_schema_url

TOKEN = "metrics-" + secrets.token_hex(8)


def migrated_app(url: str, **extra):
    upgrade_database(url)
    config = {"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": secrets.token_hex(32), "ENV_NAME": "development",
              "BASE_URL": "http://localhost", "METRICS_TOKEN": TOKEN, **extra}
    return create_app(config)


def factory(app):
    return lambda: db.transaction(write=True, app=app)


def metrics(client) -> dict[str, list]:
    r = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and r.mimetype == "text/plain"
    return {f.name: f.samples for f in text_string_to_metric_families(r.text)}


def test_readyz_says_which_check_failed_and_metrics_parse(tmp_path):
    app = migrated_app(f"sqlite:///{tmp_path / 'h.sqlite3'}", READY_MAIL_AGE=60)
    client = app.test_client()
    assert client.get("/healthz").json == {"ok": True}
    r = client.get("/readyz")  # no clock worker ever swept
    assert r.status_code == 503 and r.json["failed"] == ["worker"]
    with app.app_context():
        beat(factory(app), kind="worker", interval=30.0, sweep_s=0.01, name="w1")
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json["ready"] and r.json["workers_alive"] == 1
    # a worker that last swept more than two of its intervals ago is dead
    with app.app_context():
        beat(factory(app), kind="worker", interval=30.0, sweep_s=0.01, name="w1", now=utcnow() - timedelta(seconds=61))
    assert client.get("/readyz").json["failed"] == ["worker"]
    with app.app_context():
        beat(factory(app), kind="serve", interval=5.0, sweep_s=0.02, name="w2")
        with db.transaction(write=True) as s:  # a mail due for two minutes that nobody sends
            s.add(OutboxMail(from_addr="a@example.org", to_addr="b@example.org", subject="x", message_id="<m@x>",
                             send_after=utcnow() - timedelta(minutes=2)))
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json["failed"] == ["mail"] and r.json["oldest_due_mail_s"] >= 120
    with app.app_context(), db.transaction(write=True) as s:  # a database behind the code's migrations
        s.execute(text("UPDATE alembic_version SET version_num = 'f1a9c3e5b7d2'"))
    assert client.get("/readyz").json["failed"] == ["migrations", "mail"]

    found = metrics(client)
    assert [s.value for s in found["skyjo_outbox_backlog"]] == [1.0]
    assert found["skyjo_outbox_oldest_due_seconds"][0].value >= 120
    assert {s.labels["state"]: s.value for s in found["skyjo_mails"]} == {"pending": 1.0}
    assert {s.labels["worker"] for s in found["skyjo_worker_sweep_seconds"]} == {"w1", "w2"}
    assert found["skyjo_migrations_at_head"][0].value == 0.0
    for name in ("skyjo_moves", "skyjo_deadlines_overdue", "skyjo_deadline_oldest_overdue_seconds",
                 "skyjo_worker_heartbeat_age_seconds"):
        assert name in found, name
    # the token: a wrong one is refused; without METRICS_TOKEN there is no /metrics at all
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    app.config["METRICS_TOKEN"] = None
    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_the_clock_job_writes_its_heartbeat_and_the_metrics_count_from_the_tables(tmp_path):
    app = migrated_app(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    with app.app_context(), db.transaction(write=True) as s:
        game_id = games.create_game(s, host_name="Ann", host_email="ann@example.org",
                                    players=[("", "", "normal")], options={"target_score": 1},
                                    setup={"seed": "health-1"}).game.id
    client = app.test_client()
    before = metrics(client)
    assert before["skyjo_deadlines_overdue"][0].value >= 1  # the computer's opening reveal is due now
    assert before["skyjo_moves"][0].value == 0
    job = make_tick_job(factory(app), app.extensions["clock_handlers"], context=app.app_context,
                        heartbeat=("worker", 1.0))
    assert job().computer >= 1
    after = metrics(client)
    with app.app_context(), db.transaction() as s:
        moves = len(s.execute(select(MoveRow).where(MoveRow.game_id == game_id)).all())
    assert moves > 0 and after["skyjo_moves"][0].value == moves
    assert [s.labels["kind"] for s in after["skyjo_worker_sweep_seconds"]] == ["worker"]
    assert client.get("/readyz").status_code == 200


@pytest.mark.postgres
def test_a_separate_worker_with_a_long_tick_plays_a_computer_seat_at_once():
    """The worker ticks every 10 minutes; the transaction that deals the game NOTIFYs at its commit,
    and the worker's LISTEN makes it sweep: the computer's opening reveal is played within seconds."""
    url, drop = pg_schema_url()
    worker = None
    try:
        app = migrated_app(url)
        env = dict(os.environ, DATABASE_URL=url, SECRET_KEY=secrets.token_hex(32), SKYJO_ENV="development",
                   PYTHONPATH=str(ROOT))
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--interval", "600", "--no-mail"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  start_new_session=True)
        eng = db.get_engine(app)
        listening = text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name")
        until = time.monotonic() + 30
        with eng.connect() as conn:  # its first sweep ran and its LISTEN is in force
            while not (conn.execute(listening, {"name": f"{APPLICATION_NAME} {worker.pid}"}).scalar()
                       and conn.execute(text("SELECT count(*) FROM clock_heartbeat")).scalar()):
                assert worker.poll() is None, worker.communicate()[1][-3000:]
                assert time.monotonic() < until, "the worker did not start listening"
                time.sleep(0.05)
                conn.rollback()
        started = time.monotonic()
        with app.app_context(), db.transaction(write=True) as s:
            game_id = games.create_game(s, host_name="Ann", host_email="ann@example.org",
                                        players=[("", "", "normal")], options={"target_score": 1},
                                        setup={"seed": "wake-1"}).game.id
        with eng.connect() as conn:
            while not conn.execute(select(MoveRow.id).where(MoveRow.game_id == game_id, MoveRow.seat == 1)).first():
                assert time.monotonic() - started < 5, "the computer seat waited for the worker's tick"
                time.sleep(0.02)
                conn.rollback()
            took = time.monotonic() - started
            outcomes = set(conn.execute(select(Deadline.outcome).where(Deadline.game_id == game_id,
                                                                       Deadline.seat == 1)).scalars())
        assert "computer" in outcomes  # played by the worker's sweep
        print(f"computer seat moved {took:.2f} s after the commit")
    finally:
        if worker is not None:
            os.killpg(worker.pid, 15)
            worker.wait(timeout=20)
        drop()


def test_a_rate_limit_store_that_does_not_answer_lets_requests_through(caplog):
    """RATELIMIT_STORAGE_URI on a Redis that is down: /links still answers (a 500 would take the
    page down with the store), and the log says the limit was not counted."""
    from tests.service.helpers import csrf_of
    from tests.service.smtp_fixture import free_port

    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "SECRET_KEY": secrets.token_hex(32),
                      "ENV_NAME": "development", "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}/0",
                      "LINKS_ANSWER_SECONDS": 0})
    with app.app_context():
        db.create_all()
    client = app.test_client()
    token = csrf_of(client.get("/links").text)
    r = client.post("/links", data={"csrf_token": token, "email": "nobody@example.org"})
    assert r.status_code == 200
    assert "rate limit store unavailable (ConnectionError)" in caplog.text


def test_readyz_says_database_when_the_database_does_not_answer():
    from tests.service.smtp_fixture import free_port

    app = create_app({"TESTING": True, "DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x",
                      "SECRET_KEY": secrets.token_hex(32), "ENV_NAME": "development"})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200  # liveness needs no database
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json == {"ready": False, "failed": ["database"]}


def test_readyz_on_a_database_that_was_never_migrated(app):
    """Tables made without Alembic (no alembic_version): 'migrations', on SQLite and PostgreSQL (the
    failed read must not spoil the rest of the transaction)."""
    with app.app_context():
        beat(factory(app), kind="worker", interval=30.0, sweep_s=0.0, name="w")
    r = app.test_client().get("/readyz")
    assert r.status_code == 503 and r.json["failed"] == ["migrations"]
