"""The transactional outbox, its way out: `deliver_due` claims due rows, sends them, marks them.

* Claims are leases: `claimed_by` (a random token per sweep) and `claimed_until`. A batch is
  claimed by one conditional UPDATE that returns the rows it won; on PostgreSQL the candidates are
  read with `FOR UPDATE SKIP LOCKED`, so concurrent senders take different rows. Two live senders never send
  the same row; a sender that dies leaves its claim to expire, and the next sweep takes the row
  again: delivery to the SMTP server is at least once, and a mail sent twice is the same bytes
  (service.mail.message). The window is one message wide: a row is marked sent right after the
  server's 250 for it.
* A sender renews its batch's claims before a send once a quarter of the lease has passed
  (`_renew`), so every send starts with at least three quarters of it left; a sender whose lease
  ran out and was taken over skips those rows.
* A failed send keeps the row: `attempts + 1`, `last_error`, and `send_after` pushed back
  exponentially (`backoff_delay`, capped, never given up). An unreachable server backs off the row
  being sent, releases the rest of the batch untouched and ends the sweep.
* Mails to one address go out in the order they were queued: a row is only due when no older row to
  the same address is still unsent (a turn mail in backoff also holds back the follow-up).
* A held turn mail (`hold_decision` set: it asks a seat for a decision that seat was looking at on
  the board when it was queued, issue 15.2) is due at its `send_after` like any row, but is asked
  about first: `still_owed(session, game id, seat, decision id)` (injected by `create_app`; this
  package never imports play) says whether the seat still owes that decision; if not, the row is
  dropped (`sent_at` set, `transport` "dropped", never sent), once, by the claim's owner. A held
  row never holds back later mails to the same address.
* A failure the recipient's address is to blame for may end the row instead (service.mail.failures,
  issue 29), and every mail goes with its own VERP envelope sender.
* An intent is rendered right after it is claimed; its bodies are stored with the outcome (sent, or
  backed off), so a retry sends the same text and the dev mailbox shows what went out.
* With a DKIM signer (`signer`, default: the active app's; service.mail.signing) every message is
  signed as it is built; the signature comes from the row alone, so a retry is the same bytes.

Transactions are short and write first: on SQLite a transaction that starts with a write waits for
the write lock in the busy timeout (service.store.db), while one that read first could not upgrade
when another writer got in between. So a claim's transaction starts by releasing expired leases,
which takes the write lock before the candidates are read; renew, mark and release are one UPDATE
each. With a responsive server a mail costs one transaction of its own: the UPDATE that marks it
sent. On PostgreSQL that transaction and the claims commit without waiting for their WAL flush
(`synchronous_commit` off for them alone; the wait was most of a mail's cost): a database crash may
forget the marks and claims of its last fraction of a second, and those mails go again, the same
bytes, as after a sender's crash; a forgotten claim is free for the next sweep. On SQLite
the service's `synchronous = NORMAL` makes that trade for every commit already.

Nothing hidden is logged: logs name row ids and exception classes, never bodies, links, addresses
or the SMTP password.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Update, and_, bindparam, exists, or_, select, text, update
from sqlalchemy.orm import Session, aliased

from service.mail.failures import Failures, give_up, resolve_failures
from service.mail.message import (
    Renderer,
    Signer,
    build_message,
    render_bodies,
    resolve_renderer,
    resolve_signer,
)
from service.mail.outbox import SessionSource, session_factory
from service.mail.transport import Transport, TransportUnavailable, describe_error
from service.store.outbox_models import OutboxMail, naive_utc, utcnow

log = logging.getLogger(__name__)

StillOwed = Callable[[Session, str, int, str], bool]
"""(session, game id, seat, decision id) -> does that seat still owe that decision (a held mail)."""
STILL_OWED_KEY = "outbox_still_owed"  # where `create_app` puts the play layer's answer

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
# Claims are renewed before a send once a quarter of the lease has passed, so a lease only has to
# outlast one send with some margin (SmtpTransport waits at most 20 s per step by default); a sender
# that dies holds its rows, and the later mails to the same recipients, for no longer than this
# (issue 20.8: two minutes held ~70 s of mail back).
LEASE = timedelta(seconds=60)

_TABLE = OutboxMail.__table__
_T = _TABLE.c


def backoff_delay(attempts: int, base: timedelta = BACKOFF_BASE, cap: timedelta = BACKOFF_CAP) -> timedelta:
    """Delay after the `attempts`-th failure: base, 2·base, 4·base, ... capped (retries forever)."""
    exp = min(max(attempts, 1) - 1, 30)
    return min(cap, base * (2**exp))


def _older_unsent(extra):
    """EXISTS an older unsent row to the same address (matching `extra` conditions)."""
    older = aliased(_TABLE)
    return exists().where(
        and_(older.c.to_addr == _T.to_addr, older.c.sent_at.is_(None), older.c.id < _T.id,
             older.c.hold_decision.is_(None), *extra(older.c))  # a held mail holds nothing back
    )


def _due_condition(now):
    """Due, unclaimed (or claim expired), and no older mail to the same address is waiting
    (backed off) or held by a live claim. `now`: a time or a bound parameter."""
    return and_(
        _T.sent_at.is_(None),
        _T.send_after <= now,
        or_(_T.claimed_until.is_(None), _T.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.send_after > now, o.claimed_until >= now),)),
    )


def _claimable(now, token, batch):
    """What a claim re-checks: still due and unclaimed, and every older unsent mail to the same
    address is claimed by this very sender or claimed with it in `batch` (so it goes first, in this
    sender's id order)."""
    return and_(
        _T.sent_at.is_(None),
        _T.send_after <= now,
        or_(_T.claimed_until.is_(None), _T.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.claimed_by.is_(None), o.claimed_by != token), o.id.not_in(batch))),
    )


