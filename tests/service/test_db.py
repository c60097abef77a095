"""SQLite transactions (service/store/db.py): a write transaction begins with `BEGIN IMMEDIATE` and
waits in the busy timeout for another writer (threads or processes) instead of failing with
"database is locked"; a read transaction (`BEGIN`) does not take the write lock."""

from __future__ import annotations

import threading
import time

from sqlalchemy import Column, Integer, MetaData, Table, select, update

from service.store import db
from tests.service.helpers import sqlite_write_held

_meta = MetaData()
_counter = Table("counter", _meta, Column("id", Integer, primary_key=True), Column("n", Integer, nullable=False))


def _engine(tmp_path):
    engine = db.make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    _meta.create_all(engine)
    with db.session_scope(engine, write=True) as s:
        s.execute(_counter.insert().values(id=1, n=0))
    return engine


def test_a_writer_waits_for_another_process_then_writes(tmp_path):
    engine = _engine(tmp_path)
    with sqlite_write_held(tmp_path / "db.sqlite3", 0.6):
        t0 = time.monotonic()
        with db.session_scope(engine, write=True) as s:
            s.execute(update(_counter).values(n=_counter.c.n + 1))  # (BEGIN IMMEDIATE goes with it)
            waited = time.monotonic() - t0
    assert waited > 0.3, "the writer did not wait for the other process"
    with db.session_scope(engine) as s:
        assert s.execute(select(_counter.c.n)).scalar_one() == 1
    engine.dispose()


def test_a_reader_does_not_wait_for_a_writer(tmp_path):
    engine = _engine(tmp_path)
    with sqlite_write_held(tmp_path / "db.sqlite3", 1.0):
        t0 = time.monotonic()
        with db.session_scope(engine) as s:
            assert s.execute(select(_counter.c.n)).scalar_one() == 0
        assert time.monotonic() - t0 < 0.5, "a read transaction took the write lock"
    engine.dispose()


def test_read_then_write_transactions_of_many_threads_lose_nothing(tmp_path):
    """Each thread reads the counter, then writes it + 1: with `BEGIN IMMEDIATE` the read is already
    inside the write lock, so no update is lost and no upgrade from a read lock fails."""
    engine = _engine(tmp_path)
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(25):
                with db.session_scope(engine, write=True) as s:
                    n = s.execute(select(_counter.c.n)).scalar_one()
                    s.execute(update(_counter).values(n=n + 1))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with db.session_scope(engine) as s:
        assert s.execute(select(_counter.c.n)).scalar_one() == 100
    engine.dispose()
