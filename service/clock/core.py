"""The clock: deadlines, reminders, timeouts, vacations, quiet hours and daily digests.

No Flask here: pure functions over a SQLAlchemy/SQLModel session, plus `tick`, which processes
everything due. The service plugs in through three narrow points:

* in the move's transaction, `schedule_decisions(session, game_id, game.pending(), version, now,
  settings, acted_seats={seat})` closes the rows of decisions that are no longer owed (or were just
  made) and inserts rows for new ones; `note_player_acted(...)` first when a human acted;
* `tick(now, session_factory, handlers)` claims due rows and calls the injected handlers, each in its
  own transaction: `on_timeout(session, deadline) -> bool`, `on_reminder(session, deadline)`,
  `on_digest(session, seat_clocks, now)`;
* `set_vacation` / `end_vacation` / `set_seat_settings` / `play_now` from the board page.

Exactly once, crash safe: a sweep claims rows with a conditional UPDATE (`fired_at IS NULL` and no
live claim; plus `FOR UPDATE SKIP LOCKED` on PostgreSQL), then handles each claimed row in its own
transaction that ends with a conditional UPDATE of that row (`claim_token = mine`): the handler's
writes and the row's new state commit together or not at all. A worker killed mid-sweep leaves
claims that expire after `lease`; another worker retries them. A worker that outlived its lease
finds its token replaced and rolls back. The timeout handler's own version check (the seat has not
moved since `deadline.version`, and the game row UPDATE is conditional on the version) makes a
bot move apply at most once even then.

Times are naive UTC everywhere; time zones only matter for quiet hours (22:00-08:00 local, when no
reminder or digest goes out; deadlines themselves are never deferred) and for the 08:00 digest.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time as _time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, NamedTuple, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import (
    and_,
    bindparam,
    cast,
    create_engine,
    event,
    exists,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from service.store.clock_models import CLOCK_TABLES, Deadline, DigestSchedule, SeatClock, utcnow
from service.store.direct import direct

log = logging.getLogger(__name__)

__all__ = [
    "ClockSettings", "ClockError", "ClockHandlers", "TickReport", "schedule_decisions", "close_game",
    "note_player_acted", "set_vacation", "end_vacation", "set_seat_settings", "seat_clock",
    "open_deadlines", "seat_states", "SeatState", "OpenDeadline", "board_status", "vacation_left", "to_local", "play_now", "tick", "defer_quiet", "next_local_time", "is_quiet", "make_engine",
    "session_factory_for", "create_tables", "utcnow", "Deadline", "SeatClock", "DigestSchedule",
]

HOUR = 3600
DAY = 24 * HOUR
MIN_DECISION_S = 1 * HOUR
MAX_DECISION_S = 14 * DAY
DEFAULT_DECISION_S = 2 * DAY
DEFAULT_REMINDERS_S = (24 * HOUR, 4 * HOUR)
MAX_VACATION = timedelta(days=14)
QUIET_START = time(22, 0)
QUIET_END = time(8, 0)
BOT_PLAYED_AFTER = 3  # consecutive timeouts
POLICIES = ("bot", "wait")
MAIL_PREFS = ("every", "digest", "off")
DEFAULT_LEASE = timedelta(minutes=5)


class ClockError(ValueError):
    """A request the clock refuses (bad settings, too much vacation); the message is readable."""


@dataclass(frozen=True)
class ClockSettings:
    """Per-game settings (set at creation). `decision_seconds` is clamped to 1 hour .. 14 days."""

    decision_seconds: int = DEFAULT_DECISION_S
    reminders: tuple[int, ...] = DEFAULT_REMINDERS_S  # seconds before the deadline
    policy: str = "bot"  # bot | wait

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ClockError(f"timeout policy must be one of {', '.join(POLICIES)}")
        if not MIN_DECISION_S <= int(self.decision_seconds) <= MAX_DECISION_S:
            raise ClockError("time per decision must be between 1 hour and 14 days")
        if any(int(r) <= 0 for r in self.reminders):
            raise ClockError("reminder offsets must be positive")

    @classmethod
    def from_hours(cls, decision_hours: float = 48, reminder_hours: Iterable[float] = (24, 4),
                   policy: str = "bot") -> ClockSettings:
        return cls(int(decision_hours * HOUR), tuple(int(h * HOUR) for h in reminder_hours), policy)

    def offsets(self) -> list[int]:
        return list(self._offsets)

    @functools.cached_property
    def _offsets(self) -> tuple[int, ...]:  # (every new decision asks; the settings are shared per game)
        return tuple(sorted({int(r) for r in self.reminders}, reverse=True))


class ClockHandlers(Protocol):
    """What the service plugs into `tick`. Each call runs inside the transaction that also closes or
    advances the row; raise to roll everything back and retry later (after a backoff)."""

    def on_timeout(self, session: Session, deadline: Deadline) -> bool:
        """Make the owed decision (bot move through the move use case, version-checked).
        Return True if a move was applied, False if the decision is no longer owed (nothing to do).
        Raise on a concurrent-update conflict: the row is retried shortly."""

    def on_reminder(self, session: Session, deadline: Deadline) -> bool | None:
        """Queue a reminder mail for the decision. Return False if it turned out not to be owed."""

    def on_digest(self, session: Session, seat_clocks: list[SeatClock], now: datetime) -> None:
        """Queue one digest mail to `seat_clocks[0].address` listing each (game_id, seat)."""

    # Optional: `before_sweep(session_factory, now) -> int`, called first by `tick`: decisions the
    # service holds elsewhere and that are due at `now` become `clock_deadline` rows (the service's
    # held decisions, see `clock_service`), so that this sweep handles them. Returns how many.


@dataclass
class TickReport:
    claimed: int = 0
    timeouts: int = 0  # bot moves applied
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
        return self.timeouts + self.stale + self.reminders + self.reminders_muted + self.digests

    def add(self, other: TickReport) -> TickReport:
        for name in ("claimed", "timeouts", "stale", "reminders", "reminders_muted", "digests", "skipped",
                     "errors", "elapsed_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.error_messages.extend(other.error_messages)
        return self


# --------------------------------------------------------------------------------------------------
# Time zones and quiet hours
# --------------------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def valid_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _naive(value: datetime | None) -> datetime:
    if value is None:
        return utcnow()
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def to_local(t: datetime, tz: str | None) -> datetime:
    """Naive UTC -> aware local time (for showing deadlines in the player's zone)."""
    return _naive(t).replace(tzinfo=UTC).astimezone(zone(tz))


def is_quiet(t: datetime, tz: str | None) -> bool:
    local = to_local(t, tz).time()
    return local >= QUIET_START or local < QUIET_END


def next_local_time(t: datetime, tz: str | None, at: time = QUIET_END, *, strict: bool = True) -> datetime:
    """The first moment after `t` (naive UTC; at or after when strict=False) when the wall clock in
    `tz` shows `at`; naive UTC. DST-correct: the wall time is built in the zone, then converted."""
    z = zone(tz)
    local = to_local(t, tz)
    candidate = datetime.combine(local.date(), at, tzinfo=z)
    base = _naive(t)
    for _ in range(3):
        utc = candidate.astimezone(UTC).replace(tzinfo=None)
        if utc > base or (not strict and utc == base):
            return utc
        candidate = datetime.combine(candidate.date() + timedelta(days=1), at, tzinfo=z)
    raise AssertionError("unreachable")  # pragma: no cover


def defer_quiet(t: datetime, tz: str | None) -> datetime:
    """`t` if it is outside quiet hours in `tz`, else the next 08:00 local (naive UTC)."""
    t = _naive(t)
    return next_local_time(t, tz, QUIET_END) if is_quiet(t, tz) else t


# --------------------------------------------------------------------------------------------------
# Engines and sessions for code outside Flask (worker, tests, bench)
# --------------------------------------------------------------------------------------------------


def make_engine(url: str, **kwargs) -> Engine:
    """An engine whose transactions are safe for the clock: SQLite gets WAL, a busy timeout and
    `BEGIN IMMEDIATE` (every clock transaction writes; a deferred read-then-write transaction could
    fail with "database is locked" instead of waiting)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **kwargs)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):
            dbapi_connection.isolation_level = None
            cur = dbapi_connection.cursor()
            cur.execute("PRAGMA busy_timeout = 30000")
            if ":memory:" not in url and "mode=memory" not in url:
                cur.execute("PRAGMA journal_mode = WAL")
                cur.execute("PRAGMA synchronous = NORMAL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


def _writer_queue(engine: Engine):
    """A SQLite file's writer queue: the service's own (`service.store.db.WriterQueue`, an `flock` on
    `<database>.writers`), so that clock sessions made here take turns with each other and with the
    service's writers. Without it a waiting `BEGIN IMMEDIATE` sleeps in SQLite's busy handler (1 ms
    growing to 100 ms per try) and only wins if the lock happens to be free when it wakes: another
    process doing back-to-back short write transactions (a sweep) starves it, a whole sweep long.
    None for PostgreSQL and in-memory SQLite. (`service.store.db` is imported only here, for SQLite.)"""
    if engine.dialect.name != "sqlite":
        return None
    from service.store.db import writer_queue_for  # same lock file and protocol as the service's writers

    return writer_queue_for(engine.url.render_as_string(hide_password=False))


def session_factory_for(engine: Engine) -> Callable[[], AbstractContextManager[Session]]:
    """`session_factory()` -> context manager: a Session in one transaction, committed on success,
    rolled back on an exception (the contract `tick` needs; `service.store.db.transaction(write=True)`
    is the same thing inside the service). On a SQLite file each transaction first queues on the
    service's writer queue (`_writer_queue`), as `db.transaction(write=True)` does."""
    queue = _writer_queue(engine)

    @contextmanager
    def factory():
        with queue.hold() if queue is not None else nullcontext():
            with Session(engine, expire_on_commit=False) as session:
                with session.begin():
                    yield session

    return factory


def create_tables(engine: Engine) -> None:
    from sqlmodel import SQLModel

    SQLModel.metadata.create_all(engine, tables=CLOCK_TABLES)


# --------------------------------------------------------------------------------------------------
# Per-seat settings
# --------------------------------------------------------------------------------------------------


def seat_clock(session: Session, game_id: str, seat: int) -> SeatClock | None:
    return session.get(SeatClock, (game_id, seat))


def _seat_clock_or_new(session: Session, game_id: str, seat: int, now: datetime) -> SeatClock:
    sc = session.get(SeatClock, (game_id, seat))
    if sc is None:
        sc = SeatClock(game_id=game_id, seat=seat, updated_at=now)
        session.add(sc)
    return sc


# The move path (`schedule_decisions`, `note_player_acted`, `board_status`) runs in every move's
# transaction, so it uses Core statements on the tables (no ORM objects, no unit-of-work flush): one
# SELECT of the game's seat clocks, one of its open rows, one UPDATE closing rows by id, one INSERT of
# the new rows; the seat clock is written only when something changes. ORM objects of these rows that
# the session already holds (the sweep's claimed `Deadline` and `SeatClock`, rows loaded by
# `open_deadlines`) are kept in step with `_sync`, so later ORM writes in the same transaction neither
# act on stale values nor write them back. The rarer paths (vacation, settings, play now, the sweep)
# keep using ORM objects.
_DT = Deadline.__table__
_ST = SeatClock.__table__


@dataclass(slots=True)
class SeatState:
    """The part of a `clock_seat` row the move path needs (a snapshot, not an ORM object). It has the
    attributes of `SeatClock` that `_plan`, `board_status` and `schedule_decisions` read, so either
    can be passed to them."""

    seat: int
    tz: str
    mail_pref: str
    consecutive_timeouts: int
    bot_played: bool
    vacation_until: datetime | None


class OpenDeadline(NamedTuple):
    """An open `clock_deadline` row as `schedule_decisions` returns it (`id` None: inserted by that
    call; its id is higher than every other row's)."""

    id: int | None
    seat: int
    kind: str
    deadline_at: datetime
    policy: str


# Built once: a statement object caches its own cache key, so executing it again skips building
# the statement and its key; the compiled form comes from the engine's statement cache.
_SEATS_OF_GAME = select(_ST.c.seat, _ST.c.tz, _ST.c.mail_pref, _ST.c.consecutive_timeouts, _ST.c.bot_played,
                        _ST.c.vacation_until).where(_ST.c.game_id == bindparam("game_id"))
_OPEN_OF_GAME = (select(_DT.c.id, _DT.c.seat, _DT.c.kind, _DT.c.deadline_at, _DT.c.policy)
                 .where(_DT.c.game_id == bindparam("game_id"), _DT.c.fired_at.is_(None))
                 .order_by(_DT.c.seat, _DT.c.id))
# the seat clocks and the open rows of a game in one statement (the move's): kind 0 rows are seat clocks,
# kind 1 rows open deadlines, each with NULL in the other kind's columns
_CLOCK_OF_GAME = union_all(
    select(literal(0).label("row_kind"), _ST.c.seat, _ST.c.tz, _ST.c.mail_pref, _ST.c.consecutive_timeouts,
           _ST.c.bot_played, _ST.c.vacation_until, cast(null(), _DT.c.id.type).label("id"),
           cast(null(), _DT.c.kind.type).label("kind"), cast(null(), _DT.c.deadline_at.type).label("deadline_at"),
           cast(null(), _DT.c.policy.type).label("policy"))
    .where(_ST.c.game_id == bindparam("game_id")),
    select(literal(1), _DT.c.seat, cast(null(), _ST.c.tz.type), cast(null(), _ST.c.mail_pref.type),
           cast(null(), _ST.c.consecutive_timeouts.type), cast(null(), _ST.c.bot_played.type),
           cast(null(), _ST.c.vacation_until.type), _DT.c.id, _DT.c.kind, _DT.c.deadline_at, _DT.c.policy)
    .where(_DT.c.game_id == bindparam("game_id"), _DT.c.fired_at.is_(None)),
).order_by("row_kind", "seat", "id")
_CLOSED = {"fired_at": bindparam("closed_at"), "outcome": "made", "next_at": None, "next_event": None}
_CLOSE_ONE = update(_DT).where(_DT.c.id == bindparam("row_id")).values(**_CLOSED)
_INSERT_ROWS = insert(_DT).inline()  # no RETURNING: nothing reads the new ids
_RESET_SEAT = (update(_ST).where(_ST.c.game_id == bindparam("b_game_id"), _ST.c.seat == bindparam("b_seat"))
               .values(consecutive_timeouts=0, bot_played=False, updated_at=bindparam("acted_at")))


def _core(session: Session) -> Connection:
    """The session's connection for Core statements, after flushing what the session holds (an ORM
    query would autoflush; a Core statement does not, and must see the same rows)."""
    session.flush()
    return session.connection()


def _sync(session: Session, model: type, idents: Iterable[Any], values: dict) -> None:
    """After a Core UPDATE: the ORM objects of those rows that the session holds take the new values
    as their committed state (no reload, and a later flush does not write the old ones back)."""
    if not len(session.identity_map):
        return
    mapper = model.__mapper__
    for ident in idents:
        obj = session.identity_map.get(mapper.identity_key_from_primary_key(
            ident if isinstance(ident, tuple) else (ident,)))
        if obj is not None:
            for key, value in values.items():
                set_committed_value(obj, key, value)


def seat_states(session: Session, game_id: str) -> dict[int, SeatState]:
    """The game's seat clocks by seat, as `SeatState` snapshots (one Core SELECT)."""
    rows = _core(session).execute(_SEATS_OF_GAME, {"game_id": game_id})
    return {r[0]: SeatState(*r) for r in rows}


GameClock = tuple[dict[int, "SeatState"], list["OpenDeadline"]]


def game_clock(session: Session, game_id: str) -> GameClock:
    """`seat_states` and the game's open rows (as `schedule_decisions` takes them), in one SELECT."""
    clocks: dict[int, SeatState] = {}
    rows: list[OpenDeadline] = []
    for r in direct(_core(session), _CLOCK_OF_GAME, {"game_id": game_id}):
        if r[0] == 0:
            clocks[r[1]] = SeatState(*r[1:7])
        else:
            rows.append(OpenDeadline(r[7], r[1], r[8], r[9], r[10]))
    return clocks, rows


def game_open_rows(session: Session, game_id: str) -> list[OpenDeadline]:
    """The game's open `clock_deadline` rows as `OpenDeadline` tuples, by seat then id."""
    return [OpenDeadline._make(r) for r in direct(_core(session), _OPEN_OF_GAME, {"game_id": game_id})]


_open_rows = game_open_rows


def open_deadlines(session: Session, game_id: str, seat: int | None = None) -> list[Deadline]:
    """The open rows of a game (or seat) as ORM objects, for the paths that change them (vacation,
    play now, bot play) and the digest. The board and the mails use `board_status`."""
    q = select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))
    if seat is not None:
        q = q.where(Deadline.seat == seat)
    return list(session.execute(q.order_by(Deadline.seat, Deadline.id)).scalars())


