"""Wake the workers at once on PostgreSQL (issue 31.2): a transaction that makes work due now (a
computer seat's decision, a mail in the outbox) says so with `notify_workers(session)`, and each
`skyjo-pbem worker` (and `serve`) LISTENs (`Listener`) and sweeps when told, instead of at its next
tick.

`pg_notify` inside the transaction is delivered by PostgreSQL when that transaction commits and
never if it rolls back: that is "after commit" without a hook that could run after a failed one. One
NOTIFY per transaction, whatever it queued. The channel is database-wide (two schemas in one
database wake each other's workers: a sweep that finds nothing). On SQLite nothing is sent; the
workers sweep at their interval (the clock inside `serve` is woken in its process).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

CHANNEL = "skyjo_wake"
_SENT = "skyjo_wake_sent"
APPLICATION_NAME = "skyjo-pbem wake"  # the LISTEN connection in pg_stat_activity, with the pid
_NOTIFY = text("SELECT pg_notify(:channel, '')")


def notify_workers(session: Session) -> None:
    """In the caller's transaction: on PostgreSQL a NOTIFY the workers receive at its commit (once
    per transaction); nothing on SQLite."""
    if session.info.get(_SENT):
        return
    conn = session.connection()
    if conn.dialect.name != "postgresql":
        return
    conn.execute(_NOTIFY, {"channel": CHANNEL})
    session.info[_SENT] = True


@event.listens_for(Session, "after_transaction_end")
def _forget_at_the_end(session: Session, transaction) -> None:
    if transaction.parent is None:
        session.info.pop(_SENT, None)


def is_postgres(url: str) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


class Listener:
    """A daemon thread with its own connection that LISTENs on CHANNEL and calls `on_wake()` for each
    notification (and once after each (re)connect, for what was committed while it was away). A lost
    connection is retried every `retry` seconds; the worker's tick still sweeps meanwhile."""

    def __init__(self, database_url: str, on_wake: Callable[[], None], *, retry: float = 5.0):
        url = make_url(database_url).set(drivername="postgresql")
        self.conninfo = url.render_as_string(hide_password=False)
        self.on_wake = on_wake
        self.retry = retry
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pg-listen", daemon=True)
        self.listening = threading.Event()  # set while LISTEN is in force (tests wait for it)

    def start(self) -> Listener:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5,
                                     application_name=f"{APPLICATION_NAME} {os.getpid()}") as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self._wake()
                    while not self._stop.is_set():
                        for _note in conn.notifies(timeout=1.0):
                            self._wake()
            except Exception as exc:  # noqa: BLE001 - the database went away: retry, the tick goes on
                log.warning("wake-ups: LISTEN lost (%s); retrying in %.0f s", type(exc).__name__, self.retry)
            self.listening.clear()
            self._stop.wait(self.retry)

    def _wake(self) -> None:
        try:
            self.on_wake()
        except Exception:  # noqa: BLE001 - a wake-up is a hint; the tick covers it
            log.exception("wake-up failed")