def _update(*conditions) -> Update:
    return update(_TABLE).where(*conditions)


def _with_bodies(statement: Update) -> Update:
    """The same UPDATE, also storing the bodies rendered from an intent (they replace its context)."""
    return statement.values(text_body=bindparam("b_text"), html_body=bindparam("b_html"), context=None)


# Every statement of a sweep is built once, with bound parameters: SQLAlchemy then reuses its
# compiled form from its statement cache (building them per row cost more than running them).
_NOW, _TOKEN, _UNTIL = bindparam("b_now"), bindparam("b_token"), bindparam("b_until")
_MINE = (_T.claimed_by == _TOKEN, _T.sent_at.is_(None))
_RELEASE_EXPIRED = _update(
    _T.id.in_(
        select(_T.id).where(_T.sent_at.is_(None), _T.claimed_until < _NOW).with_for_update(skip_locked=True)
    )
).values(claimed_until=None, claimed_by=None)
_CANDIDATES = (
    select(_T.id)
    .where(_due_condition(_NOW))
    .order_by(_T.id)
    .limit(bindparam("b_size"))
    .with_for_update(skip_locked=True, of=_TABLE)
)
_IDS = bindparam("b_ids", expanding=True)
_CLAIM = (
    _update(_T.id.in_(_IDS), _claimable(_NOW, _TOKEN, _IDS))
    .values(claimed_until=_UNTIL, claimed_by=_TOKEN)
    .returning(_T.id)
)
_CLAIMED = select(OutboxMail).where(_T.id.in_(_IDS)).order_by(_T.id)
_RENEW = _update(_T.id.in_(_IDS), *_MINE).values(claimed_until=_UNTIL).returning(_T.id)
_MARK_SENT = _update(_T.id == bindparam("b_id"), _T.sent_at.is_(None)).values(
    sent_at=_NOW, transport=bindparam("b_transport"), claimed_until=None, claimed_by=None, last_error=None
)
_MARK_FAILED = _update(_T.id == bindparam("b_id"), *_MINE).values(
    attempts=_T.attempts + 1,
    last_error=bindparam("b_error"),
    send_after=bindparam("b_retry"),
    claimed_until=None,
    claimed_by=None,
)
_MARK_DROPPED = _update(_T.id == bindparam("b_id"), *_MINE).values(
    sent_at=_NOW, transport="dropped", claimed_until=None, claimed_by=None, last_error=None
)
_MARK_SENT_RENDERED, _MARK_FAILED_RENDERED = _with_bodies(_MARK_SENT), _with_bodies(_MARK_FAILED)
_NO_WAL_WAIT = text("SET LOCAL synchronous_commit TO OFF")
_RELEASE = _update(_T.id.in_(_IDS), *_MINE).values(claimed_until=None, claimed_by=None)


