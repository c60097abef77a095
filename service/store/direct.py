"""Core statements run straight on the driver's cursor (`direct`), for the move's hot path.

A move runs about ten small statements. SQLAlchemy's execution machinery (cache lookup, parameter
construction, result objects, events) costs several times what SQLite, or the PostgreSQL round
trip, costs for each of them. `direct` compiles a module-level statement once per dialect with
SQLAlchemy itself (the same SQL text and the same type processing: JSON through the engine's
serializer, SQLite's datetime strings) and hands it to the DBAPI cursor of the connection, inside
that connection's transaction.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError


class DirectResult:
    """What `direct` gives back: the rows (processed as SQLAlchemy would) and the rowcount. Inside a
    `batch` a write's rowcount is known once the batch has been sent (after it, or after a fetch)."""

    __slots__ = ("rows", "_cursor", "_rowcount")

    def __init__(self, rows: list[tuple], rowcount: int, cursor=None):
        self.rows, self._rowcount, self._cursor = rows, rowcount, cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount if self._cursor is not None else self._rowcount

    def __iter__(self):
        return iter(self.rows)


class _Compiled:
    """A Core statement compiled once for one dialect, with its bind and result processors."""

    __slots__ = ("sql", "order", "fixed", "binds", "returns_rows", "results")

    results: tuple[tuple[int, object], ...] | None  # (column index, result processor) where there is one

    def __init__(self, compiled, dialect):
        self.sql = compiled.string
        # the statement's own values (`literal(0)`, `x == 5`): anonymous binds the caller never names
        self.fixed = {name: b.effective_value for name, b in compiled.binds.items() if not b.required}
        self.order = tuple(compiled.positiontup) if compiled.positiontup is not None else None
        self.binds = tuple(compiled._bind_processors.items())
        self.returns_rows = bool(compiled._result_columns)
        self.results = None
        if self.returns_rows:
            procs = [col[3]._cached_result_processor(dialect, None) for col in compiled._result_columns]
            self.results = tuple((i, f) for i, f in enumerate(procs) if f is not None) or None


_compiled: dict[tuple, _Compiled | None] = {}
_statements: list = []  # the statements compiled so far, kept alive: each id stays its own


def _compile(stmt, dialect, keys: tuple[str, ...]) -> _Compiled | None:
    """`stmt` compiled for `dialect` and these parameter names, or None when it needs what only
    SQLAlchemy's execution does (Python-side column defaults, expanding IN lists)."""
    key = (id(stmt), dialect.name, dialect.paramstyle, keys)
    try:
        return _compiled[key]
    except KeyError:
        pass
    compiled = stmt.compile(dialect=dialect, column_keys=list(keys))
    plain = not (compiled.insert_prefetch or compiled.update_prefetch
                 or any(b.expanding for b in compiled.binds.values()))
    result = _Compiled(compiled, dialect) if plain else None
    if not any(known is stmt for known in _statements):
        _statements.append(stmt)
    _compiled[key] = result
    return result


def observed(conn: Connection) -> bool:
    """Somebody listens to the engine's statements (a statement counter, SQL logging)."""
    return bool(conn.dispatch.before_cursor_execute or conn.dispatch.after_cursor_execute)


def wrapped(conn: Connection, exc: Exception, sql: str | None, params) -> Exception:
    """A driver error as SQLAlchemy would raise it (IntegrityError, OperationalError, ...); a lost
    connection is invalidated, so the pool does not hand it out again."""
    dbapi = conn.dialect.loaded_dbapi
    lost = conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, None)
    if lost:
        conn.invalidate(exc)
    return DBAPIError.instance(sql, params, exc, dbapi.Error, connection_invalidated=lost,
                               dialect=conn.dialect)


def direct(conn: Connection, stmt, params: dict | list[dict] | None = None) -> DirectResult:
    """Run a module-level Core statement on `conn`'s DBAPI cursor, in `conn`'s transaction, like
    `conn.execute(stmt, params)`. `params`: one dict, or a list of dicts (executemany: no rows).
    Driver errors come out as SQLAlchemy's exceptions. `stmt` must be a module-level constant: the
    compiled form is cached per statement object for the life of the process.

    It falls back to `conn.execute` when a statement needs SQLAlchemy at execution time (column
    defaults computed in Python, expanding IN lists) and when anyone listens to the engine's
    cursor events (statement counters, SQL logging): they see every statement as before."""
    many = isinstance(params, list)
    first = (params[0] if params else {}) if many else (params or {})
    c = _compile(stmt, conn.dialect, tuple(first))
    if c is None or observed(conn):
        res = conn.execute(stmt, params)
        return DirectResult(res.all() if res.returns_rows else [], res.rowcount)

    def bound(p: dict):
        if c.binds or c.fixed:
            p = {**c.fixed, **p}
            for name, proc in c.binds:
                value = p[name]
                if value is not None:
                    p[name] = proc(value)
        return tuple(p[n] for n in c.order) if c.order is not None else p

    dbapi = conn.dialect.loaded_dbapi
    values = [bound(p) for p in params] if many else bound(first)
    try:
        cursor = conn.connection.dbapi_connection.cursor()
        if many:
            cursor.executemany(c.sql, values)
        else:
            cursor.execute(c.sql, values)
        if not c.returns_rows:  # (the cursor stays open: in a batch its rowcount comes later)
            return DirectResult([], -1, cursor)
        rows = cursor.fetchall()  # in a batch: sends what is queued and waits for it
        cursor.close()
    except dbapi.Error as exc:
        raise wrapped(conn, exc, c.sql, values) from exc
    if c.results is not None:
        processed = []
        for r in rows:
            r = list(r)
            for i, f in c.results:
                if r[i] is not None:
                    r[i] = f(r[i])
            processed.append(tuple(r))
        rows = processed
    return DirectResult(rows, len(rows))


@contextmanager
def batch(conn: Connection) -> Iterator[None]:
    """The `direct` statements inside go to PostgreSQL in one round trip (psycopg's pipeline mode):
    each is sent without waiting for its answer; a SELECT's fetch, or the end of the block, waits
    for everything sent so far. A move's writes need no answers but the version UPDATE's, which
    runs before, alone. On SQLite (no round trips) and when statements are observed, nothing.

    Only `direct` statements may run inside: SQLAlchemy's own execution (ORM flushes and queries,
    `conn.execute`) expects each answer at once. Errors are raised at the latest when the block
    ends, as SQLAlchemy's exceptions."""
    raw = conn.connection.driver_connection
    if not hasattr(raw, "pipeline") or observed(conn) or not _pipeline_supported():
        yield
        return
    try:
        with raw.pipeline():
            yield
    except conn.dialect.loaded_dbapi.Error as exc:
        raise wrapped(conn, exc, None, None) from exc


@functools.cache
def _pipeline_supported() -> bool:
    import psycopg

    return psycopg.Pipeline.is_supported()
