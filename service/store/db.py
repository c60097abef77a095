"""Database engine, sessions and transactions.

`transaction(write=True)` is the only way use cases write: on SQLite it starts with
`BEGIN IMMEDIATE` (one writer at a time, others wait up to the busy timeout instead of failing with
"database is locked" when a read lock would need upgrading); on PostgreSQL it is a plain transaction
and correctness comes from conditional `UPDATE ... WHERE version = :v`.

SQLite writers also queue on a file lock next to the database (`WriterQueue`) before their
`BEGIN IMMEDIATE`: SQLite's own busy handler polls with sleeps of up to 100 ms, so under concurrent
moves (several gunicorn workers, the sender and the clock) a waiting writer slept long after the
lock was free; the kernel wakes the next `flock` waiter at once. The busy timeout stays as the
safety net; the clock's sessions and the outbox sender's writes take the same queue.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: SQLite's busy handler alone
    fcntl = None

import orjson
from flask import current_app
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, SQLModel

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
            # on the driver's connection: through SQLAlchemy's execution this one statement cost
            # about a twentieth of a whole move
            conn.connection.dbapi_connection.execute("BEGIN IMMEDIATE" if _immediate.get() else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


class WriterQueue:
    """One SQLite writer at a time across threads and processes, woken at once when it is their
    turn: a thread lock inside the process, an exclusive `flock` on `<database>.writers` between
    processes. Re-entrant per thread (a write transaction inside another takes it once). The file
    descriptor is opened per process (after a fork the child opens its own)."""

    def __init__(self, path: Path):
        self.path = path
        self._mutex = threading.Lock()
        self._local = threading.local()
        self._fd: int | None = None
        self._pid = 0

    def _file(self) -> int:
        if self._fd is None or self._pid != os.getpid():
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._pid = os.getpid()
        return self._fd

    @contextmanager
    def hold(self) -> Iterator[None]:
        if getattr(self._local, "depth", 0):
            self._local.depth += 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        if not self._mutex.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000):
            raise TimeoutError("another write transaction of this process did not finish")
        try:
            fd = self._file()
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._local.depth = 1
            try:
                yield
            finally:
                self._local.depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            self._mutex.release()


_queues: dict[Path, WriterQueue] = {}
_queues_lock = threading.Lock()


def writer_queue_for(url: str) -> WriterQueue | None:
    """The queue of a SQLite file database (None for PostgreSQL, in-memory SQLite, or no fcntl).
    One per database file and process, whoever asks (the web app, the clock, the mail sender), so a
    thread that holds it may take it again inside."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if fcntl is None or not parsed.drivername.startswith("sqlite"):
        return None
    database = parsed.database or ""
    if not database or database == ":memory:" or "mode=memory" in url:
        return None
    path = Path(database).resolve()
    path = path.with_name(path.name + ".writers")
    with _queues_lock:
        return _queues.setdefault(path, WriterQueue(path))


def init_app(app) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["skyjo_db"] = engine
    app.extensions["db_engine"] = engine  # the outbox sender looks for it here
    app.extensions["skyjo_writers"] = writer_queue_for(app.config["DATABASE_URL"])


def get_engine(app=None) -> Engine:
    return (app or current_app).extensions["skyjo_db"]


@contextmanager
def transaction(write: bool = False, app=None) -> Iterator[Session]:
    """A session inside one transaction: committed on success, rolled back on any exception."""
    queue = (app or current_app).extensions.get("skyjo_writers") if write else None
    token = _immediate.set(write)
    try:
        with queue.hold() if queue is not None else nullcontext():
            with Session(get_engine(app), expire_on_commit=False) as session:
                with session.begin():
                    yield session
    finally:
        _immediate.reset(token)


@contextmanager
def single_read(app=None) -> Iterator[Connection]:
    """A pooled connection for ONE read statement, outside any transaction: SQLite runs a statement
    atomically on its own, so a read that is a single SELECT needs no BEGIN, COMMIT or Session (the
    move link's read phase, `usecases.prepare_link_move`). Not for two reads that must agree; a write
    after the read goes through `core_write` on the same connection. (On PostgreSQL the driver opens
    a transaction; it is rolled back when the connection goes back to the pool, or `core_write`
    commits it.)"""
    with get_engine(app).connect() as conn:
        yield conn


class CoreTx:
    """A write transaction on one Connection with the little of a Session's interface that a routine
    move's writes use: `connection()`, `flush()` (nothing to flush), `info` (the mails it queues,
    written by `outbox.flush_mails`) and an empty `identity_map` (no ORM objects to keep in step).
    No ORM: what needs it raises `NeedsSession`, and the caller does the work again in a
    `transaction` (see `usecases.save_moves`). Saves the Session's own machinery, about a tenth of a
    move POST's CPU."""

    identity_map: dict = {}

    def __init__(self, conn: Connection):
        self._conn = conn
        self.info: dict = {}

    def connection(self) -> Connection:
        return self._conn

    def flush(self) -> None:
        pass


class NeedsSession(Exception):
    """Raised inside a `CoreTx` by work that needs the ORM; the transaction is rolled back."""


@contextmanager
def core_write(conn: Connection, app=None) -> Iterator[CoreTx]:
    """A write transaction on `conn` (a `single_read` connection; on SQLite the writer queue first,
    then BEGIN IMMEDIATE): committed on success, rolled back on any exception. On PostgreSQL a read
    made on `conn` just before belongs to the same transaction (the driver began it).

    The transaction is the driver's own (BEGIN and COMMIT on the DBAPI connection; `direct` runs
    every statement there): SQLAlchemy's transaction objects and events cost more than the COMMIT.
    When statements are observed (`direct` then goes through SQLAlchemy), SQLAlchemy's."""
    from service.mail import outbox
    from service.store.direct import observed, wrapped

    queue = (app or current_app).extensions.get("skyjo_writers")
    token = _immediate.set(True)
    try:
        with queue.hold() if queue is not None else nullcontext():
            if conn.in_transaction():  # the read went through SQLAlchemy (statements observed): end it
                conn.rollback()
            if observed(conn):
                with conn.begin():
                    tx = CoreTx(conn)
                    yield tx
                    outbox.flush_mails(tx)
                return
            raw = conn.connection.dbapi_connection
            errors = conn.dialect.loaded_dbapi.Error
            try:
                if conn.dialect.name == "sqlite":
                    raw.execute("BEGIN IMMEDIATE")  # (PostgreSQL: the driver began the transaction)
                tx = CoreTx(conn)
                yield tx
                outbox.flush_mails(tx)  # mails queued last (`save_moves` writes its own already)
                raw.commit()
            except errors as exc:
                _rollback_quietly(raw)
                raise wrapped(conn, exc, None, None) from exc
            except BaseException:
                _rollback_quietly(raw)
                raise
    finally:
        _immediate.reset(token)


def _rollback_quietly(raw) -> None:
    try:
        raw.rollback()
    except Exception:  # noqa: BLE001 - a broken connection: the pool invalidates or resets it
        pass


def create_all(app=None) -> None:
    import service.store.clock_models  # noqa: F401
    import service.store.models  # noqa: F401  (register tables)
    import service.store.outbox_models  # noqa: F401
    import service.store.reply_models  # noqa: F401

    SQLModel.metadata.create_all(get_engine(app))


def drop_all(app=None) -> None:
    SQLModel.metadata.drop_all(get_engine(app))
