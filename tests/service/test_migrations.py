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
    for _ in range(12):  # a few decisions by mail links
        version, state, _status = h.game_state(app, game.id)
        links = [p for m in h.mails(app) for p in h.move_links(m) if p.endswith(f"?v={version}")]
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
