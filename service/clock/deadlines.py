"""Deadlines: one `clock_deadline` row per owed decision, kept in step with the game in the move's
transaction, and what the board and the mails show of them.

* `schedule_decisions(session, game_id, game.pending(), version, now, settings, acted_seats={seat})`
  closes the rows of decisions no longer owed (or just made) and inserts rows for new ones (the move
  path, `play.clock_service.moved`); `close_game` at game over;
* `board_status` per seat: deadlines, policy, vacation, bot play, zone, mail preference;
* `_plan` / `_next_event`: when the sweep must look at a row next (reminder or timeout; quiet hours
  and vacations respected).

The move path uses Core statements on the tables (`session.connection().execute`, built once at
import: SQLAlchemy caches their compiled form), no ORM objects: one SELECT of the game's seat clocks
and open rows, one UPDATE closing rows by id, one INSERT of the new rows. ORM objects of these rows
that the session already holds (the sweep's claimed `Deadline` and `SeatClock`) are kept in step
with `sync` (SQLAlchemy's public `set_committed_value`), so a later ORM flush in the same transaction
neither acts on stale values nor writes them back.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import bindparam, cast, insert, literal, null, select, union_all, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from service.clock.zones import defer_quiet
from service.store.clock_models import Deadline, SeatClock
from service.store.outbox_models import naive_utc as _naive

HOUR = 3600
DAY = 24 * HOUR
MIN_DECISION_S = 1 * HOUR
MAX_DECISION_S = 14 * DAY
DEFAULT_DECISION_S = 2 * DAY
DEFAULT_REMINDERS_S = (24 * HOUR, 4 * HOUR)
MAX_VACATION = timedelta(days=14)
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
    computer: bool = False  # the computer plays this seat (issue 18)


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
                        _ST.c.vacation_until, _ST.c.computer).where(_ST.c.game_id == bindparam("game_id"))
_OPEN_OF_GAME = (select(_DT.c.id, _DT.c.seat, _DT.c.kind, _DT.c.deadline_at, _DT.c.policy)
                 .where(_DT.c.game_id == bindparam("game_id"), _DT.c.fired_at.is_(None))
                 .order_by(_DT.c.seat, _DT.c.id))
# the seat clocks and the open rows of a game in one statement (the move's): kind 0 rows are seat clocks,
# kind 1 rows open deadlines, each with NULL in the other kind's columns
_CLOCK_OF_GAME = union_all(
    select(literal(0).label("row_kind"), _ST.c.seat, _ST.c.tz, _ST.c.mail_pref, _ST.c.consecutive_timeouts,
           _ST.c.bot_played, _ST.c.vacation_until, _ST.c.computer, cast(null(), _DT.c.id.type).label("id"),
           cast(null(), _DT.c.kind.type).label("kind"), cast(null(), _DT.c.deadline_at.type).label("deadline_at"),
           cast(null(), _DT.c.policy.type).label("policy"))
    .where(_ST.c.game_id == bindparam("game_id")),
    select(literal(1), _DT.c.seat, cast(null(), _ST.c.tz.type), cast(null(), _ST.c.mail_pref.type),
           cast(null(), _ST.c.consecutive_timeouts.type), cast(null(), _ST.c.bot_played.type),
           cast(null(), _ST.c.vacation_until.type), cast(null(), _ST.c.computer.type), _DT.c.id, _DT.c.kind,
           _DT.c.deadline_at, _DT.c.policy)
    .where(_DT.c.game_id == bindparam("game_id"), _DT.c.fired_at.is_(None)),
).order_by("row_kind", "seat", "id")
_CLOSED = {"fired_at": bindparam("closed_at"), "outcome": "made", "next_at": None, "next_event": None}
_CLOSE_ONE = update(_DT).where(_DT.c.id == bindparam("row_id")).values(**_CLOSED)
_INSERT_ROWS = insert(_DT).inline()  # no RETURNING: nothing reads the new ids
_RESET_SEAT = (update(_ST).where(_ST.c.game_id == bindparam("b_game_id"), _ST.c.seat == bindparam("b_seat"))
               .values(consecutive_timeouts=0, bot_played=False, updated_at=bindparam("acted_at")))



def core(session: Session) -> Connection:
    """The session's connection for Core statements, after flushing what the session holds (an ORM
    query would autoflush; a Core statement does not, and must see the same rows)."""
    session.flush()
    return session.connection()


def sync(session: Session, model: type, idents: Iterable[Any], values: dict) -> None:
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
    rows = core(session).execute(_SEATS_OF_GAME, {"game_id": game_id})
    return {r[0]: SeatState(*r[:6], computer=bool(r[6])) for r in rows}


GameClock = tuple[dict[int, "SeatState"], list["OpenDeadline"]]


def game_clock(session: Session, game_id: str) -> GameClock:
    """`seat_states` and the game's open rows (as `schedule_decisions` takes them), in one SELECT."""
    clocks: dict[int, SeatState] = {}
    rows: list[OpenDeadline] = []
    for r in core(session).execute(_CLOCK_OF_GAME, {"game_id": game_id}):
        if r[0] == 0:
            clocks[r[1]] = SeatState(*r[1:7], computer=bool(r[7]))
        else:
            rows.append(OpenDeadline(r[8], r[1], r[9], r[10], r[11]))
    return clocks, rows