def set_seat_settings(session: Session, game_id: str, seat: int, *, now: datetime | None = None,
                      address: str | None = None, tz: str | None = None,
                      mail_pref: str | None = None) -> SeatClock:
    """Record the seat's address (for digests), time zone (asked at acceptance) and mail preference
    (every | digest | off). Re-plans the seat's open rows (quiet hours, muted reminders)."""
    now = _naive(now)
    if tz is not None and not valid_zone(tz):
        raise ClockError(f"unknown time zone: {tz}")
    if mail_pref is not None and mail_pref not in MAIL_PREFS:
        raise ClockError(f"mail preference must be one of {', '.join(MAIL_PREFS)}")
    sc = _seat_clock_or_new(session, game_id, seat, now)
    if address is not None:
        sc.address = address.strip().lower()
    if tz is not None:
        sc.tz = tz
    if mail_pref is not None:
        sc.mail_pref = mail_pref
    sc.updated_at = now
    if sc.mail_pref == "digest" and sc.address:
        d = session.execute(select(DigestSchedule).where(DigestSchedule.address == sc.address)).scalar()
        if d is None:
            session.add(DigestSchedule(address=sc.address, tz=sc.tz, next_at=next_local_time(now, sc.tz)))
        elif d.tz != sc.tz:
            d.tz = sc.tz
            d.next_at = next_local_time(now, sc.tz)
    for row in open_deadlines(session, game_id, seat):
        _plan(row, sc, now)
    session.flush()
    return sc


