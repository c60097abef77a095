"""What becomes of a mail that failed for its address (issue 29), for the sender (service.mail.delivery).

A failure the recipient's address is to blame for (`service.mail.bounces.smtp_failure`): a
permanent one (an SMTP 5xx for the recipient) ends the row at once; a soft one (4xx, mailbox full)
backs off like any failure until the row has failed `soft_limit` times, then counts as permanent.
A permanent failure is handed to `failures.permanent(row, answer)` (injected by `create_app`: the
play layer puts the address on the block list, which ends every unsent row to it, and tells the
host); without that hook the row alone is ended (`sent_at` set, transport "failed").

Every mail goes with its own VERP envelope sender, `failures.return_path(row id)`, so a later
bounce report names the row it is about (service.mail.bounces).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Protocol

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session

from service.mail.bounces import smtp_failure
from service.store.outbox_models import OutboxMail

log = logging.getLogger(__name__)


class Failures(Protocol):
    """The play layer's `MailFailures`."""

    soft_limit: int  # soft failures of one row before it counts as permanent

    def return_path(self, row_id: int) -> str | None: ...

    def permanent(self, row: OutboxMail, answer: str) -> None:
        """The row's address failed for good: end the row (and every unsent row to it), in its own
        transaction."""


FAILURES_KEY = "outbox_failures"  # where `create_app` puts it

_T = OutboxMail.__table__.c
_MINE = (_T.id == bindparam("b_id"), _T.claimed_by == bindparam("b_token"), _T.sent_at.is_(None))
_NOTE = update(OutboxMail.__table__).where(*_MINE).values(attempts=_T.attempts + 1, last_error=bindparam("b_error"))
_NOTE_RENDERED = _NOTE.values(text_body=bindparam("b_text"), html_body=bindparam("b_html"), context=None)
_END = update(OutboxMail.__table__).where(*_MINE).values(
    sent_at=bindparam("b_now"), transport="failed", claimed_until=None, claimed_by=None
)


def resolve_failures(failures: Failures | None) -> Failures | None:
    """The hook to use: the one given, else the active Flask app's (`create_app` sets it)."""
    if failures is not None:
        return failures
    from flask import current_app, has_app_context

    return current_app.extensions.get(FAILURES_KEY) if has_app_context() else None


def give_up(session: Session, row: OutboxMail, token: str, now: datetime, exc: Exception, bodies: dict,
            failures: Failures | None) -> bool:
    """End claimed `row` if `exc` is a permanent failure of its address (or a soft one for the
    `soft_limit`-th time); True when it was ended. The attempt, the server's answer and the
    rendered bodies are kept with the row (the dev mailbox shows what failed)."""
    failure = smtp_failure(exc)
    if failure is None:
        return False
    kind, answer = failure
    limit = failures.soft_limit if failures is not None else 0
    if kind == "soft" and not (limit and (row.attempts or 0) + 1 >= limit):
        return False
    session.rollback()
    params = {"b_id": row.id, "b_token": token, "b_now": now, "b_error": answer[:500], **bodies}
    session.execute(_NOTE_RENDERED if bodies else _NOTE, params)
    if failures is None:
        session.execute(_END, params)
    session.commit()
    if failures is not None:
        failures.permanent(row, answer)
    log.warning("outbox: row %s not deliverable (%s), given up", row.id, kind)
    return True
