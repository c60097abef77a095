"""Support for the clock tests (no tests here): databases, recording handlers, a worker process.

The databases are the clock's own (its tables only, plus a test table in a separate MetaData), so
these tests do not depend on the service's app or fixtures. PostgreSQL: TEST_POSTGRES_URL (default
postgresql+psycopg://postgres@127.0.0.1:5432/test), a fresh schema per test (search_path); skipped
when unreachable, a failure under CI=true.

Run as a module it is a clock worker process:
    python -m tests.service.test_clock_support URL NOW_ISO [--batch N] [--sleep-on ID --marker PATH]
        [--ready-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Column, Integer, MetaData, String, Table, UniqueConstraint, create_engine, insert, text

PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
ROOT = Path(__file__).resolve().parents[2]

test_meta = MetaData()
effect = Table(
    "clock_test_effect", test_meta,
    Column("id", Integer, primary_key=True),
    Column("deadline_id", Integer, nullable=False),
    Column("event", String(16), nullable=False),
    Column("n", Integer, nullable=False),
    Column("worker", String(40), nullable=False, default=""),
    UniqueConstraint("deadline_id", "event", "n", name="uq_clock_test_effect"),
)


def pg_schema_url() -> tuple[str, callable]:
    """(url bound to a fresh schema, drop function). Raises pytest skip/fail when unreachable."""
    import pytest

    schema = f"clock_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        admin = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # noqa: BLE001 - any failure means unreachable
        msg = f"PostgreSQL not reachable at TEST_POSTGRES_URL: {type(exc).__name__}"
        if IN_CI:
            pytest.fail(msg + " (required under CI=true)")
        pytest.skip(msg)
    sep = "&" if "?" in PG_URL else "?"
    url = f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"

    def drop():
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    return url, drop


def setup_db(url: str):
    from service.clock.tick import create_tables, make_engine

    engine = make_engine(url)
    create_tables(engine)
    test_meta.create_all(engine)
    return engine


class RecordingHandlers:
    """Records each effect in `clock_test_effect` (unique per deadline/event/n: a duplicate raises)."""

    def __init__(self, worker: str = "main", sleep_on: int | None = None, marker: str | None = None,
                 timeout_result: bool = True):
        self.worker = worker
        self.sleep_on = sleep_on
        self.marker = marker
        self.timeout_result = timeout_result
        self.timeouts: list[tuple[str, int, str, int]] = []
        self.reminders: list[tuple[str, int, str, int]] = []
        self.digests: list[tuple[str, list[tuple[str, int]], datetime]] = []

    def _maybe_sleep(self, deadline):
        if self.sleep_on is not None and deadline.id == self.sleep_on:
            if self.marker:
                Path(self.marker).write_text(str(os.getpid()))
            time.sleep(60)

    def on_timeout(self, session, deadline):
        self._maybe_sleep(deadline)
        session.execute(insert(effect).values(deadline_id=deadline.id, event="timeout", n=0, worker=self.worker))
        self.timeouts.append((deadline.game_id, deadline.seat, deadline.kind, deadline.version))
        return self.timeout_result

    def on_reminder(self, session, deadline):
        self._maybe_sleep(deadline)
        session.execute(insert(effect).values(deadline_id=deadline.id, event="reminder",
                                              n=deadline.reminders_sent, worker=self.worker))
        self.reminders.append((deadline.game_id, deadline.seat, deadline.kind, deadline.reminders_sent))
        return True

    def on_digest(self, session, seat_clocks, now):
        address = seat_clocks[0].address
        session.execute(insert(effect).values(deadline_id=-len(self.digests) - 1, event="digest", n=0,
                                              worker=self.worker))
        self.digests.append((address, [(s.game_id, s.seat) for s in seat_clocks], now))


def worker_main(argv: list[str] | None = None) -> int:
    from service.clock.tick import TickReport, make_engine, session_factory_for, tick

    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("now")
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--sleep-on", type=int, default=None)
    ap.add_argument("--marker", default=None)
    ap.add_argument("--ready-dir", default=None, help="barrier: say ready here, then wait for the file 'go'")
    args = ap.parse_args(argv)
    engine = make_engine(args.url)
    factory = session_factory_for(engine)
    handlers = RecordingHandlers(worker=f"w{os.getpid()}", sleep_on=args.sleep_on, marker=args.marker)
    now = datetime.fromisoformat(args.now)
    if args.ready_dir:
        with engine.connect():
            pass  # connected and imported: ready
        Path(args.ready_dir, f"ready.{os.getpid()}").touch()
        go = Path(args.ready_dir, "go")
        deadline = time.time() + 60
        while not go.exists() and time.time() < deadline:
            time.sleep(0.005)
    total = TickReport()
    idle = 0
    while idle < 3:  # sweeps of one batch each until three find nothing, as the interval job would; the
        # pause between them lets the other workers in (on SQLite a waiting writer sleeps in the busy
        # handler and a worker that re-takes the lock at once could otherwise do all the work alone)
        report = tick(now, factory, handlers, batch_size=args.batch, max_rows=args.batch,
                      lease=timedelta(minutes=5))
        total.add(report)
        idle = 0 if report.claimed else idle + 1
        time.sleep(0.005)
    print(json.dumps({"claimed": total.claimed, "timeouts": total.timeouts, "reminders": total.reminders,
                      "errors": total.errors, "skipped": total.skipped, "messages": total.error_messages[:5]}))
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(worker_main())