def board_status(session: Session, game_id: str, now: datetime | None = None, *,
                 clocks: dict[int, SeatClock] | None = None,
                 open_rows: list[Deadline] | None = None) -> dict[int, dict]:
    """What the board and the mails show per seat: {seat: {"deadlines": [(kind, deadline_at)],
    "policy", "vacation_until" (None unless on vacation), "bot_played", "tz", "mail_pref"}}; times
    naive UTC (show them with `to_local(t, viewer_tz)`). Seats with nothing to show are absent.
    `clocks` / `open_rows`: the game's seat clocks by seat (`seat_states`, or SeatClock rows) and its
    open deadline rows when the caller has them from this transaction (as `schedule_decisions`
    returns them), to save the two SELECTs."""
    now = _naive(now)
    out: dict[int, dict] = {}

    def entry(seat: int, sc: SeatClock | None) -> dict:
        return out.setdefault(seat, {"deadlines": [], "policy": None,
                                     "vacation_until": sc.vacation_until if _on_vacation(sc, now) else None,
                                     "bot_played": bool(sc and sc.bot_played), "tz": sc.tz if sc else "UTC",
                                     "mail_pref": sc.mail_pref if sc else "every"})

    if clocks is None:
        clocks = seat_states(session, game_id)
    if open_rows is None:
        open_rows = _open_rows(session, game_id)
    else:  # by seat, then id; rows just inserted (id None) come last, in the order given
        open_rows = sorted((r for r in open_rows if getattr(r, "fired_at", None) is None),
                           key=lambda r: (r.seat, r.id is None, r.id or 0))
    for seat, sc in clocks.items():
        if _on_vacation(sc, now) or sc.bot_played:
            entry(seat, sc)
    for row in open_rows:
        e = entry(row.seat, clocks.get(row.seat))
        e["deadlines"].append((row.kind, row.deadline_at))
        e["policy"] = row.policy
    return out


