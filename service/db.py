"""Database engine, sessions and transactions.

`transaction(write=True)` is the only way use cases write: on SQLite it starts with
`BEGIN IMMEDIATE` (one writer at a time, others wait up to the busy timeout instead of failing with
"database is locked" when a read lock would need upgrading); on PostgreSQL it is a plain transaction
and correctness comes from conditional `UPDATE ... WHERE version = :v`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

_immediate: contextvars.ContextVar[bool] = contextvars.ContextVar("skyjo_immediate", default=False)

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, **kwargs) -> Engine:
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
def transaction(write: bool = False, app=None) -> Iterator[Session]:
    """A session inside one transaction: committed on success, rolled back on any exception."""
    token = _immediate.set(write)
    try:
        with Session(get_engine(app), expire_on_commit=False) as session:
            with session.begin():
                yield session
    finally:
        _immediate.reset(token)


def create_all(app=None) -> None:
    import service.clock_models  # noqa: F401
    import service.models  # noqa: F401  (register tables)
    import service.reply_models  # noqa: F401

    try:
        import service.outbox  # noqa: F401
    except ImportError:  # pragma: no cover - until the mail layer exists
        pass
    SQLModel.metadata.create_all(get_engine(app))


def drop_all(app=None) -> None:
    SQLModel.metadata.drop_all(get_engine(app))
