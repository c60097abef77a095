"""The state of the service as its tables say it (issue 31.2), read in one transaction: what
`/readyz` decides on, what `/metrics` shows, and what an operator's `skyjo-pbem status` prints.

Everything comes from the database, never from a process's memory: with two gunicorn workers and
two clock workers every one of them answers the same (a counter in one process would be one
process's truth). So the figures are gauges read at the moment they are asked for; the "totals"
(moves, mails by outcome, replies by outcome) are counts of rows, which retention (`prune`) lowers
when it deletes a finished game's mails, so they are not Prometheus counters either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from sqlalchemy import case, func, select, text
from sqlmodel import Session

from service.store.bounce_models import MailBlockRow
from service.store.clock_models import Deadline, WorkerHeartbeat, utcnow
from service.store.models import GameRow, MoveRow
from service.store.outbox_models import OutboxMail
from service.store.reply_models import InboundReplyRow

MIGRATIONS = Path(__file__).resolve().parents[2] / "alembic"


@lru_cache(maxsize=1)
def migration_heads() -> frozenset[str]:
    """The revisions at the head of alembic/versions (read once per process)."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory(str(MIGRATIONS)).get_heads())


@dataclass
class Heartbeat:
    worker: str
    kind: str
    age_s: float
    interval_s: float
    sweep_s: float

    @property
    def alive(self) -> bool:
        """Swept within two of its intervals."""
        return self.age_s < 2 * self.interval_s


@dataclass
class ServiceStatus:
    """One reading of the service (`service_status`)."""

    migrations: frozenset[str]  # the database's alembic revisions
    heads: frozenset[str]  # the code's
    heartbeats: list[Heartbeat]
    games: dict[str, int]  # by status
    moves: int
    mails: dict[str, int]  # pending | sent | dropped | failed
    mail_backlog: int  # unsent and due
    oldest_due_mail_s: float  # age of the oldest of them (0: none)
    overdue_deadlines: int  # open rows whose next event is due
    oldest_overdue_s: float
    blocked: dict[str, int]  # addresses on the block list, by reason (bounce | never)
    replies: dict[str, int]  # received replies by outcome (applied | refused | stale | unknown | closed)

    @property
    def at_head(self) -> bool:
        return self.migrations == self.heads


def _age(now: datetime, then: datetime | None) -> float:
    return max(0.0, (now - then).total_seconds()) if then is not None else 0.0


def _by(s: Session, column, *where) -> dict[str, int]:
    return {str(k): int(n) for k, n in s.execute(select(column, func.count()).where(*where).group_by(column))}


def service_status(s: Session, now: datetime | None = None, *, totals: bool = True) -> ServiceStatus:
    """Read everything at once (a handful of aggregate queries; no row is locked). `totals=False`
    (what `/readyz`, asked every few seconds, needs): without the counts over whole tables (games,
    moves, mails by state, block list, replies), which are then empty."""
    now = now or utcnow()
    try:
        with s.begin_nested():
            migrations = frozenset(s.execute(text("SELECT version_num FROM alembic_version")).scalars())
    except Exception:  # noqa: BLE001 - no alembic_version table: never migrated
        migrations = frozenset()
    beats = [Heartbeat(h.worker, h.kind, _age(now, h.beat_at), h.interval_s, h.sweep_s)
             for h in s.execute(select(WorkerHeartbeat).order_by(WorkerHeartbeat.beat_at.desc())).scalars()]
    o = OutboxMail.__table__.c
    state = case((o.sent_at.is_(None), "pending"), (o.transport.in_(("dropped", "failed")), o.transport),
                 else_="sent")
    due = (o.sent_at.is_(None), o.send_after <= now)
    backlog, oldest_mail = s.execute(select(func.count(), func.min(o.send_after)).where(*due)).one()
    d = Deadline.__table__.c
    overdue, oldest_deadline = s.execute(select(func.count(), func.min(d.next_at))
                                         .where(d.fired_at.is_(None), d.next_at <= now)).one()
    return ServiceStatus(
        migrations=migrations, heads=migration_heads(), heartbeats=beats,
        games=_by(s, GameRow.status) if totals else {},
        moves=s.execute(select(func.count()).select_from(MoveRow)).scalar_one() if totals else 0,
        mails=_by(s, state) if totals else {}, mail_backlog=backlog, oldest_due_mail_s=_age(now, oldest_mail),
        overdue_deadlines=overdue, oldest_overdue_s=_age(now, oldest_deadline),
        blocked=_by(s, MailBlockRow.reason) if totals else {},
        replies=_by(s, InboundReplyRow.outcome) if totals else {})


def readiness(status: ServiceStatus, *, mail_age: float, deadline_age: float) -> list[str]:
    """The checks `/readyz` fails, by name (empty: ready): `migrations` (the database is not at the
    code's head), `worker` (no clock process swept within two of its intervals), `mail` (a due mail
    waited longer than `mail_age` seconds), `deadlines` (a due deadline waited longer than
    `deadline_age`)."""
    failed = []
    if not status.at_head:
        failed.append("migrations")
    if not any(h.alive for h in status.heartbeats):
        failed.append("worker")
    if status.oldest_due_mail_s > mail_age:
        failed.append("mail")
    if status.oldest_overdue_s > deadline_age:
        failed.append("deadlines")
    return failed
