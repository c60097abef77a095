"""The sweep: `tick(now, session_factory, handlers)` claims due rows and calls the injected
handlers, each row in its own transaction.

Exactly once, crash safe: a sweep claims rows with a conditional UPDATE (`fired_at IS NULL` and no
live claim; plus `FOR UPDATE SKIP LOCKED` on PostgreSQL), then handles each claimed row in its own
transaction that ends with a conditional UPDATE of that row (`claim_token = mine`): the handler's
writes and the row's new state commit together or not at all. A worker killed mid-sweep leaves
claims that expire after `lease`; another worker retries them. A worker that outlived its lease
finds its token replaced and rolls back. The timeout handler's own version check (the seat has not
moved since `deadline.version`, and the game row UPDATE is conditional on the version) makes a
bot move apply at most once even then.

The handlers (`ClockHandlers`) are the service's (`play.timeouts.ServiceClockHandlers`): the clock
imports nothing of play/.
"""

from __future__ import annotations

import logging
import secrets
import time as _time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Protocol

from sqlalchemy import and_, exists, func, or_, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from service.clock.deadlines import BOT_PLAYED_AFTER, open_deadlines, plan
from service.clock.zones import next_local_time
from service.store import db
from service.store.clock_models import CLOCK_TABLES, Deadline, DigestSchedule, SeatClock, utcnow
from service.store.outbox_models import naive_utc as _naive

log = logging.getLogger(__name__)

DEFAULT_LEASE = timedelta(minutes=5)


class ClockHandlers(Protocol):
    """What the service plugs into `tick`. Each call runs inside the transaction that also closes or
    advances the row; raise to roll everything back and retry later (after a backoff)."""

    def on_timeout(self, session: Session, deadline: Deadline) -> bool:
        """Make the owed decision (bot move through the move use case, version-checked).
        Return True if a move was applied, False if the decision is no longer owed (nothing to do).
        Raise on a concurrent-update conflict: the row is retried shortly."""

    def on_computer(self, session: Session, deadline: Deadline) -> bool:
        """Make the owed decision of a seat the computer plays (issue 18), through the move use case
        like a timeout but without its notices. Return True if a move was applied, False if the
        decision is no longer owed. Raise on a conflict: the row is retried shortly."""

    def on_reminder(self, session: Session, deadline: Deadline) -> bool | None:
        """Queue a reminder mail for the decision. Return False if it turned out not to be owed."""

    def on_digest(self, session: Session, seat_clocks: list[SeatClock], now: datetime) -> None:
        """Queue one digest mail to `seat_clocks[0].address` listing each (game_id, seat)."""