def _no_wal_wait(session: Session) -> None:
    """On PostgreSQL: this transaction of the sender commits without waiting for its WAL flush (see
    the module docstring: a crash of the database may undo it, which at least once allows)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_NO_WAL_WAIT)


def _claim_batch(
    session: Session, now: datetime, token: str, size: int, lease: timedelta
) -> list[OutboxMail]:
    """Claim up to `size` due rows for `token` in one transaction; returns them (loaded, detached)
    in id order. Commits.

    The transaction's first statement releases leases that ran out (their sender died or hung): a
    write, so on SQLite it takes the write lock (waiting in the busy timeout) and the read and the
    claim below happen under it. On PostgreSQL the release and the candidates skip rows another
    sender has locked (`SKIP LOCKED`, dropped by SQLAlchemy on SQLite), and the claim, one UPDATE
    for the batch, re-checks every row's conditions against what other senders committed."""
    _no_wal_wait(session)
    session.execute(_RELEASE_EXPIRED, {"b_now": now})
    candidates = session.scalars(_CANDIDATES, {"b_now": now, "b_size": size}).all()
    claim = {"b_ids": candidates, "b_now": now, "b_token": token, "b_until": now + lease}
    ids = list(session.scalars(_CLAIM, claim)) if candidates else []
    rows = list(session.scalars(_CLAIMED, {"b_ids": ids})) if ids else []
    session.expunge_all()  # plain loaded objects: nothing reloads them while the sends run
    session.commit()
    return rows


def _renew(session: Session, ids: list[int], token: str, now: datetime, lease: timedelta) -> set[int]:
    """Extend our claims on `ids`; returns the ids still ours (the others ran out and were taken
    over by another sender, or were sent)."""
    kept = set(session.scalars(_RENEW, {"b_ids": ids, "b_token": token, "b_until": now + lease}))
    session.commit()
    return kept


def _mark_sent(session: Session, row_id: int, transport_name: str, now: datetime, bodies: dict) -> None:
    statement = _MARK_SENT_RENDERED if bodies else _MARK_SENT
    _no_wal_wait(session)
    session.execute(statement, {"b_id": row_id, "b_now": now, "b_transport": transport_name, **bodies})
    session.commit()


def _mark_failed(
    session: Session, row: OutboxMail, token: str, error: str, now: datetime, bodies: dict | None = None
) -> datetime:
    session.rollback()  # (a failed read of `still_owed` leaves nothing to keep; a send wrote nothing)
    retry_at = now + backoff_delay((row.attempts or 0) + 1)
    statement = _MARK_FAILED_RENDERED if bodies else _MARK_FAILED
    params = {"b_id": row.id, "b_token": token, "b_error": error, "b_retry": retry_at, **(bodies or {})}
    session.execute(statement, params)
    session.commit()
    return retry_at


def resolve_still_owed(still_owed: StillOwed | None) -> StillOwed | None:
    """The hook to use: the one given, else the active Flask app's (`create_app` sets it)."""
    if still_owed is not None:
        return still_owed
    from flask import current_app, has_app_context

    return current_app.extensions.get(STILL_OWED_KEY) if has_app_context() else None


def _release(session: Session, ids: list[int], token: str) -> None:
    if ids:
        session.execute(_RELEASE, {"b_ids": ids, "b_token": token})
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
    still_owed: StillOwed | None = None,
    signer: Signer | None = None,
    failures: Failures | None = None,
) -> int:
    """Send up to `limit` due rows, oldest first; returns how many were sent.

    A row queued as an intent is rendered right after it is claimed (`renderer`, default: the
    active app's); its bodies are stored with the outcome (sent, or backed off). (A sender that dies
    between the send and that UPDATE leaves the row to be rendered again from the same context: the
    same mail, at least once, like any send.) A render failure backs that row off like a send failure.

    `now` (naive UTC or aware) fixes the clock for tests; otherwise the real time is read per step.
    A failure of one message backs that row off and goes on; an unreachable server backs off the
    row being sent, releases the rest untouched and ends the sweep (they wait for the next one).

    `stop` (the background sender's): once set, the message being sent is finished and marked, the
    rest of the batch is released at once for the next sender, and the sweep ends (issue 20.8: a
    stopping process leaves no claims behind to wait out their lease).

    `still_owed` (default: the active app's): asked about a held turn mail before it goes; without
    it a held mail is sent when due. `failures` (default: the active app's): service.mail.failures.

    `signer` (default: the active app's): DKIM-signs each message (service.mail.signing).
    """
    sweep = _Sweep(
        transport, resolve_renderer(renderer), naive_utc(now) if now is not None else None, lease, stop
    )
    sweep.still_owed = resolve_still_owed(still_owed)
    sweep.signer = resolve_signer(signer)
    sweep.failures = resolve_failures(failures)
    try:
        with session_factory(session_factory_or_engine)() as session:
            sent = sweep.run(session, limit, batch_size)
    finally:
        transport.close()
    if sent:
        log.info("outbox: %s mail(s) sent via %s", sent, transport.name)
    return sent


