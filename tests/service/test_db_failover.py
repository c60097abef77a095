"""A database failover shows no error page (issue 34.4c), on PostgreSQL: the app's backends are
terminated (`pg_terminate_backend` from a second connection) between requests, and during a request
(right before one of its statements), and the pages and the move still answer as without it: no 500,
the move played once."""

from __future__ import annotations

import secrets

import pytest
from sqlalchemy import create_engine, event, text

from service.store import db
from tests.conftest import make_app
from tests.service import helpers as h
from tests.service.test_decision_links import ANN, link, start

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_app(pg_schema_url):
    name = f"skyjo_failover_{secrets.token_hex(4)}"
    app = make_app(f"{pg_schema_url}&application_name={name}")
    admin = create_engine(pg_schema_url)
    yield app, admin, name
    db.get_engine(app).dispose()
    admin.dispose()


def _terminate(admin, name: str, pid: int | None = None) -> int:
    """Terminate the app's backends (or the one with `pid`); how many."""
    where = "pid = :pid" if pid is not None else "application_name = :name AND pid <> pg_backend_pid()"
    with admin.begin() as c:
        return len(c.execute(text(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {where}"),
                             {"pid": pid, "name": name}).all())


def test_pages_and_moves_after_the_apps_backends_were_terminated_between_requests(pg_app):
    app, admin, name = pg_app
    client = app.test_client()
    game = start(app, client)
    before = h.game_state(app, game.id)[0]
    board = link(app, ANN, "reveal-a1").split("/m/")[0]
    assert client.get(board).status_code == 200
    assert _terminate(admin, name) >= 1
    assert client.get(board).status_code == 200
    _terminate(admin, name)
    assert h.confirm(client, link(app, ANN, "reveal-a1")).status_code == 303
    assert h.game_state(app, game.id)[0] == before + 1  # played once


def test_a_request_whose_backend_is_terminated_during_it_runs_once_more(pg_app):
    app, admin, name = pg_app
    client = app.test_client()
    game = start(app, client)
    before = h.game_state(app, game.id)[0]
    path = link(app, ANN, "reveal-a1")
    fields = h.confirm_fields(client.get(path).text)
    armed = {"kills": 0, "statement": "UPDATE game"}

    @event.listens_for(db.get_engine(app), "before_cursor_execute")
    def _kill_once(conn, _cursor, statement, *_args):
        if armed["kills"] == 0 and statement.lstrip().upper().startswith(armed["statement"].upper()):
            armed["kills"] += 1
            _terminate(admin, name, conn.connection.dbapi_connection.info.backend_pid)

    r = client.post(path, data=fields)
    assert armed["kills"] == 1
    assert r.status_code == 303, r.status_code
    assert h.game_state(app, game.id)[0] == before + 1  # played once
    # and a page's read: terminated before its first SELECT
    armed.update(kills=0, statement="SELECT")
    assert client.get(path.split("/m/")[0]).status_code == 200
    assert armed["kills"] == 1