# --------------------------------------------------------------------------------------------------
# Planning one row
# --------------------------------------------------------------------------------------------------


def _plan(row: Deadline, sc: SeatClock | SeatState | None, now: datetime) -> None:
    """Set `next_at`/`next_event` from the row's deadline, reminders, vacation and quiet hours."""
    if row.fired_at is not None:
        row.next_at, row.next_event = None, None
        return
    row.next_at, row.next_event = _next_event(row.deadline_at, row.policy, row.bot_played, row.vacation_until,
                                              row.reminders_left, sc, now)


def _next_event(deadline_at: datetime, policy: str, bot_played: bool, vacation_until: datetime | None,
                reminders_left: Iterable[int] | None, sc: SeatClock | SeatState | None, now: datetime
                ) -> tuple[datetime | None, str | None]:
    """(next_at, next_event) of an open row (`_plan`; `schedule_decisions` for rows it inserts)."""
    if bot_played:
        return deadline_at, "timeout"
    tz = sc.tz if sc else "UTC"
    reminders_on = (sc.mail_pref if sc else "every") == "every"
    floor = vacation_until if vacation_until and vacation_until > now else None
    reminder_at = None
    if reminders_on:
        for off in reminders_left or []:
            t = deadline_at - timedelta(seconds=int(off))
            if floor is not None and t < floor:
                t = floor
            t = defer_quiet(t, tz)
            if policy == "bot" and t >= deadline_at:
                continue  # would come after the timeout: pointless
            reminder_at = t
            break
    timeout_at = deadline_at if policy == "bot" else None
    if reminder_at is not None and (timeout_at is None or reminder_at < timeout_at):
        return reminder_at, "reminder"
    if timeout_at is not None:
        return timeout_at, "timeout"
    return None, None


