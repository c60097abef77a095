"""`service.store.direct`: Core statements on the driver's cursor read and write exactly what
`conn.execute` does (JSON, datetimes, the statement's own literals), raise SQLAlchemy's exceptions,
fall back when SQLAlchemy is needed or watched, and on PostgreSQL `batch` sends statements together
(psycopg's pipeline mode) without changing what they do. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import bindparam, event, exc, insert, select

from service.clock import core as clock
from service.play import usecases
from service.store import db, tokens
from service.store.clock_models import Deadline
from service.store.direct import batch, direct
from service.store.models import GameRow, MoveRow
from tests.service.test_move_path import opening_slug, start

_MOVES = insert(MoveRow.__table__).inline()
_GAME = select(GameRow.__table__.c.id, GameRow.__table__.c.state, GameRow.__table__.c.version,
               GameRow.__table__.c.updated_at).where(GameRow.__table__.c.id == bindparam("game_id"))


def _move_row(game_id: str, number: int, *, created_at: datetime | None = None, events=None) -> dict:
    row = {"game_id": game_id, "number": number, "seat": 0, "move": "reveal A1", "version_before": number - 1,
           "events": events}
    if created_at is not None:
        row["created_at"] = created_at
    return row


def test_direct_reads_what_execute_reads(app):
    """Rows with JSON, datetimes, booleans, and a UNION whose literal `row_kind` binds the caller
    never names (clock._CLOCK_OF_GAME)."""
    game_id, seat_tokens = start(app)
    token_hash = tokens.hash_token(seat_tokens[0])
    with app.app_context(), db.transaction() as s:
        conn = s.connection()
        for stmt, params in ((usecases._SEAT_SNAPSHOTS_OF_TOKEN, {"token_hash": token_hash}),
                             (clock._CLOCK_OF_GAME, {"game_id": game_id}),
                             (_GAME, {"game_id": game_id})):
            expected = [tuple(r) for r in conn.execute(stmt, params)]
            got = direct(conn, stmt, params).rows
            assert got == expected and len(got) >= 1
            assert [type(v) for v in got[0]] == [type(v) for v in expected[0]]
        state = direct(conn, _GAME, {"game_id": game_id}).rows[0][1]
        assert isinstance(state, dict) and state["version"] == 0  # JSON came back as data


def test_direct_writes_what_execute_reads_back(app):
    game_id, _tokens = start(app)
    when = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
    with app.app_context():
        with db.transaction(write=True) as s:
            conn = s.connection()
            state = direct(conn, _GAME, {"game_id": game_id}).rows[0][1]
            state["marker"] = {"é": [1, 2, None]}
            res = direct(conn, usecases._SAVE_GAME, {"game_id": game_id, "before": 0, "state": state,
                                                      "version": 1, "updated_at": when, "status": "active"})
            assert res.rowcount == 1
            assert direct(conn, usecases._SAVE_GAME, {"game_id": game_id, "before": 0, "state": state, "version": 1,
                                                       "updated_at": when, "status": "active"}).rowcount == 0
            direct(conn, _MOVES, [_move_row(game_id, 1, created_at=when, events=[{"type": "x"}]),
                                  _move_row(game_id, 2, created_at=when + timedelta(seconds=1))])
        with db.transaction() as s:
            game = s.get(GameRow, game_id)
            assert (game.version, game.state["marker"]) == (1, {"é": [1, 2, None]})
            assert game.updated_at.replace(tzinfo=UTC) == when
            moves = s.exec(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.number)).scalars().all()
            assert [(m.number, m.events) for m in moves] == [(1, [{"type": "x"}]), (2, None)]
            assert moves[1].created_at.replace(tzinfo=UTC) == when + timedelta(seconds=1)


def test_statement_that_needs_sqlalchemy_falls_back(app):
    """A missing column with a Python-side default (created_at) is filled in as SQLAlchemy would."""
    game_id, _tokens = start(app)
    with app.app_context():
        with db.transaction(write=True) as s:
            direct(s.connection(), _MOVES, [_move_row(game_id, 1)])
        with db.transaction() as s:
            move = s.exec(select(MoveRow).where(MoveRow.game_id == game_id)).scalars().one()
            assert move.created_at is not None


def test_driver_errors_are_sqlalchemy_errors(app):
    game_id, _tokens = start(app)
    with app.app_context():
        with pytest.raises(exc.IntegrityError), db.transaction(write=True) as s:
            conn = s.connection()
            direct(conn, _MOVES, [_move_row(game_id, 1, created_at=datetime.now(UTC))])
            direct(conn, _MOVES, [_move_row(game_id, 1, created_at=datetime.now(UTC))])
        with pytest.raises(exc.IntegrityError), db.transaction(write=True) as s:
            conn = s.connection()
            with batch(conn):  # PostgreSQL: the error arrives with the batch's answers
                direct(conn, _MOVES, [_move_row(game_id, 1, created_at=datetime.now(UTC))] * 2)
        with db.transaction() as s:  # both transactions rolled back
            assert s.exec(select(MoveRow).where(MoveRow.game_id == game_id)).scalars().all() == []


def test_batch_sends_together_and_reads_its_own_writes(app, db_url):
    game_id, _tokens = start(app)
    now = datetime.now(UTC)
    modes = []
    with app.app_context():
        with db.transaction(write=True) as s:
            conn = s.connection()
            raw = conn.connection.driver_connection
            open_rows = clock.game_clock(s, game_id)[1]
            assert len(open_rows) == 2  # the opening: both seats reveal
            with batch(conn):
                modes.append(getattr(getattr(raw, "pgconn", None), "pipeline_status", None))
                saved = direct(conn, usecases._SAVE_GAME, {"game_id": game_id, "before": 0, "state": {"v": 1},
                                                           "version": 1, "updated_at": now, "status": "active"})
                direct(conn, clock._CLOSE_ONE, [{"row_id": r.id, "closed_at": now} for r in open_rows])
                still_open = clock.game_clock(s, game_id)[1]  # a read inside: sees the writes before it
            assert saved.rowcount == 1 and still_open == []
        with db.transaction() as s:
            assert s.get(GameRow, game_id).version == 1
            closed = s.exec(select(Deadline).where(Deadline.game_id == game_id)).scalars().all()
            assert [d.outcome for d in closed] == ["made", "made"]
    if db_url.startswith("postgresql"):
        assert modes[0] and int(modes[0]) != 0  # psycopg was in pipeline mode inside the block
    else:
        assert modes == [None]


def test_observed_statements_go_through_sqlalchemy(app):
    """A statement counter (tests, bench/clock.py) or SQL logging sees every `direct` statement."""
    game_id, _tokens = start(app)
    seen: list[str] = []
    with app.app_context():
        engine_ = db.get_engine()

        def record(conn, cursor, statement, *args):
            seen.append(statement)

        event.listen(engine_, "before_cursor_execute", record)
        try:
            with db.transaction() as s:
                conn = s.connection()
                with batch(conn):
                    rows = direct(conn, _GAME, {"game_id": game_id}).rows
        finally:
            event.remove(engine_, "before_cursor_execute", record)
    assert rows and any("FROM game" in q for q in seen)


def test_lean_move_through_direct_and_batch_on_both_databases(app):
    """The whole move (version UPDATE, move log, clock read in one batch, deadlines and mails in
    another) leaves the rows `play` leaves: see test_move_path; here the deadlines themselves."""
    game_id, seat_tokens = start(app)
    with app.app_context():
        with db.transaction(write=True) as s:
            usecases.play(s, seat_tokens[0], opening_slug(0), 0, form_game=game_id, form_seat=0)
        with db.transaction() as s:
            rows = s.exec(select(Deadline).where(Deadline.game_id == game_id).order_by(Deadline.id)).scalars().all()
    # the mover's reveal closed, Bo's still open, the mover's second reveal opened
    assert [(d.seat, d.kind, d.outcome) for d in rows] == [(0, "reveal", "made"), (1, "reveal", None),
                                                           (0, "reveal", None)]
