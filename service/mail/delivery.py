"""The transactional outbox, its way out: `deliver_due` claims due rows, sends them, marks them.

* Claims are leases: `claimed_by` (a random token per sweep) and `claimed_until`. A claim is a
  conditional UPDATE (rowcount 1 wins); on PostgreSQL the candidates are read with
  `FOR UPDATE SKIP LOCKED`, so concurrent senders take different rows. Two live senders never send
  the same row; a sender that dies leaves its claim to expire, and the next sweep takes the row
  again: delivery to the SMTP server is at least once, and a mail sent twice is the same bytes
  (service.mail.message). The window is one message wide: a row is marked sent right after the
  server's 250 for it.
* Right before sending, the sender renews its claim (`_renew`); a sender whose lease ran out and was
  taken over skips the row.
* A failed send keeps the row: `attempts + 1`, `last_error`, and `send_after` pushed back
  exponentially (`backoff_delay`, capped, never given up). An unreachable server backs off the row
  being sent, releases the rest of the batch untouched and ends the sweep.
* Mails to one address go out in the order they were queued: a row is only due when no older row to
  the same address is still unsent (a turn mail in backoff also holds back the follow-up).
* An intent is rendered right after it is claimed; its bodies are stored with the outcome (sent, or
  backed off), so a retry sends the same text and the dev mailbox shows what went out.

Transactions are short and write first: on SQLite a transaction that starts with a write waits for
the write lock in the busy timeout (service.store.db), while one that read first could not upgrade
when another writer got in between. So a claim's transaction starts by releasing expired leases,
which takes the write lock before the candidates are read; renew, mark and release are one UPDATE
each.

Nothing hidden is logged: logs name row ids and exception classes, never bodies, links, addresses
or the SMTP password.
"""

from __future__ import annotations

import logging
import secrets
import threading
from datetime import datetime, timedelta

from sqlalchemy import Update, and_, exists, or_, select, update
from sqlalchemy.orm import Session, aliased

from service.mail.message import Renderer, build_message, render_bodies, resolve_renderer
from service.mail.outbox import SessionSource, session_factory
from service.mail.transport import Transport, TransportUnavailable, describe_error
from service.store.outbox_models import OutboxMail, naive_utc, utcnow

log = logging.getLogger(__name__)

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
# A claim is renewed right before each send, so a lease only has to outlast one send (SmtpTransport
# waits at most 20 s per step by default); a sender that dies holds its rows, and the later mails
# to the same recipients, for no longer than this (issue 20.8: two minutes held ~70 s of mail back).
LEASE = timedelta(seconds=60)

_TABLE = OutboxMail.__table__


def backoff_delay(attempts: int, base: timedelta = BACKOFF_BASE, cap: timedelta = BACKOFF_CAP) -> timedelta:
    """Delay after the `attempts`-th failure: base, 2·base, 4·base, ... capped (retries forever)."""
    exp = min(max(attempts, 1) - 1, 30)
    return min(cap, base * (2**exp))


def _older_unsent(extra):
    """EXISTS an older unsent row to the same address (matching `extra` conditions)."""
    t = _TABLE.c
    older = aliased(_TABLE)
    return exists().where(
        and_(older.c.to_addr == t.to_addr, older.c.sent_at.is_(None), older.c.id < t.id, *extra(older.c))
    )


def _due_condition(now: datetime):
    """Due, unclaimed (or claim expired), and no older mail to the same address is waiting
    (backed off) or held by a live claim."""
    t = _TABLE.c
    return and_(
        t.sent_at.is_(None),
        t.send_after <= now,
        or_(t.claimed_until.is_(None), t.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.send_after > now, o.claimed_until >= now),)),
    )


def _claimable(now: datetime, token: str):
    """What a claim re-checks: still due and unclaimed, and every older unsent mail to the same
    address is claimed by this very sender (so it goes first, in this sender's id order)."""
    t = _TABLE.c
    return and_(
        t.sent_at.is_(None),
        t.send_after <= now,
        or_(t.claimed_until.is_(None), t.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.claimed_by.is_(None), o.claimed_by != token),)),
    )


def _update(*conditions) -> Update:
    return update(_TABLE).where(*conditions).execution_options(synchronize_session=False)


def _claim_batch(
    session: Session, now: datetime, token: str, size: int, lease: timedelta
) -> list[tuple[int, str]]:
    """Claim up to `size` due rows for `token` in one transaction; returns (id, to_addr) in id
    order. Commits.

    The transaction's first statement releases leases that ran out (their sender died or hung): a
    write, so on SQLite it takes the write lock (waiting in the busy timeout) and the read and the
    claims below happen under it. On PostgreSQL the release and the candidates skip rows another
    sender has locked (`SKIP LOCKED`, dropped by SQLAlchemy on SQLite), and each claim re-checks
    its conditions in the UPDATE."""
    t = _TABLE.c
    expired = select(t.id).where(t.sent_at.is_(None), t.claimed_until < now).with_for_update(skip_locked=True)
    session.execute(_update(t.id.in_(expired)).values(claimed_until=None, claimed_by=None))
    candidates = session.execute(
        select(t.id, t.to_addr)
        .where(_due_condition(now))
        .order_by(t.id)
        .limit(size)
        .with_for_update(skip_locked=True, of=_TABLE)
    ).all()
    claimed: list[tuple[int, str]] = []
    for row_id, addr in candidates:
        claim = _update(t.id == row_id, _claimable(now, token)).values(
            claimed_until=now + lease, claimed_by=token
        )
        if session.execute(claim).rowcount == 1:
            claimed.append((row_id, addr))
    session.commit()
    return claimed