def _future_offsets(offsets: Iterable[int], deadline_at: datetime, now: datetime) -> list[int]:
    return sorted({int(o) for o in offsets if deadline_at - timedelta(seconds=int(o)) > now}, reverse=True)


def _on_vacation(sc: SeatClock | SeatState | None, now: datetime) -> bool:
    return bool(sc and sc.vacation_until and sc.vacation_until > now)


# --------------------------------------------------------------------------------------------------
# Called in the move's transaction
# --------------------------------------------------------------------------------------------------


def _pending_pairs(pending: Iterable[Any]) -> set[tuple[int, str]]:
    pairs = set()
    for p in pending:
        if isinstance(p, dict):
            pairs.add((int(p["seat"]), str(p["kind"])))
        elif hasattr(p, "seat") and hasattr(p, "kind"):
            pairs.add((int(p.seat), str(p.kind)))
        else:
            seat, kind = p
            pairs.add((int(seat), str(kind)))
    return pairs


def schedule_decisions(session: Session, game_id: str, pending: Iterable[Any], version: int,
                       now: datetime | None = None, settings: ClockSettings | None = None, *,
                       acted_seats: Iterable[int] = (), clocks: dict[int, SeatState] | None = None,
                       open_rows: list[OpenDeadline] | None = None) -> list[OpenDeadline]:
    """Bring the game's open deadline rows in line with `pending` (the engine's `game.pending()`:
    Pending objects, (seat, kind) pairs or dicts) after a move that produced state `version`.

    A row stays (keeps its deadline) when its seat still owes the same kind of decision and did not
    act in this move (e.g. the other seats during the opening reveal). Rows of decisions no longer
    owed, and every row of `acted_seats`, are closed (`outcome="made"`); new decisions get new rows.
    Pass every seat in `acted_seats` when a new round starts. Call it in the move's transaction
    (it never commits). Returns the game's open rows as `OpenDeadline` tuples, by seat then id.
    `clocks`: the game's seat clocks by seat when the caller already read them in this transaction
    (`seat_states`), `open_rows` its open rows (`game_clock` reads both at once), each to save a query.

    Statements: one SELECT of the open rows (none when `open_rows` is given), one UPDATE closing rows by id (before the INSERT: the
    partial unique index must see the old row closed), one INSERT of the new rows (and the SELECT of
    the seat clocks when there are new rows and `clocks` is None)."""
    now = _naive(now)
    settings = settings or ClockSettings()
    owed = _pending_pairs(pending)
    acted = {int(s) for s in acted_seats}
    rows = _open_rows(session, game_id) if open_rows is None else list(open_rows)  # (flushes the session)
    conn = session.connection()
    closing = [r.id for r in rows if (r.seat, r.kind) not in owed or r.seat in acted]
    if closing:
        direct(conn, _CLOSE_ONE, [{"row_id": row_id, "closed_at": now} for row_id in closing])
        _sync(session, Deadline, closing, {"fired_at": now, "outcome": "made", "next_at": None, "next_event": None})
        gone = set(closing)
        rows = [r for r in rows if r.id not in gone]
    new = sorted(owed - {(r.seat, r.kind) for r in rows})
    if new:
        if clocks is None:
            clocks = seat_states(session, game_id)
        values = [_new_row(game_id, seat, kind, version, settings, clocks.get(seat), now) for seat, kind in new]
        direct(conn, _INSERT_ROWS, values)
        rows.extend(OpenDeadline(None, v["seat"], v["kind"], v["deadline_at"], v["policy"]) for v in values)
        rows.sort(key=lambda r: r.seat)  # stable: by seat, then id (the new rows have the highest ids)
    return rows


