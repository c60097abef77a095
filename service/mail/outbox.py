"""The transactional outbox, its way in: mails are rows written in the transaction of the change
that causes them, and a mail exists if and only if that transaction commits.

* `queue_mail(session, ...)` adds an ORM row to the caller's session (never commits).
* `insert_mail(session, ...)` (the move's path) keeps the row's values in `session.info`; they are
  written by one Core INSERT (executemany: one round trip on PostgreSQL) right before the
  transaction commits (`before_commit`), or earlier by `flush_mails`, and dropped with a rollback.
  A `queue_mail` flushes what `insert_mail` holds first, so rows keep the order of the calls: the
  sender delivers per recipient in id order.
* A mail is queued with its bodies, or as an intent (`template` + JSON `context`: a small row in
  the move's transaction) that the sender renders when it claims the row (service.mail.delivery);
  `render_pending` renders every queued intent without sending (tests, tools).

Nothing is queued to an address on the block list (issue 29: it bounced for good, or asked for no
mail at all; `service.store.bounce_models`): `flush_mails` leaves such rows out with one query per
transaction, `queue_mail` does not add one.

Taking mails out (claims, leases, retries with backoff) is service.mail.delivery; the background
thread that runs it is service.mail.sender. Nothing here needs a Flask app context.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import bindparam, event, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from service.mail.config import MailConfig, clean_address, clean_header_text, clean_url, current_config
from service.mail.message import (
    Renderer,
    inline_css,
    new_message_id,
    render_bodies,
    resolve_renderer,
    thread_root_id,
)
from service.store.bounce_models import MailBlockRow, address_hash
from service.store.outbox_models import OutboxMail, naive_utc
from service.store.wake import notify_workers

SessionSource = Engine | Callable[[], Session]
"""Where a sender or tool gets its sessions: an Engine, or a session factory."""

_PENDING = "outbox_pending"
_TABLE = OutboxMail.__table__
_INSERT_MAILS = insert(_TABLE).inline()  # no RETURNING: nothing reads the new ids
_STORE_BODIES = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("b_id"), _TABLE.c.text_body.is_(None))
    .values(text_body=bindparam("b_text"), html_body=bindparam("b_html"), context=None)
)


def session_factory(source: SessionSource) -> Callable[[], Session]:
    """A factory of sessions (objects stay loaded after commit) for an Engine or a factory."""
    if isinstance(source, Engine):
        return lambda: Session(source, expire_on_commit=False)
    return source


def mail_values(
    *,
    to_addr: str,
    to_name: str,
    subject: str,
    text: str | None = None,
    html: str | None = None,
    template: str | None = None,
    context: dict | None = None,
    game_id: int | None = None,
    game_ref: str | None = None,
    seat: int | None = None,
    thread_key: str | None = None,
    unsubscribe_url: str | None = None,
    reply_to: str | None = None,
    now: datetime | None = None,
    config: MailConfig | None = None,
    hold_until: datetime | None = None,
    hold_for: tuple[str, str] | None = None,
    starts_thread: bool = False,
    calendar: dict | None = None,
) -> dict:
    """The column values of one outbox row (headers cleaned, Message-ID fixed now).

    Either the bodies (`text`, optional `html`, CSS inlined here) or an intent: `template` and a
    JSON `context` that the sender's renderer turns into the bodies at send time (nothing hidden
    may be in the context either).
    thread_key: e.g. "game-12-seat-1"; In-Reply-To/References point to `<thread_key@domain>` so every
    mail of that game and seat threads together (keep the subject fixed too, for Gmail).
    unsubscribe_url: RFC 8058 one-click URL (must act on POST only).
    reply_to: e.g. the seat's secret reply address.
    hold_until, hold_for: a held turn mail (issue 15.2): due at `hold_until` (naive UTC or aware),
    and sent then only if `seat` still owes the decision `hold_for` = (game id, decision id); else
    delivery drops it.
    game_ref: the game the mail is about (a finished game's mails are pruned with it; a bounce of it
    tells that game's host).
    starts_thread: this mail is the thread's first (a game's invitation, or the host's "set up"
    mail): its Message-ID is the root the later mails point to, so the thread has a real parent.
    Only once per thread key (Message-IDs are unique).
    calendar: the deadline's calendar invitation / cancellation as plain data (`mail.ical`, issue 32.2).
    """
    if (text is None) == (template is None):
        raise ValueError("a mail has either its text or a template to render it from")
    cfg = config or current_config()
    domain = cfg.domain
    now = naive_utc(now)

    headers: dict[str, str] = {}
    if thread_key and starts_thread:
        message_id = thread_root_id(thread_key, domain)
    elif thread_key:
        root = thread_root_id(thread_key, domain)
        headers["In-Reply-To"] = root
        headers["References"] = root
    if unsubscribe_url:
        headers["List-Unsubscribe"] = f"<{clean_url(unsubscribe_url)}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    if reply_to:
        headers["Reply-To"] = clean_address(reply_to)
    return {
        "game_id": game_id,
        "game_ref": game_ref,
        "seat": seat,
        "from_addr": cfg.from_header,
        "to_addr": clean_address(to_addr),
        "to_name": clean_header_text(to_name or "", 100),
        "subject": clean_header_text(subject, 250),
        "text_body": text,
        "html_body": inline_css(html) if html is not None else None,
        "template": template,
        "context": context,
        "headers": headers,
        "message_id": message_id if thread_key and starts_thread else new_message_id(domain),
        "created_at": now,
        "send_after": naive_utc(hold_until) if hold_until is not None else now,
        "attempts": 0,
        "hold_game": hold_for[0] if hold_for else None,
        "hold_decision": hold_for[1] if hold_for else None,
        "calendar": calendar,
    }


def queue_mail(session: Session, **kwargs) -> OutboxMail:
    """Add one mail to `session` as an ORM row (never commits: it goes out iff the caller's
    transaction commits). Arguments: those of `mail_values`."""
    flush_mails(session)  # after the mails queued before it
    row = OutboxMail(**mail_values(**kwargs))
    if not _deliverable(session, [{"to_addr": row.to_addr}]):
        return row  # an address on the block list: nothing is queued
    session.add(row)
    session.flush()  # and before those queued after it (insert_mail's rows wait for the commit)
    notify_workers(session)  # PostgreSQL: the workers' senders wake at the commit (issue 31.2)
    return row


def insert_mail(session: Session, **kwargs) -> None:
    """Like `queue_mail`, without an ORM object (the move's path): the rows of a transaction are
    written together by one Core INSERT when it commits, or earlier by `flush_mails`. Rows are
    sent per recipient in id order, which is the order of the calls."""
    session.connection()  # in a transaction (begun now if need be): the mail ends with it
    session.info.setdefault(_PENDING, []).append(mail_values(**kwargs))
    notify_workers(session)  # PostgreSQL: the workers' senders wake at the commit (issue 31.2)


def flush_mails(session: Session) -> None:
    """Write the mails `insert_mail` holds for this session's transaction now (one executemany)."""
    pending = session.info.pop(_PENDING, None)
    if pending:
        pending = _deliverable(session, pending)
    if pending:
        session.connection().execute(_INSERT_MAILS, pending)


_BLOCKED = select(MailBlockRow.address_hash).where(
    MailBlockRow.address_hash.in_(bindparam("b_hashes", expanding=True))
)


def _deliverable(session: Session, rows: list[dict]) -> list[dict]:
    """`rows` without those to an address on the block list (one query)."""
    hashes = {row["to_addr"]: address_hash(row["to_addr"]) for row in rows}
    blocked = set(session.connection().scalars(_BLOCKED, {"b_hashes": list(set(hashes.values()))}))
    return [row for row in rows if hashes[row["to_addr"]] not in blocked] if blocked else rows


@event.listens_for(Session, "before_commit")
def _flush_before_commit(session: Session) -> None:
    flush_mails(session)


@event.listens_for(Session, "after_transaction_end")
def _forget_at_the_end(session: Session, transaction) -> None:
    if transaction.parent is None:  # rolled back or closed unfinished: its mails go with it
        session.info.pop(_PENDING, None)


def _store_bodies(session: Session, rows: list[tuple[int, str, str | None]]) -> int:
    """Bodies of rendered rows (id, text, html), one executemany (one round trip on PostgreSQL);
    rows another sender rendered meanwhile keep theirs. Returns how many were stored."""
    if not rows:
        return 0
    result = session.connection().execute(
        _STORE_BODIES, [{"b_id": row_id, "b_text": text, "b_html": html} for row_id, text, html in rows]
    )
    return result.rowcount if result.rowcount >= 0 else len(rows)


def render_pending(source: SessionSource, renderer: Renderer | None = None, limit: int = 10_000) -> int:
    """Render every queued intent now, without sending (tests, and tools that read bodies before a
    sender ran). Returns how many rows got their bodies. Senders do this themselves per claimed row.

    The read is its own transaction; each write of 50 rows' bodies is one more, which starts with
    its UPDATE (on SQLite a write-first transaction waits for the write lock in the busy timeout)."""
    renderer = resolve_renderer(renderer)
    t = _TABLE.c
    done = 0
    with session_factory(source)() as session:
        pending = list(
            session.execute(
                select(t.id, t.template, t.context).where(t.text_body.is_(None)).order_by(t.id).limit(limit)
            )
        )
        session.commit()
        for start in range(0, len(pending), 50):
            bodies = [
                (row_id, *render_bodies(template, context, renderer))
                for row_id, template, context in pending[start : start + 50]
            ]
            done += _store_bodies(session, bodies)
            session.commit()
    return done
