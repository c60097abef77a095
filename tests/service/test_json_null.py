"""JSON None is SQL NULL (issue 34.4b), on SQLite and PostgreSQL: a move row without events, and an
outbox row whose context was replaced by its rendered bodies, hold SQL NULL, so the notify query's
`events IS NOT NULL ... LIMIT` counts decisions, not rows; the migration turns the JSON text 'null' of
older rows into SQL NULL."""

from __future__ import annotations

from sqlalchemy import create_engine, func, text
from sqlmodel import select

from service.mail.delivery import deliver_due
from service.mail.transport import DevTransport
from service.play import reply_service
from service.store import db
from service.store.models import MoveRow
from tests.service.test_decision_links import PLAYERS, finish_opening, start
from tests.service.test_migrations import empty_db, upgrade  # noqa: F401  (fixture)
from tests.service.test_reply_service import latest_reply_mail, reply_to


def _count(app, where: str) -> int:
    with app.app_context(), db.transaction() as s:
        return s.execute(text(f"SELECT count(*) FROM {where}")).scalar()


def test_a_move_row_without_events_stores_sql_null_and_the_notify_query_counts_decisions(app, client):
    game = start(app, client)
    g = finish_opening(app, client, game.id)
    mover = PLAYERS[g.turn][1]
    assert reply_service.handle_inbound(app, reply_to(latest_reply_mail(app, mover), "draw swap B2")) == "applied"
    rows = _count(app, "move")
    decisions = len(PLAYERS) * 2 + 1  # the opening reveals, one at a time, and one whole turn of 2 steps
    assert rows == decisions + 1
    assert _count(app, "move WHERE events IS NULL") == 1  # the draw: its decision's events are on the swap
    assert _count(app, "move WHERE CAST(events AS TEXT) = 'null'") == 0
    with app.app_context(), db.transaction() as s:  # play.notify._since_own_move's filter
        assert s.exec(select(func.count()).select_from(MoveRow).where(MoveRow.events.is_not(None))).one() == decisions
    with app.app_context():
        deliver_due(db.get_engine(app), DevTransport())
    assert _count(app, "outbox WHERE template IS NOT NULL AND text_body IS NOT NULL AND context IS NULL") > 0
    assert _count(app, "outbox WHERE CAST(context AS TEXT) = 'null'") == 0


def test_the_migration_turns_json_null_into_sql_null(empty_db):  # noqa: F811
    upgrade(empty_db, "a29b0c5e7d13")
    engine = create_engine(empty_db)
    try:
        with engine.begin() as c:
            c.execute(text(
                "INSERT INTO game (id, status, variant, options, decision_hours, reminder_hours, timeout_policy,"
                " title, state, version, record, setup, spectator_salt, created_at, updated_at) VALUES"
                " ('g1', 'active', 'classic', '{}', 48, '[]', 'bot', '', 'null', 0, 'null', '{}', 's',"
                " '2026-12-01 10:00:00', '2026-12-01 10:00:00')"))
            c.execute(text("INSERT INTO move (game_id, number, seat, move, version_before, created_at, events)"
                           " VALUES ('g1', 1, 0, 'draw', 0, '2026-12-01 10:00:00', 'null'),"
                           " ('g1', 2, 0, 'swap B2', 0, '2026-12-01 10:00:00', '[]')"))
        upgrade(empty_db)
        with engine.begin() as c:
            assert c.execute(text("SELECT state IS NULL, record IS NULL FROM game")).one() == (True, True)
            assert [r[0] for r in c.execute(text("SELECT events IS NULL FROM move ORDER BY number"))] == [
                True, False]
    finally:
        engine.dispose()