def _new_row(game_id: str, seat: int, kind: str, version: int, settings: ClockSettings,
             sc: SeatState | SeatClock | None, now: datetime) -> dict:
    """The column values of a decision that has just come up: a bot-played seat's is due at once; on
    vacation the full decision time runs from the vacation's end; reminders already past are dropped."""
    decision_s = int(settings.decision_seconds)
    bot = bool(sc is not None and sc.bot_played)
    vacation_until = paused = None
    if bot:
        deadline_at = now
        reminders = settings.offsets()
    else:
        if _on_vacation(sc, now):
            vacation_until, paused = sc.vacation_until, decision_s
            deadline_at = vacation_until + timedelta(seconds=decision_s)
        else:
            deadline_at = now + timedelta(seconds=decision_s)
        reminders = _future_offsets(settings.offsets(), deadline_at, now)
    next_at, next_event = _next_event(deadline_at, settings.policy, bot, vacation_until, reminders, sc, now)
    return {"game_id": game_id, "seat": seat, "kind": kind, "version": int(version), "policy": settings.policy,
            "decision_seconds": decision_s, "reminders_left": reminders, "reminders_sent": 0, "created_at": now,
            "deadline_at": deadline_at, "next_at": next_at, "next_event": next_event,
            "vacation_until": vacation_until, "paused_remaining_s": paused, "bot_played": bot, "attempts": 0}


