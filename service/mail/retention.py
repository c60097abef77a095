"""Retention of sent mail (issue 29.5): what `skyjo-pbem prune` and the daily job remove.

* After MAIL_KEEP_DAYS (default 14) a sent row keeps no working link: its rendered bodies (every
  move and seat link), its context (the seat's token and view), its calendar data (the board link,
  issue 32.2) and the headers that carry a secret
  (List-Unsubscribe's URL, Reply-To's reply address) are dropped. What stays is what threading,
  the mail's status and a late bounce need: Message-ID, In-Reply-To/References, recipient, subject,
  times, transport, attempts. A held mail that was dropped (never sent: its decision was made on
  the board, issue 15.2) is deleted then: no mail refers to it and no bounce can come for it.
* After GAME_KEEP_DAYS (default 30) from a finished or cancelled game's end, its sent rows are
  deleted; so are sent rows that belong to no game (links mails, digests) that old.
* Unsent rows are never touched: they still have to go (or be given up by the sender).

Safe with any number of workers pruning at once: rows are pruned in small batches, each one short
transaction that takes the write lock first (`BEGIN IMMEDIATE` on SQLite, service.store.db), picks
its rows with `FOR UPDATE SKIP LOCKED` on PostgreSQL (another worker's batch is skipped, not waited
for) and changes only rows still matching the condition, so a row is pruned once and two workers
never deadlock. Nothing is logged but counts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, bindparam, delete, null, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from service.store.db import session_scope
from service.store.models import GameRow
from service.store.outbox_models import OutboxMail, naive_utc

log = logging.getLogger(__name__)

MAIL_KEEP_DAYS = 14.0
GAME_KEEP_DAYS = 30.0
BATCH = 500
KEPT_HEADERS = ("In-Reply-To", "References")  # threading; every other header may carry a secret

_T = OutboxMail.__table__.c
_OVER = ("finished", "cancelled")


@dataclass
class Pruned:
    """What one prune removed: sent mails that lost their bodies and links, rows deleted."""

    bodies: int = 0
    rows: int = 0

    def __str__(self) -> str:
        return f"mail bodies dropped: {self.bodies}, outbox rows deleted: {self.rows}"


def _with_body(cutoff):
    """Sent before `cutoff` and still holding a body or a context (a context written as JSON null
    counts: it is set to SQL NULL once, then the row no longer matches)."""
    return and_(_T.sent_at.is_not(None), _T.sent_at < cutoff,
                or_(_T.text_body.is_not(None), _T.html_body.is_not(None), _T.context.is_not(None),
                    _T.calendar.is_not(None)))


def _old_rows(body_cutoff, cutoff, over_before):
    """Sent rows of a game that ended before `over_before`, or of no game, sent before `cutoff`,
    and held mails dropped before `body_cutoff`."""
    ended = select(GameRow.id).where(GameRow.status.in_(_OVER), GameRow.updated_at < over_before)
    return and_(_T.sent_at.is_not(None),
                or_(_T.game_ref.in_(ended), and_(_T.game_ref.is_(None), _T.sent_at < cutoff),
                    and_(_T.transport == "dropped", _T.sent_at < body_cutoff)))


_STRIP = (
    update(OutboxMail.__table__)
    .where(_T.id == bindparam("b_id"), _T.sent_at.is_not(None))
    .values(text_body=null(), html_body=null(), context=null(), calendar=null(), headers=bindparam("b_headers"))
)


def _strip_bodies(session: Session, cutoff: datetime, batch: int) -> int:
    rows = session.execute(
        select(_T.id, _T.headers).where(_with_body(cutoff)).order_by(_T.id).limit(batch)
        .with_for_update(skip_locked=True)
    ).all()
    if rows:
        session.execute(_STRIP, [{"b_id": i, "b_headers": {k: v for k, v in (h or {}).items() if k in KEPT_HEADERS}}
                                 for i, h in rows])
    return len(rows)


def _delete_rows(session: Session, cutoffs: tuple[datetime, datetime, datetime], batch: int) -> int:
    ids = list(session.scalars(select(_T.id).where(_old_rows(*cutoffs)).order_by(_T.id)
                               .limit(batch).with_for_update(skip_locked=True)))
    if ids:
        session.execute(delete(OutboxMail.__table__).where(_T.id.in_(ids), _T.sent_at.is_not(None)))
    return len(ids)


def _batches(engine: Engine, step: Callable[[Session], int]) -> int:
    """Run `step` in one write transaction after another until a batch finds nothing."""
    total = 0
    while True:
        with session_scope(engine, write=True) as session:
            n = step(session)
        total += n
        if not n:
            return total


def prune(engine: Engine, now: datetime | None = None, *, mail_keep_days: float = MAIL_KEEP_DAYS,
          game_keep_days: float = GAME_KEEP_DAYS, batch: int = BATCH) -> Pruned:
    """Drop the bodies and links of mails sent more than `mail_keep_days` ago and delete the rows of
    games over for more than `game_keep_days` (see the module docstring); returns the counts."""
    now = naive_utc(now)
    body_cutoff = now - timedelta(days=mail_keep_days)
    row_cutoff = now - timedelta(days=game_keep_days)
    over_before = row_cutoff.replace(tzinfo=UTC)  # the game table keeps aware times
    done = Pruned()
    cutoffs = (body_cutoff, row_cutoff, over_before)
    done.rows = _batches(engine, lambda s: _delete_rows(s, cutoffs, batch))  # first: no body to strip
    done.bodies = _batches(engine, lambda s: _strip_bodies(s, body_cutoff, batch))
    if done.bodies or done.rows:
        log.info("prune: %s", done)
    return done


def prune_app(app, now: datetime | None = None) -> Pruned:
    """One prune of `app`'s database with its MAIL_KEEP_DAYS and GAME_KEEP_DAYS."""
    from service.store import db  # noqa: PLC0415 - Flask side, only with an app

    return prune(db.get_engine(app), now, mail_keep_days=float(app.config.get("MAIL_KEEP_DAYS") or MAIL_KEEP_DAYS),
                 game_keep_days=float(app.config.get("GAME_KEEP_DAYS") or GAME_KEEP_DAYS))
