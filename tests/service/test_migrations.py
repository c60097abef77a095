"""`alembic upgrade head` then `alembic check` on SQLite and PostgreSQL: the migrations create exactly
the tables the models describe (ours and the outbox)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.conftest import PG_URL, _pg_unavailable

ROOT = Path(__file__).resolve().parents[2]


def _alembic(url: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DATABASE_URL=url)
    return subprocess.run([sys.executable, "-m", "alembic", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_db(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrate.sqlite3'}"
        return
    from sqlalchemy import create_engine, text

    schema = f"m_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        admin = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # noqa: BLE001
        _pg_unavailable(type(exc).__name__)
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


def test_upgrade_head_then_check(empty_db):
    up = _alembic(empty_db, "upgrade", "head")
    assert up.returncode == 0, up.stderr
    check = _alembic(empty_db, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No new upgrade operations detected" in check.stdout + check.stderr
    down = _alembic(empty_db, "downgrade", "base")
    assert down.returncode == 0, down.stderr


def test_db_upgrade_command(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    env = dict(os.environ, DATABASE_URL=url)
    r = subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    again = _alembic(url, "check")
    assert again.returncode == 0, again.stdout + again.stderr


def test_downgrade_puts_the_event_log_back_into_the_state(empty_db):
    """98a9ca195f1b moved each decision's events to its move row; going back must not lose them."""
    import random

    from sqlalchemy import select

    from service.store.models import GameRow
    from tests.conftest import make_app
    from tests.service import helpers as h

    assert _alembic(empty_db, "upgrade", "head").returncode == 0
    app = make_app(empty_db)  # recreates the same tables; alembic_version stays at head
    client = app.test_client()
    h.new_game(client)
    h.accept_all(app, client)
    game = h.only_game(app)
    rng = random.Random(3)
    for _ in range(12):  # a few decisions by mail links (each address's newest mail; those still good)
        newest = {m.to_addr: h.move_links(m) for m in h.mails(app) if h.move_links(m)}
        links = [p for ps in newest.values() for p in ps[:3] if 'data-action="confirm"' in client.get(p).text]
        if not links:
            break
        h.confirm(client, rng.choice(links))
    full = h.full_state(app, game.id)
    assert len(h.game_state(app, game.id)[1]["log"]) < len(full["log"])
    from service.store import db

    db.get_engine(app).dispose()
    down = _alembic(empty_db, "downgrade", "05bb9ae58347")
    assert down.returncode == 0, down.stderr
    from sqlalchemy import create_engine

    eng = create_engine(empty_db)
    with eng.connect() as conn:
        state = conn.execute(select(GameRow.__table__.c.state).where(GameRow.__table__.c.id == game.id)).scalar()
    eng.dispose()
    assert state["log"] == full["log"]


def test_upgrade_turns_a_held_decision_into_its_deadline_row(empty_db):
    """3d5e7a1c9b42 drops the game row's held decision (8b199e953917): a decision held when it runs
    becomes the `clock_deadline` row it stood for (same deadline, reminders, next event), and a
    decision the table already has an open row for is not inserted twice."""
    import sqlalchemy as sa

    assert _alembic(empty_db, "upgrade", "8b199e953917").returncode == 0
    held = {"game_id": "g1", "seat": 1, "kind": "turn", "version": 7, "policy": "bot", "decision_seconds": 172800,
            "reminders_left": [86400, 14400], "reminders_sent": 0, "created_at": "2026-12-01T10:00:00",
            "deadline_at": "2026-12-03T10:00:00", "next_at": "2026-12-02T10:00:00", "next_event": "reminder",
            "vacation_until": None, "paused_remaining_s": None, "bot_played": False, "attempts": 0}
    game = sa.table("game", *(sa.column(c) for c in (
        "id", "status", "variant", "options", "decision_hours", "reminder_hours", "timeout_policy", "title",
        "version", "setup", "spectator_salt", "created_at", "updated_at")), sa.column("clock_held", sa.JSON),
        sa.column("clock_next_at", sa.DateTime), sa.column("clock_rows", sa.Boolean))
    deadline = sa.table("clock_deadline", sa.column("game_id"), sa.column("seat"), sa.column("kind"),
                        sa.column("version"), sa.column("deadline_at", sa.DateTime), sa.column("next_at", sa.DateTime),
                        sa.column("next_event"), sa.column("reminders_left", sa.JSON), sa.column("fired_at"),
                        sa.column("policy"), sa.column("decision_seconds"), sa.column("reminders_sent"),
                        sa.column("created_at", sa.DateTime), sa.column("bot_played", sa.Boolean),
                        sa.column("attempts"))
    from datetime import datetime

    eng = sa.create_engine(empty_db)
    common = {"status": "active", "variant": "classic", "options": "{}", "decision_hours": 48,
              "reminder_hours": "[24, 4]", "timeout_policy": "bot", "title": "t", "version": 7, "setup": "{}",
              "spectator_salt": "x", "created_at": datetime(2026, 12, 1), "updated_at": datetime(2026, 12, 1)}
    with eng.begin() as conn:
        conn.execute(sa.insert(game).values(id="g1", clock_held=held, clock_next_at=datetime(2026, 12, 2, 10),
                                            clock_rows=False, **common))
        # g2 holds a decision the table has an open row for already: it stays one row
        conn.execute(sa.insert(game).values(id="g2", clock_held=dict(held, game_id="g2"),
                                            clock_next_at=datetime(2026, 12, 2, 10), clock_rows=True, **common))
        conn.execute(sa.insert(deadline).values(
            game_id="g2", seat=1, kind="turn", version=7, policy="bot", decision_seconds=172800,
            reminders_left=[], reminders_sent=0, created_at=datetime(2026, 12, 1), deadline_at=datetime(2026, 12, 9),
            next_at=datetime(2026, 12, 9), next_event="timeout", bot_played=False, attempts=0))
    eng.dispose()
    up = _alembic(empty_db, "upgrade", "head")
    assert up.returncode == 0, up.stderr
    eng = sa.create_engine(empty_db)
    with eng.connect() as conn:
        rows = conn.execute(sa.select(deadline.c.game_id, deadline.c.seat, deadline.c.kind, deadline.c.version,
                                      deadline.c.deadline_at, deadline.c.next_at, deadline.c.next_event,
                                      deadline.c.reminders_left)
                            .where(deadline.c.fired_at.is_(None)).order_by(deadline.c.game_id)).all()
        columns = {c["name"] for c in sa.inspect(conn).get_columns("game")}
    eng.dispose()
    assert [tuple(r) for r in rows] == [
        ("g1", 1, "turn", 7, datetime(2026, 12, 3, 10), datetime(2026, 12, 2, 10), "reminder", [86400, 14400]),
        ("g2", 1, "turn", 7, datetime(2026, 12, 9), datetime(2026, 12, 9), "timeout", []),
    ]
    assert not columns & {"clock_held", "clock_next_at", "clock_rows"}
