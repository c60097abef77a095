"""Several worker PROCESSES ticking one database: each due deadline handled exactly once, also when
a worker is killed with SIGKILL in the middle of a sweep. SQLite and PostgreSQL.

The handlers insert one row per effect into a table with a unique constraint, so a second
application would be an error in the worker (counted) and a missing one a missing row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from service.clock.deadlines import ClockSettings, schedule_decisions
from service.clock.tick import make_engine, session_factory_for, tick
from service.store.clock_models import Deadline
from tests.service.helpers import sqlite_write_held
from tests.service.test_clock_support import ROOT, RecordingHandlers, effect, pg_schema_url, setup_db

T0 = datetime(2027, 1, 11, 12, 0)
N_TIMEOUTS = 200  # due at T0 + 1 h
N_REMINDERS = 50  # reminder due at T0 + 30 min, timeout only at T0 + 3 h
NOW = T0 + timedelta(hours=1)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "sqlite":
        url, drop = f"sqlite:///{tmp_path / 'clock.sqlite3'}", None
    else:
        url, drop = pg_schema_url()
    eng = setup_db(url)
    factory = session_factory_for(eng)
    with factory() as s:
        for i in range(N_TIMEOUTS):
            schedule_decisions(s, f"t{i}", [(i % 3, "turn")], 1, T0, ClockSettings.from_hours(1, ()))
        for i in range(N_REMINDERS):
            schedule_decisions(s, f"r{i}", [(0, "turn"), (1, "reveal")][: 1 + i % 2], 1, T0,
                                     ClockSettings(3 * 3600, (int(2.5 * 3600),)))
    eng.dispose()
    yield url
    if drop:
        drop()


def expected_reminders() -> int:
    return sum(1 + i % 2 for i in range(N_REMINDERS))


def spawn(url: str, now: datetime, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.service.test_clock_support", url, now.isoformat(),
                             *extra], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def check_exactly_once(url: str) -> int:
    eng = make_engine(url)
    try:
        with eng.connect() as conn:
            got = conn.execute(select(effect.c.event, func.count(), func.count(effect.c.deadline_id.distinct()))
                               .group_by(effect.c.event)).all()
            counts = {event: (n, distinct) for event, n, distinct in got}
            assert counts == {"timeout": (N_TIMEOUTS, N_TIMEOUTS),
                              "reminder": (expected_reminders(), expected_reminders())}
            d = Deadline.__table__.c
            left = conn.execute(select(func.count()).select_from(Deadline.__table__)
                                .where(d.fired_at.is_(None), d.next_at <= NOW)).scalar_one()
            assert left == 0
            timed_out = conn.execute(select(func.count()).select_from(Deadline.__table__)
                                     .where(d.outcome == "timeout")).scalar_one()
            assert timed_out == N_TIMEOUTS
            workers = conn.execute(select(func.count(effect.c.worker.distinct()))).scalar_one()
    finally:
        eng.dispose()
    return workers


@pytest.mark.parametrize("n_workers", [2, 4])
def test_many_workers_handle_each_deadline_once(url, n_workers, tmp_path):
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [spawn(url, NOW, "--batch", "10", "--ready-dir", str(barrier)) for _ in range(n_workers)]
    deadline = time.time() + 60
    while len(list(barrier.glob("ready.*"))) < n_workers:  # all imported and connected ...
        assert time.time() < deadline and all(p.poll() is None for p in procs), "a worker did not start"
        time.sleep(0.01)
    (barrier / "go").touch()  # ... then all sweep at once
    results = [finish(p) for p in procs]
    assert sum(r["errors"] for r in results) == 0, results
    assert sum(r["timeouts"] for r in results) == N_TIMEOUTS
    assert sum(r["reminders"] for r in results) == expected_reminders()
    workers = check_exactly_once(url)
    assert workers >= 2, f"the workers did not overlap: the test proves nothing {results}"


def test_sqlite_clock_sessions_wait_for_the_service_writers(tmp_path):
    """On a SQLite file, `session_factory_for` begins with `BEGIN IMMEDIATE`: a clock transaction
    waits (busy timeout) for another process's write transaction instead of failing."""
    db_file = tmp_path / "clock.sqlite3"
    eng = setup_db(f"sqlite:///{db_file}")
    try:
        with sqlite_write_held(db_file, 0.6):
            t0 = time.monotonic()
            with session_factory_for(eng)() as s:
                s.execute(select(func.count()).select_from(Deadline.__table__)).scalar_one()  # (and BEGIN)
                waited = time.monotonic() - t0
        assert waited > 0.3, "the clock session did not wait for the other writer"
    finally:
        eng.dispose()


def test_kill_9_mid_sweep_loses_nothing_and_applies_nothing_twice(url, tmp_path):
    eng = make_engine(url)
    with eng.connect() as conn:
        d = Deadline.__table__.c
        ids = list(conn.execute(select(d.id).where(d.next_at <= NOW).order_by(d.next_at, d.id)).scalars())
    eng.dispose()
    victim = ids[len(ids) // 3]
    marker = tmp_path / "sleeping"
    proc = spawn(url, NOW, "--batch", "25", "--sleep-on", str(victim), "--marker", str(marker))
    deadline = time.time() + 30
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.time() < deadline, "worker never reached the sleeping handler"
        time.sleep(0.02)
    proc.kill()  # SIGKILL, in the middle of a handler's transaction and with claims outstanding
    proc.wait(timeout=10)
    assert proc.returncode == -9
    eng = make_engine(url)
    with eng.connect() as conn:
        done_before = conn.execute(select(func.count()).select_from(effect)).scalar_one()
        victim_done = conn.execute(select(func.count()).select_from(effect)
                                   .where(effect.c.deadline_id == victim)).scalar_one()
    eng.dispose()
    assert 0 < done_before < N_TIMEOUTS + expected_reminders() and victim_done == 0
    # Another worker (here: this process), at the same time: it does the rows nobody claimed and
    # leaves the dead worker's claims alone while they are live.
    eng = make_engine(url)
    r = tick(NOW, session_factory_for(eng), RecordingHandlers(worker="in-test"))
    eng.dispose()
    assert r.errors == 0 and r.skipped == 0, r
    # Later, after the lease: everything left is done, nothing twice.
    r = finish(spawn(url, NOW + timedelta(minutes=6)))
    assert r["errors"] == 0, r
    check_exactly_once(url)
