"""Database engine, sessions and transactions.

`transaction(write=True)` is the only way use cases write: on SQLite it starts with
`BEGIN IMMEDIATE` (one writer at a time; the others wait up to the busy timeout instead of failing
with "database is locked" when a read lock would need upgrading); on PostgreSQL it is a plain
transaction and correctness comes from the game row's lock (`SELECT ... FOR UPDATE`, taken by every
use case that changes a game, moves included), conditional `UPDATE ... WHERE version = :v` (the move
path's guard) and `... RETURNING` / `SKIP LOCKED` claims (the clock, the outbox).

SQLite: SQLAlchemy's documented pysqlite recipe. The driver's own transaction handling is switched
off (`isolation_level = None` on connect) and the "begin" event emits `BEGIN IMMEDIATE` for a write
transaction (`BEGIN` for a read); `PRAGMA busy_timeout` makes a waiting writer retry instead of
failing. `session_scope(engine, write=True)` is the same transaction for code outside Flask (the
clock's worker, tests, benchmarks).

A lost database connection (a failover, a terminated backend; issue 34.4c) shows no error page: the
pool pings a connection before it lends it (`pool_pre_ping`), so one that died between requests is
replaced, and `once_more_on_disconnect` (around every view, `create_app`) runs a request whose
connection died during it once more: its transaction was rolled back, and every state change is
exactly once by itself (version- or decision-bound UPDATEs, unique keys), so the second run does
what the first would have done, or says it was done already.
"""

from __future__ import annotations

import contextvars
import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import orjson
from flask import current_app
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, SQLModel

log = logging.getLogger(__name__)

_immediate: contextvars.ContextVar[bool] = contextvars.ContextVar("skyjo_immediate", default=False)

SQLITE_BUSY_TIMEOUT_MS = 30_000


def _json_dumps(value) -> str:
    # orjson: the game state is written and read on every move (JSON columns); int keys become
    # strings as with the json module
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_engine(url: str, **kwargs) -> Engine:
    kwargs.setdefault("json_serializer", _json_dumps)
    kwargs.setdefault("json_deserializer", orjson.loads)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                                                   "check_same_thread": False}, **kwargs)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):  # pragma: no cover - trivial
            dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
            cur = dbapi_connection.cursor()
            cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cur.execute("PRAGMA foreign_keys = ON")
            if ":memory:" not in url and "mode=memory" not in url:
                cur.execute("PRAGMA journal_mode = WAL")
                cur.execute("PRAGMA synchronous = NORMAL")  # WAL: still safe against app crashes
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            conn.exec_driver_sql("BEGIN IMMEDIATE" if _immediate.get() else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


def init_app(app) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["skyjo_db"] = engine
    app.extensions["db_engine"] = engine  # the outbox sender looks for it here


def get_engine(app=None) -> Engine:
    return (app or current_app).extensions["skyjo_db"]


@contextmanager
def session_scope(engine: Engine, write: bool = False) -> Iterator[Session]:
    """A session inside one transaction on `engine`: committed on success, rolled back on any
    exception. `write=True`: on SQLite the transaction begins with `BEGIN IMMEDIATE`."""
    token = _immediate.set(write)
    try:
        with Session(engine, expire_on_commit=False) as session:
            with session.begin():
                yield session
    finally:
        _immediate.reset(token)


def transaction(write: bool = False, app=None):
    """`session_scope` on the app's engine (the current app's by default)."""
    return session_scope(get_engine(app), write)


def once_more_on_disconnect(view: Callable) -> Callable:
    """`view`, run once more when the database connection it used was lost (see the module
    docstring); any other error, and a second loss, propagate."""

    @functools.wraps(view)
    def run(*args, **kwargs):
        try:
            return view(*args, **kwargs)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            log.warning("database connection lost (%s): the request runs once more", type(exc.orig).__name__)
            return view(*args, **kwargs)

    return run


def create_all(app=None) -> None:
    import service.store.bounce_models  # noqa: F401
    import service.store.clock_models  # noqa: F401
    import service.store.models  # noqa: F401  (register tables)
    import service.store.outbox_models  # noqa: F401
    import service.store.reply_models  # noqa: F401

    SQLModel.metadata.create_all(get_engine(app))


def drop_all(app=None) -> None:
    SQLModel.metadata.drop_all(get_engine(app))
