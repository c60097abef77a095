"""Each clock process says it is alive (issue 31.2): every sweep of `skyjo-pbem worker` (and of the
clock inside `serve`) writes its row of `clock_heartbeat` after it ends, in its own short
transaction. `/readyz` asks for one row younger than two of its process's intervals
(`play.health`); a process that died leaves its row to age, and any sweep deletes rows older than a
day, so the table holds about one row per running process."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

from sqlalchemy import delete, insert, update
from sqlmodel import Session

from service.store.clock_models import WorkerHeartbeat, utcnow

FORGET_AFTER = timedelta(days=1)


def worker_name() -> str:
    """This process: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"[:120]


def beat(session_factory: Callable[[], AbstractContextManager[Session]], *, kind: str, interval: float,
         sweep_s: float, name: str | None = None, now: datetime | None = None) -> None:
    """Write this process's heartbeat: UPDATE its row, INSERT it the first time (one writer per
    row: its own process), and delete rows no process wrote for a day."""
    now = now or utcnow()
    name = name or worker_name()
    t = WorkerHeartbeat.__table__
    with session_factory() as s:
        conn = s.connection()
        done = conn.execute(update(t).where(t.c.worker == name)
                            .values(beat_at=now, sweep_s=sweep_s, interval_s=interval, kind=kind,
                                    sweeps=t.c.sweeps + 1))
        if done.rowcount == 0:
            conn.execute(insert(t).values(worker=name, kind=kind, interval_s=interval, started_at=now,
                                          beat_at=now, sweep_s=sweep_s, sweeps=1))
        conn.execute(delete(t).where(t.c.beat_at < now - FORGET_AFTER))