def _renew(session: Session, row_id: int, token: str, now: datetime, lease: timedelta) -> OutboxMail | None:
    """Extend our claim right before sending; None when it was lost (expired and taken, or sent)."""
    t = _TABLE.c
    result = session.execute(
        _update(t.id == row_id, t.claimed_by == token, t.sent_at.is_(None)).values(claimed_until=now + lease)
    )
    if result.rowcount != 1:
        session.commit()
        return None
    row = session.get(OutboxMail, row_id, populate_existing=True)
    if row is not None:
        session.expunge(row)  # a plain loaded object: no lazy reloads while the send runs
    session.commit()
    return row


def _mark_sent(session: Session, row_id: int, transport_name: str, now: datetime, bodies: dict) -> None:
    t = _TABLE.c
    session.execute(
        _update(t.id == row_id, t.sent_at.is_(None)).values(
            sent_at=now,
            transport=transport_name,
            claimed_until=None,
            claimed_by=None,
            last_error=None,
            **bodies,
        )
    )
    session.commit()


def _mark_failed(
    session: Session, row: OutboxMail, token: str, error: str, now: datetime, bodies: dict | None = None
) -> datetime:
    t = _TABLE.c
    retry_at = now + backoff_delay((row.attempts or 0) + 1)
    session.execute(
        _update(t.id == row.id, t.claimed_by == token, t.sent_at.is_(None)).values(
            attempts=t.attempts + 1,
            last_error=error,
            send_after=retry_at,
            claimed_until=None,
            claimed_by=None,
            **(bodies or {}),
        )
    )
    session.commit()
    return retry_at


def _release(session: Session, ids: list[int], token: str) -> None:
    if not ids:
        return
    t = _TABLE.c
    session.execute(
        _update(t.id.in_(ids), t.claimed_by == token, t.sent_at.is_(None)).values(
            claimed_until=None, claimed_by=None
        )
    )
    session.commit()


def deliver_due(
    session_factory_or_engine: SessionSource,
    transport: Transport,
    now: datetime | None = None,
    limit: int = 100,
    *,
    batch_size: int = 10,
    lease: timedelta = LEASE,
    renderer: Renderer | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Send up to `limit` due rows, oldest first; returns how many were sent.

    `stop` (the background sender's): once set, the message being sent is finished and marked, the
    rest of the batch is released at once for the next sender, and the sweep ends (issue 20.8: a
    stopping process leaves no claims behind to wait out their lease).

    A row queued as an intent is rendered right after it is claimed (`renderer`, default: the
    active app's); its bodies are stored with the outcome (sent, or backed off). (A sender that dies
    between the send and that UPDATE leaves the row to be rendered again from the same context: the
    same mail, at least once, like any send.) A render failure backs that row off like a send failure.

    `now` (naive UTC or aware) fixes the clock for tests; otherwise the real time is read per step.
    A failure of one message backs that row off and goes on; an unreachable server backs off the
    row being sent, releases the rest untouched and ends the sweep (they wait for the next one).
    """
    make_session = session_factory(session_factory_or_engine)
    renderer = resolve_renderer(renderer)
    fixed_now = naive_utc(now) if now is not None else None

    def clock() -> datetime:
        return fixed_now or utcnow()

    def stopping() -> bool:
        return stop is not None and stop.is_set()

    token = secrets.token_hex(16)
    sent = tried = 0
    try:
        with make_session() as session:
            while tried < limit and not stopping():
                batch = _claim_batch(session, clock(), token, min(batch_size, limit - tried), lease)
                if not batch:
                    break
                tried += len(batch)
                held: set[str] = set()  # addresses whose earlier mail did not go: later ones wait
                for index, (row_id, addr) in enumerate(batch):
                    if stopping():
                        _release(session, [i for i, _ in batch[index:]], token)
                        return sent
                    if addr in held:
                        _release(session, [row_id], token)
                        continue
                    row = _renew(session, row_id, token, clock(), lease)
                    if row is None:
                        held.add(addr)
                        continue
                    bodies: dict = {}
                    try:
                        if row.text_body is None:  # stored with the outcome below
                            row.text_body, row.html_body = render_bodies(row.template, row.context, renderer)
                            bodies = {"text_body": row.text_body, "html_body": row.html_body, "context": None}
                        transport.send(build_message(row))
                    except TransportUnavailable as exc:
                        retry_at = _mark_failed(session, row, token, describe_error(exc), clock(), bodies)
                        _release(session, [i for i, _ in batch[index + 1 :]], token)
                        log.warning(
                            "outbox: mail server unavailable (row %s, attempt %s, retry at %s)",
                            row_id,
                            (row.attempts or 0) + 1,
                            retry_at.isoformat(timespec="seconds"),
                        )
                        return sent
                    except Exception as exc:  # this message failed; others may still go
                        held.add(addr)
                        retry_at = _mark_failed(session, row, token, describe_error(exc), clock(), bodies)
                        log.warning(
                            "outbox: row %s not sent (%s), attempt %s, retry at %s",
                            row_id,
                            type(exc).__name__,
                            (row.attempts or 0) + 1,
                            retry_at.isoformat(timespec="seconds"),
                        )
                        continue
                    _mark_sent(session, row_id, transport.name, clock(), bodies)
                    sent += 1
    finally:
        transport.close()
    if sent:
        log.info("outbox: %s mail(s) sent via %s", sent, transport.name)
    return sent