def game_open_rows(session: Session, game_id: str) -> list[OpenDeadline]:
    """The game's open `clock_deadline` rows as `OpenDeadline` tuples, by seat then id."""
    return [OpenDeadline._make(r) for r in core(session).execute(_OPEN_OF_GAME, {"game_id": game_id})]




def open_deadlines(session: Session, game_id: str, seat: int | None = None) -> list[Deadline]:
    """The open rows of a game (or seat) as ORM objects, for the paths that change them (vacation,
    play now, bot play) and the digest. The board and the mails use `board_status`."""
    q = select(Deadline).where(Deadline.game_id == game_id, Deadline.fired_at.is_(None))
    if seat is not None:
        q = q.where(Deadline.seat == seat)
    return list(session.execute(q.order_by(Deadline.seat, Deadline.id)).scalars())



def board_status(session: Session, game_id: str, now: datetime | None = None, *,
                 clocks: dict[int, SeatClock] | None = None,
                 open_rows: list[Deadline] | None = None) -> dict[int, dict]:
    """What the board and the mails show per seat: {seat: {"deadlines": [(kind, deadline_at)],
    "policy", "vacation_until" (None unless on vacation), "bot_played", "tz", "mail_pref"}}; times
    naive UTC (show them with `to_local(t, viewer_tz)`). Seats with nothing to show are absent, and
    so are the computer's seats (issue 18): nobody waits for a person there.
    `clocks` / `open_rows`: the game's seat clocks by seat (`seat_states`, or SeatClock rows) and its
    open deadline rows when the caller has them from this transaction (as `schedule_decisions`
    returns them), to save the two SELECTs."""
    now = _naive(now)
    out: dict[int, dict] = {}

    def entry(seat: int, sc: SeatClock | None) -> dict:
        return out.setdefault(seat, {"deadlines": [], "policy": None,
                                     "vacation_until": sc.vacation_until if on_vacation(sc, now) else None,
                                     "bot_played": bool(sc and sc.bot_played), "tz": sc.tz if sc else "UTC",
                                     "mail_pref": sc.mail_pref if sc else "every"})

    if clocks is None:
        clocks = seat_states(session, game_id)
    if open_rows is None:
        open_rows = game_open_rows(session, game_id)
    else:  # by seat, then id; rows just inserted (id None) come last, in the order given
        open_rows = sorted((r for r in open_rows if getattr(r, "fired_at", None) is None),
                           key=lambda r: (r.seat, r.id is None, r.id or 0))
    for seat, sc in clocks.items():
        if not getattr(sc, "computer", False) and (on_vacation(sc, now) or sc.bot_played):
            entry(seat, sc)
    for row in open_rows:
        if getattr(clocks.get(row.seat), "computer", False):
            continue
        e = entry(row.seat, clocks.get(row.seat))
        e["deadlines"].append((row.kind, row.deadline_at))
        e["policy"] = row.policy
    return out



# --------------------------------------------------------------------------------------------------
# Planning one row
# --------------------------------------------------------------------------------------------------