@dataclass
class TickReport:
    claimed: int = 0
    timeouts: int = 0  # bot moves applied
    computer: int = 0  # decisions of computer seats applied (issue 18)
    stale: int = 0  # timeouts/reminders whose decision was made meanwhile
    reminders: int = 0
    reminders_muted: int = 0  # seat's mail preference is digest/off
    digests: int = 0
    skipped: int = 0  # claim lost or row closed meanwhile
    errors: int = 0  # handler raised: rolled back, retried later
    elapsed_s: float = 0.0
    error_messages: list[str] = field(default_factory=list)

    @property
    def handled(self) -> int:
        return self.timeouts + self.computer + self.stale + self.reminders + self.reminders_muted + self.digests

    def add(self, other: TickReport) -> TickReport:
        for name in ("claimed", "timeouts", "computer", "stale", "reminders", "reminders_muted", "digests", "skipped",
                     "errors", "elapsed_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.error_messages.extend(other.error_messages)
        return self



# --------------------------------------------------------------------------------------------------
# Engines and sessions for code outside Flask (worker, tests, bench)
# --------------------------------------------------------------------------------------------------


def make_engine(url: str, **kwargs) -> Engine:
    """The service's engine (`store.db.make_engine`): on SQLite WAL, a busy timeout, and `BEGIN
    IMMEDIATE` for the write transactions `session_factory_for` opens."""
    return db.make_engine(url, **kwargs)


def session_factory_for(engine: Engine) -> Callable[[], AbstractContextManager[Session]]:
    """`session_factory()` -> context manager: a Session in one write transaction, committed on
    success, rolled back on an exception (the contract `tick` needs; `store.db.session_scope`, as
    `db.transaction(write=True)` is inside the service)."""

    def factory():
        return db.session_scope(engine, write=True)

    return factory


def create_tables(engine: Engine) -> None:
    from sqlmodel import SQLModel

    SQLModel.metadata.create_all(engine, tables=CLOCK_TABLES)


# --------------------------------------------------------------------------------------------------
# The sweep
# --------------------------------------------------------------------------------------------------


class _ClaimLost(Exception):
    pass


def _is_pg(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _retry_delay(attempts: int) -> timedelta:
    return timedelta(seconds=min(30 * 2 ** max(0, attempts), 3600))


def _claim(session_factory, table, due_cond, order_col, now: datetime, token: str, size: int,
           lease: timedelta) -> list[int]:
    """Claim up to `size` due rows for `token` in one short transaction; returns the ids won."""
    c = table.c
    claimable = and_(due_cond, or_(c.claimed_until.is_(None), c.claimed_until <= now))
    with session_factory() as s:
        q = select(c.id).where(claimable).order_by(order_col).limit(size)
        if _is_pg(s):
            q = q.with_for_update(skip_locked=True)
        ids = list(s.execute(q).scalars())
        if not ids:
            return []
        # Conditional: a row that another worker claimed meanwhile is not ours (rowcount semantics,
        # one statement for the batch; RETURNING gives the ids we won).
        res = s.execute(update(table).where(c.id.in_(ids), claimable)
                        .values(claimed_until=now + lease, claim_token=token)
                        .returning(c.id).execution_options(synchronize_session=False))
        return sorted(res.scalars())


def _finish(session: Session, table, row_id: int, token: str, values: dict, *extra) -> None:
    c = table.c
    res = session.execute(update(table).where(c.id == row_id, c.claim_token == token, *extra)
                          .values(claimed_until=None, claim_token=None, **values)
                          .execution_options(synchronize_session=False))
    if res.rowcount != 1:
        raise _ClaimLost(row_id)


def _release_after_error(session_factory, table, row_id: int, token: str, now: datetime, exc: BaseException):
    c = table.c
    try:
        with session_factory() as s:
            attempts = s.execute(select(c.attempts).where(c.id == row_id)).scalar() or 0
            s.execute(update(table).where(c.id == row_id, c.claim_token == token)
                      .values(claimed_until=now + _retry_delay(attempts), attempts=attempts + 1,
                              last_error=f"{type(exc).__name__}: {exc}"[:500])
                      .execution_options(synchronize_session=False))
    except Exception:  # noqa: BLE001 - the claim simply expires
        log.exception("clock: could not record the failure of row %s", row_id)


def _handle_deadline(s: Session, row_id: int, token: str, now: datetime, handlers: ClockHandlers,
                     report: TickReport) -> None:
    # the row and its seat's clock in one round trip
    found = s.execute(select(Deadline, SeatClock).outerjoin(
        SeatClock, and_(SeatClock.game_id == Deadline.game_id, SeatClock.seat == Deadline.seat))
        .where(Deadline.id == row_id).execution_options(populate_existing=True)).first()
    row, sc = found if found is not None else (None, None)
    if row is None or row.claim_token != token or row.fired_at is not None:
        report.skipped += 1
        return
    table = Deadline.__table__
    if row.next_event == "computer":  # a computer seat's decision (issue 18): no timeout count, no notices
        applied = bool(handlers.on_computer(s, row))
        s.flush()
        c = table.c
        _finish(s, table, row_id, token, {"fired_at": func.coalesce(c.fired_at, now),
                                          "outcome": "computer" if applied else func.coalesce(c.outcome, "stale"),
                                          "next_at": None, "next_event": None})
        if applied:
            report.computer += 1
        else:
            report.stale += 1
        return
    if row.next_event == "timeout":
        if sc is None:
            sc = SeatClock(game_id=row.game_id, seat=row.seat, updated_at=now)
            s.add(sc)
        before = (sc.consecutive_timeouts, sc.bot_played)
        sc.consecutive_timeouts += 1  # before the handler, so its mail can say "now played by the bot"
        if sc.consecutive_timeouts >= BOT_PLAYED_AFTER:
            sc.bot_played = True
        s.flush()
        applied = bool(handlers.on_timeout(s, row))
        if not applied:
            sc.consecutive_timeouts, sc.bot_played = before
        else:
            # again after the handler, in case its move was (wrongly) counted as the player acting
            sc.consecutive_timeouts = before[0] + 1
            sc.bot_played = before[1] or sc.consecutive_timeouts >= BOT_PLAYED_AFTER
        if applied and sc.bot_played:
            # rows the handler just scheduled for this seat: immediate bot play from now on
            for other in open_deadlines(s, row.game_id, row.seat):
                if other.id != row.id and not other.bot_played:
                    other.bot_played = True
                    other.deadline_at = now
                    other.moves += 1  # the calendar invitation's SEQUENCE (issue 32.2)
                    plan(other, sc, now)
        s.flush()
        # The handler's own schedule_decisions may have closed the row ("made"): "timeout" wins; a
        # move that committed meanwhile may have closed it too: then its outcome stays.
        c = table.c
        outcome = "timeout" if applied else func.coalesce(c.outcome, "stale")
        _finish(s, table, row_id, token, {"fired_at": func.coalesce(c.fired_at, now), "outcome": outcome,
                                          "next_at": None, "next_event": None})
        if applied:
            report.timeouts += 1
        else:
            report.stale += 1
        return
    if row.next_event == "reminder":
        counted = False
        if sc_pref(sc) == "every":
            sent = handlers.on_reminder(s, row)
            s.flush()
            if sent is False:
                report.stale += 1
            else:
                report.reminders += 1
                counted = True
        else:
            report.reminders_muted += 1
        left = [o for o in (row.reminders_left or []) if row.deadline_at - timedelta(seconds=int(o)) > now]
        probe = SimpleNamespace(fired_at=None, policy=row.policy, deadline_at=row.deadline_at,
                                vacation_until=row.vacation_until, bot_played=row.bot_played,
                                reminders_left=left, next_at=None, next_event=None)
        plan(probe, sc, now)
        _finish(s, table, row_id, token,
                {"reminders_left": left, "reminders_sent": row.reminders_sent + int(counted),
                 "next_at": probe.next_at, "next_event": probe.next_event},
                table.c.fired_at.is_(None))
        return
    _finish(s, table, row_id, token, {}, table.c.fired_at.is_(None))  # nothing to do (re-planned)
    report.skipped += 1


def sc_pref(sc: SeatClock | None) -> str:
    return sc.mail_pref if sc else "every"


def _handle_digest(s: Session, row_id: int, token: str, now: datetime, handlers: ClockHandlers,
                   report: TickReport) -> None:
    d = s.get(DigestSchedule, row_id, populate_existing=True)
    if d is None or d.claim_token != token:
        report.skipped += 1
        return
    waiting = exists().where(Deadline.game_id == SeatClock.game_id, Deadline.seat == SeatClock.seat,
                             Deadline.fired_at.is_(None))
    seats = list(s.execute(select(SeatClock).where(SeatClock.address == d.address, SeatClock.mail_pref == "digest",
                                                waiting).order_by(SeatClock.game_id, SeatClock.seat))
                 .scalars())
    values: dict = {"next_at": next_local_time(now, d.tz), "attempts": 0, "last_error": None}
    if seats:
        handlers.on_digest(s, seats, now)
        s.flush()
        values["last_sent_at"] = now
        report.digests += 1
    else:
        report.skipped += 1
    _finish(s, DigestSchedule.__table__, row_id, token, values)


def _process(session_factory, table, handle, ids, token, now, handlers, report) -> None:
    for row_id in ids:
        counted = TickReport()  # what this row did: added to the report only once it committed
        try:
            with session_factory() as s:
                handle(s, row_id, token, now, handlers, counted)
            report.add(counted)
        except _ClaimLost:
            report.skipped += 1
            log.warning("clock: lost the claim on %s %s (lease expired?); rolled back", table.name, row_id)
        except Exception as exc:  # noqa: BLE001 - one bad row must not stop the sweep
            report.errors += 1
            report.error_messages.append(f"{table.name} {row_id}: {type(exc).__name__}: {exc}")
            log.exception("clock: handler failed for %s %s; will retry", table.name, row_id)
            _release_after_error(session_factory, table, row_id, token, now, exc)


def tick(now: datetime | None, session_factory: Callable[[], AbstractContextManager[Session]],
         handlers: ClockHandlers, *, batch_size: int = 200, lease: timedelta = DEFAULT_LEASE,
         max_rows: int = 20_000) -> TickReport:
    """Process everything due at `now` (naive UTC; None = the real time): timeouts, reminders and
    digests. Idempotent; safe to run in any number of processes at once.

    `session_factory()` must return a context manager yielding a Session inside a begun
    transaction that commits on success and rolls back on an exception (see `session_factory_for`;
    in the service: `lambda: db.transaction(write=True, app=app)`)."""
    started = _time.perf_counter()
    fixed = _naive(now) if now is not None else None
    token = secrets.token_hex(16)
    report = TickReport()
    d = Deadline.__table__
    g = DigestSchedule.__table__
    # With the real clock, each batch reads the time again: a batch claimed late in a long sweep
    # still gets a full lease.
    for table, handle, due_of in (
        (d, _handle_deadline, lambda t: and_(d.c.fired_at.is_(None), d.c.next_at <= t)),
        (g, _handle_digest, lambda t: g.c.next_at <= t),
    ):
        while report.claimed < max_rows:
            cur = fixed or utcnow()
            ids = _claim(session_factory, table, due_of(cur), table.c.next_at, cur, token,
                         min(batch_size, max_rows - report.claimed), lease)
            if not ids:
                break
            report.claimed += len(ids)
            _process(session_factory, table, handle, ids, token, cur, handlers, report)
    report.elapsed_s = _time.perf_counter() - started
    return report


def due_count(session: Session, now: datetime | None = None) -> int:
    """How many open rows are due (monitoring)."""
    now = _naive(now)
    return session.execute(select(func.count()).select_from(Deadline).where(
        Deadline.fired_at.is_(None), Deadline.next_at <= now)).scalar_one()
