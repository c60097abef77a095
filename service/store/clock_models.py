"""Tables of the clock: one row per owed decision (`Deadline`), per-seat clock settings (`SeatClock`)
and one row per address that wants a daily digest (`DigestSchedule`).

All timestamps are naive UTC (explicit `DateTime()`: sqlmodel >= 0.0.50 would otherwise map
`datetime` to a timezone-aware type that rejects naive values).

Due rows are found by index: `ix_clock_deadline_due` is a partial index on `next_at` over the open
rows only (`WHERE fired_at IS NULL`, on SQLite and PostgreSQL alike), so a sweep reads the rows that
are due and never the history. No foreign keys to the service's tables: the clock only knows
`(game_id, seat)`, so it can be tested and migrated on its own.
"""

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from service.store import naming  # noqa: E402,F401  (the shared naming convention, whichever module loads first)
from service.store.outbox_models import utcnow  # naive UTC (one definition for every table)

_OPEN = text("fired_at IS NULL")


class Deadline(SQLModel, table=True):
    """One decision a seat owes: its deadline, the reminders still to send, and the next event.

    Life of a row: inserted by `clock.schedule_decisions` in the move's transaction; `next_at` /
    `next_event` say when the sweep must look at it next ("reminder" or "timeout"; NULL = nothing to
    do, e.g. policy `wait` after its reminders). It is closed (`fired_at` set, `outcome` = made |
    timeout | stale) when the decision is made, or when its timeout was handled. A sweep claims it by
    setting `claimed_until`/`claim_token` with a conditional UPDATE; an unfinished claim expires.
    """

    __tablename__ = "clock_deadline"
    __table_args__ = (
        Index("ix_clock_deadline_due", "next_at", sqlite_where=_OPEN, postgresql_where=_OPEN),
        # At most one open row per decision (protects against a double schedule). It also serves the
        # lookups of a game's (or seat's) open rows: a second index on (game_id, seat) only cost writes.
        Index("uq_clock_deadline_open_decision", "game_id", "seat", "kind", unique=True,
              sqlite_where=_OPEN, postgresql_where=_OPEN),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(sa_type=String(24))
    seat: int
    kind: str = Field(sa_type=String(32))  # engine Pending.kind: reveal, turn, place_drawn, ...
    version: int  # game state version at which the decision became owed (the handler's version check)
    policy: str = Field(default="bot", sa_type=String(8))  # bot | wait
    decision_seconds: int = Field(default=2 * 86400)
    reminders_left: list = Field(default_factory=list, sa_type=JSON)  # offsets in seconds, descending
    reminders_sent: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    deadline_at: datetime = Field(sa_type=DateTime())
    next_at: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    next_event: str | None = Field(default=None, sa_type=String(16), nullable=True)
    # vacation: the deadline was pushed to vacation_until + paused_remaining_s
    vacation_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    paused_remaining_s: int | None = Field(default=None, nullable=True)
    bot_played: bool = Field(default=False, sa_type=Boolean())  # scheduled for an immediate bot move
    # how often `deadline_at` moved after the row was made (vacation, its early end, play now, back
    # from bot play): the calendar invitation's SEQUENCE (issue 32.2), one counter on the one row
    moves: int = Field(default=0, sa_column_kwargs={"server_default": text("0")})
    claimed_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    claim_token: str | None = Field(default=None, sa_type=String(32), nullable=True)
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text, nullable=True)
    fired_at: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    outcome: str | None = Field(default=None, sa_type=String(16), nullable=True)

    @property
    def is_open(self) -> bool:
        return self.fired_at is None

    def __repr__(self) -> str:
        return (f"<Deadline id={self.id} game={self.game_id} seat={self.seat} kind={self.kind} "
                f"v={self.version} deadline={self.deadline_at} next={self.next_event}@{self.next_at} "
                f"fired={self.fired_at} outcome={self.outcome}>")


class SeatClock(SQLModel, table=True):
    """Clock settings and counters of one seat of one game (created on first use, defaults apply
    when absent)."""

    __tablename__ = "clock_seat"

    game_id: str = Field(sa_type=String(24), primary_key=True)
    seat: int = Field(primary_key=True, sa_type=Integer(), sa_column_kwargs={"autoincrement": False})
    address: str | None = Field(default=None, sa_type=String(320), nullable=True, index=True)
    tz: str = Field(default="UTC", sa_type=String(64))
    mail_pref: str = Field(default="every", sa_type=String(8))  # every | digest | off
    consecutive_timeouts: int = Field(default=0)
    bot_played: bool = Field(default=False, sa_type=Boolean())
    vacation_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    vacation_used_s: int = Field(default=0)  # granted vacation seconds in this game (max 14 days)
    # the computer plays this seat (issue 18): its decisions are due at once (`next_event` "computer"),
    # never reminded, never shown as a person's deadline
    computer: bool = Field(default=False, sa_type=Boolean(), sa_column_kwargs={"server_default": text("false")})
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())


class DigestSchedule(SQLModel, table=True):
    """When the next daily digest of an address is due (always 08:00 in `tz`)."""

    __tablename__ = "clock_digest"
    __table_args__ = (Index("ix_clock_digest_next_at", "next_at"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(sa_type=String(320), unique=True)
    tz: str = Field(default="UTC", sa_type=String(64))
    next_at: datetime = Field(sa_type=DateTime())
    claimed_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    claim_token: str | None = Field(default=None, sa_type=String(32), nullable=True)
    last_sent_at: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text, nullable=True)


class WorkerHeartbeat(SQLModel, table=True):
    """One row per clock process (`skyjo-pbem worker`, or the clock inside `serve`), written by each
    of its sweeps (issue 31.2): `/readyz` wants one younger than two of its intervals, `/metrics`
    shows each one's last sweep. A row not written for a day is deleted by the next sweep of any."""

    __tablename__ = "clock_heartbeat"

    worker: str = Field(sa_type=String(120), primary_key=True)  # host:pid
    kind: str = Field(default="worker", sa_type=String(16))  # worker | serve
    interval_s: float = Field(default=30.0)  # its tick: "younger than two ticks"
    started_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    beat_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    sweep_s: float = Field(default=0.0)  # how long its last sweep took
    sweeps: int = Field(default=0)


CLOCK_TABLES = [Deadline.__table__, SeatClock.__table__, DigestSchedule.__table__, WorkerHeartbeat.__table__]