def plan(row: Deadline, sc: SeatClock | SeatState | None, now: datetime) -> None:
    """Set `next_at`/`next_event` from the row's deadline, reminders, vacation and quiet hours."""
    if row.fired_at is not None:
        row.next_at, row.next_event = None, None
        return
    row.next_at, row.next_event = next_due(row.deadline_at, row.policy, row.bot_played, row.vacation_until,
                                              row.reminders_left, sc, now)


def next_due(deadline_at: datetime, policy: str, bot_played: bool, vacation_until: datetime | None,
                reminders_left: Iterable[int] | None, sc: SeatClock | SeatState | None, now: datetime
                ) -> tuple[datetime | None, str | None]:
    """(next_at, next_event) of an open row (`plan`; `schedule_decisions` for rows it inserts). A
    computer seat's decision is due at once, as event "computer" (no reminder, no timeout notice)."""
    if sc is not None and getattr(sc, "computer", False):
        return min(deadline_at, now), "computer"
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


def future_offsets(offsets: Iterable[int], deadline_at: datetime, now: datetime) -> list[int]:
    return sorted({int(o) for o in offsets if deadline_at - timedelta(seconds=int(o)) > now}, reverse=True)


def on_vacation(sc: SeatClock | SeatState | None, now: datetime) -> bool:
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
    rows = game_open_rows(session, game_id) if open_rows is None else list(open_rows)  # (flushes the session)
    conn = session.connection()
    closing = [r.id for r in rows if (r.seat, r.kind) not in owed or r.seat in acted]
    if closing:
        conn.execute(_CLOSE_ONE, [{"row_id": row_id, "closed_at": now} for row_id in closing])
        sync(session, Deadline, closing, {"fired_at": now, "outcome": "made", "next_at": None, "next_event": None})
        gone = set(closing)
        rows = [r for r in rows if r.id not in gone]
    new = sorted(owed - {(r.seat, r.kind) for r in rows})
    if new:
        if clocks is None:
            clocks = seat_states(session, game_id)
        values = [_new_row(game_id, seat, kind, version, settings, clocks.get(seat), now) for seat, kind in new]
        conn.execute(_INSERT_ROWS, values)
        rows.extend(OpenDeadline(None, v["seat"], v["kind"], v["deadline_at"], v["policy"]) for v in values)
        rows.sort(key=lambda r: r.seat)  # stable: by seat, then id (the new rows have the highest ids)
    return rows


def _new_row(game_id: str, seat: int, kind: str, version: int, settings: ClockSettings,
             sc: SeatState | SeatClock | None, now: datetime) -> dict:
    """The column values of a decision that has just come up: a bot-played seat's (and a computer
    seat's, as event "computer") is due at once; on
    vacation the full decision time runs from the vacation's end; reminders already past are dropped."""
    decision_s = int(settings.decision_seconds)
    bot = bool(sc is not None and sc.bot_played)
    vacation_until = paused = None
    if sc is not None and getattr(sc, "computer", False):
        deadline_at, reminders, bot = now, [], False
    elif bot:
        deadline_at = now
        reminders = settings.offsets()
    else:
        if on_vacation(sc, now):
            vacation_until, paused = sc.vacation_until, decision_s
            deadline_at = vacation_until + timedelta(seconds=decision_s)
        else:
            deadline_at = now + timedelta(seconds=decision_s)
        reminders = future_offsets(settings.offsets(), deadline_at, now)
    next_at, next_event = next_due(deadline_at, settings.policy, bot, vacation_until, reminders, sc, now)
    return {"game_id": game_id, "seat": seat, "kind": kind, "version": int(version), "policy": settings.policy,
            "decision_seconds": decision_s, "reminders_left": reminders, "reminders_sent": 0, "created_at": now,
            "deadline_at": deadline_at, "next_at": next_at, "next_event": next_event,
            "vacation_until": vacation_until, "paused_remaining_s": paused, "bot_played": bot, "attempts": 0}



def close_game(session: Session, game_id: str, now: datetime | None = None) -> None:
    """Game over or cancelled: close every open row."""
    schedule_decisions(session, game_id, [], 0, now)



def resets_seat(clocks: dict[int, SeatState], seat: int) -> bool:
    """`note_player_acted` has something to reset for this seat (a timeout count or bot play)."""
    sc = clocks.get(seat)
    return sc is not None and bool(sc.consecutive_timeouts or sc.bot_played)