# A decision's row values (`_new_row`) kept elsewhere than in `clock_deadline` (the service holds the
# one decision owed in play on its game row): as JSON data, then back, then inserted as the row it
# would have been from the start (same deadline, reminders and times).
_HELD_TIMES = ("created_at", "deadline_at", "next_at", "vacation_until")


def new_decision(game_id: str, seat: int, kind: str, version: int, settings: ClockSettings,
                 sc: SeatState | SeatClock | None, now: datetime) -> dict:
    """The row values of a decision that has just come up (what `schedule_decisions` inserts)."""
    return _new_row(game_id, seat, kind, version, settings, sc, _naive(now))


def held_json(values: dict) -> dict:
    return {k: (v.isoformat() if k in _HELD_TIMES and v is not None else v) for k, v in values.items()}


def held_values(data: dict) -> dict:
    return {k: (datetime.fromisoformat(v) if k in _HELD_TIMES and v is not None else v) for k, v in data.items()}


def held_row(values: dict) -> OpenDeadline:
    """A held decision as `schedule_decisions` returns open rows (id None: not in the table)."""
    return OpenDeadline(None, values["seat"], values["kind"], values["deadline_at"], values["policy"])


def insert_decision(session: Session, values: dict) -> None:
    """Write a held decision into `clock_deadline` (its values as `new_decision` made them)."""
    direct(_core(session), _INSERT_ROWS, [values])


def close_game(session: Session, game_id: str, now: datetime | None = None) -> None:
    """Game over or cancelled: close every open row."""
    schedule_decisions(session, game_id, [], 0, now)


def note_player_acted(session: Session, game_id: str, seat: int, now: datetime | None = None, *,
                      clocks: dict[int, SeatState] | None = None) -> bool:
    """The seat's player acted (a move, or any action from a link or page): reset the consecutive
    timeout count and end bot play. Call it BEFORE `schedule_decisions` in a human move's
    transaction (the bot's timeout move must not call it). Returns True if bot play ended.
    `clocks`: the game's `seat_states` from this transaction (updated here), to save a query.
    Writes only when there is something to reset (a timeout count or bot play): the common move
    costs no statement here (`clock_seat.updated_at` is the time of the last change)."""
    now = _naive(now)
    if clocks is None:
        clocks = seat_states(session, game_id)
    if not resets_seat(clocks, seat):
        return False
    sc = clocks[seat]
    was_bot = bool(sc.bot_played)
    _core(session).execute(_RESET_SEAT, {"b_game_id": game_id, "b_seat": seat, "acted_at": now})
    _sync(session, SeatClock, [(game_id, seat)], {"consecutive_timeouts": 0, "bot_played": False, "updated_at": now})
    sc.consecutive_timeouts, sc.bot_played = 0, False
    if was_bot:  # rare: the seat's rows that were due at once get a full decision time again (ORM)
        for row in open_deadlines(session, game_id, seat):
            if row.bot_played:
                row.bot_played = False
                row.deadline_at = now + timedelta(seconds=row.decision_seconds)
                row.reminders_left = _future_offsets(row.reminders_left or DEFAULT_REMINDERS_S,
                                                     row.deadline_at, now)
                _plan(row, sc, now)
        session.flush()
    return was_bot