class _Sweep:
    """One `deliver_due`: its claim token, and the batches it claims and sends one after another.

    A batch's claims are renewed together, before a send, once a quarter of the lease has passed
    since they were taken or last renewed (with a responsive server never: one UPDATE per mail, the
    one that marks it sent). A claim younger than its lease cannot have been taken over, so a row
    whose renewal failed is the only one that may have another sender: it is skipped, like its
    address."""

    def __init__(
        self,
        transport: Transport,
        renderer: Renderer | None,
        fixed_now: datetime | None,
        lease: timedelta,
        stop: threading.Event | None,
    ) -> None:
        self.transport = transport
        self.renderer = renderer
        self.fixed_now = fixed_now
        self.lease = lease
        self.stop = stop
        self.token = secrets.token_hex(16)
        self.sent = 0
        self.still_owed: StillOwed | None = None
        self.signer: Signer | None = None
        self.failures: Failures | None = None

    def clock(self) -> datetime:
        return self.fixed_now or utcnow()

    def stopping(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def run(self, session: Session, limit: int, batch_size: int) -> int:
        tried = 0
        while tried < limit and not self.stopping():
            claimed_at = self.clock()
            batch = _claim_batch(session, claimed_at, self.token, min(batch_size, limit - tried), self.lease)
            if not batch:
                break
            tried += len(batch)
            if not self._send_batch(session, batch, claimed_at):
                break
        return self.sent

    def _send_batch(self, session: Session, batch: list[OutboxMail], renewed_at: datetime) -> bool:
        """Send a claimed batch in id order; False when the sweep must end (server down, stop)."""
        held: set[str] = set()  # addresses whose earlier mail did not go: later ones wait
        ours = {row.id for row in batch}
        for index, row in enumerate(batch):
            rest = [r.id for r in batch[index:]]
            if self.stopping():
                _release(session, rest, self.token)
                return False
            if row.to_addr in held:
                _release(session, [row.id], self.token)
                continue
            now = self.clock()
            if now - renewed_at >= self.lease / 4:
                ours = _renew(session, rest, self.token, now, self.lease)
                renewed_at = now
            if row.id not in ours:  # taken over after our lease ran out: the other sender sends it
                held.add(row.to_addr)
                continue
            outcome = self._send(session, row)
            if outcome == "unavailable":
                _release(session, rest[1:], self.token)
                return False
            if outcome == "failed":
                held.add(row.to_addr)
        return True

    def _send(self, session: Session, row: OutboxMail) -> str:
        """Render (for an intent), send and mark one claimed row: "sent", "failed" (backed off),
        "unavailable" (backed off; no mail can go now) or "dropped" (a held mail no longer owed)."""
        bodies: dict = {}
        try:
            if row.hold_decision is not None and self.still_owed is not None and row.hold_game is not None:
                owed = self.still_owed(session, row.hold_game, row.seat, row.hold_decision)
                session.commit()  # (the question's read)
                if not owed:
                    session.execute(_MARK_DROPPED, {"b_id": row.id, "b_token": self.token, "b_now": self.clock()})
                    session.commit()
                    return "dropped"
            if row.text_body is None:  # stored with the outcome below
                row.text_body, row.html_body = render_bodies(row.template, row.context, self.renderer)
                bodies = {"b_text": row.text_body, "b_html": row.html_body}
            envelope_from = self.failures.return_path(row.id) if self.failures is not None else None
            if envelope_from:
                self.transport.send(build_message(row, self.signer), envelope_from=envelope_from)
            else:
                self.transport.send(build_message(row, self.signer))
        except TransportUnavailable as exc:
            retry_at = _mark_failed(session, row, self.token, describe_error(exc), self.clock(), bodies)
            log.warning(
                "outbox: mail server unavailable (row %s, attempt %s, retry at %s)",
                row.id,
                (row.attempts or 0) + 1,
                retry_at.isoformat(timespec="seconds"),
            )
            return "unavailable"
        except Exception as exc:  # this message failed; others may still go
            if give_up(session, row, self.token, self.clock(), exc, bodies, self.failures):
                return "failed"
            retry_at = _mark_failed(session, row, self.token, describe_error(exc), self.clock(), bodies)
            log.warning(
                "outbox: row %s not sent (%s), attempt %s, retry at %s",
                row.id,
                type(exc).__name__,
                (row.attempts or 0) + 1,
                retry_at.isoformat(timespec="seconds"),
            )
            return "failed"
        _mark_sent(session, row.id, self.transport.name, self.clock(), bodies)
        self.sent += 1
        return "sent"