def resets_seat(clocks: dict[int, SeatState], seat: int) -> bool:
    """`note_player_acted` has something to reset for this seat (a timeout count or bot play)."""
    sc = clocks.get(seat)
    return sc is not None and bool(sc.consecutive_timeouts or sc.bot_played)


def play_now(session: Session, game_id: str, seat: int, now: datetime | None = None) -> int:
    """The host's "play for them now": the seat's open decisions time out at the next sweep (any
    policy). Returns how many rows were advanced."""
    now = _naive(now)
    n = 0
    for row in open_deadlines(session, game_id, seat):
        row.bot_played = True
        row.deadline_at = now
        _plan(row, seat_clock(session, game_id, seat), now)
        n += 1
    session.flush()
    return n


# --------------------------------------------------------------------------------------------------
# Vacations
# --------------------------------------------------------------------------------------------------


def vacation_left(sc: SeatClock | None, now: datetime) -> timedelta:
    if sc is None:
        return MAX_VACATION
    used = timedelta(seconds=sc.vacation_used_s)
    if _on_vacation(sc, now):
        used -= sc.vacation_until - now
    return max(timedelta(0), MAX_VACATION - used)


def set_vacation(session: Session, game_id: str, seat: int, until: datetime,
                 now: datetime | None = None) -> SeatClock:
    """Pause the seat's deadlines until `until` (at most 14 days per game and seat in total; setting
    a new one replaces the current one and gives back its unused part). Its open deadlines are
    extended by the pause; decisions that come up during it get their full time after it. Counts as
    the player acting (ends bot play)."""
    now, until = _naive(now), _naive(until)
    if until <= now:
        raise ClockError("the vacation must end in the future")
    sc = _seat_clock_or_new(session, game_id, seat, now)
    session.flush()
    note_player_acted(session, game_id, seat, now)
    current_rest = (sc.vacation_until - now) if _on_vacation(sc, now) else timedelta(0)
    used = timedelta(seconds=sc.vacation_used_s) - current_rest
    if used + (until - now) > MAX_VACATION:
        left = MAX_VACATION - used
        raise ClockError(f"at most 14 days of vacation per game; {max(left, timedelta(0))} left")
    sc.vacation_until = until
    sc.vacation_used_s = int((used + (until - now)).total_seconds())
    sc.updated_at = now
    for row in open_deadlines(session, game_id, seat):
        if row.vacation_until and row.vacation_until > now and row.paused_remaining_s is not None:
            remaining = row.paused_remaining_s
        else:
            remaining = max(0, int((row.deadline_at - now).total_seconds()))
        row.paused_remaining_s = remaining
        row.vacation_until = until
        row.deadline_at = until + timedelta(seconds=remaining)
        _plan(row, sc, now)
    session.flush()
    return sc


def end_vacation(session: Session, game_id: str, seat: int, now: datetime | None = None) -> SeatClock | None:
    """Back early: deadlines run again from now with the time they had left; the unused vacation
    is given back."""
    now = _naive(now)
    sc = seat_clock(session, game_id, seat)
    if sc is None or not _on_vacation(sc, now):
        return sc
    sc.vacation_used_s = max(0, sc.vacation_used_s - int((sc.vacation_until - now).total_seconds()))
    sc.vacation_until = None
    sc.updated_at = now
    for row in open_deadlines(session, game_id, seat):
        if row.vacation_until and row.vacation_until > now and row.paused_remaining_s is not None:
            row.deadline_at = now + timedelta(seconds=row.paused_remaining_s)
        row.vacation_until = None
        row.paused_remaining_s = None
        _plan(row, sc, now)
    session.flush()
    return sc


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
                    _plan(other, sc, now)
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
        _plan(probe, sc, now)
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
    before_sweep = getattr(handlers, "before_sweep", None)
    if before_sweep is not None:
        before_sweep(session_factory, fixed or utcnow())
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
