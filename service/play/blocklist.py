"""The block list (issue 29, `service.store.bounce_models`): which addresses get no mail, and why.

Queueing leaves out mails to a blocked address (`service.mail.outbox`); `block` also ends the mails
to it that were queued before (`sent_at` set, transport "undeliverable" or "suppressed", never
sent). An address that bounced is lifted when a host enters it again (/new, or the correction
page): it gets another chance, and if it bounces again the host is told again. An address that
asked for no mail is never lifted: /new and the correction page refuse it.
"""

from __future__ import annotations

import re

from flask_babel import gettext as _
from sqlalchemy import delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from service.play.errors import Invalid
from service.store.bounce_models import BOUNCE, NEVER, MailBlockRow, address_hash
from service.store.outbox_models import OutboxMail, utcnow

ENDED_AS = {BOUNCE: "undeliverable", NEVER: "suppressed"}
OPERATOR = "blocked by the operator"  # the detail of `skyjo-pbem block` (a "never" the address did not ask for)
_NO_ADDRESS = re.compile(r"[^\s<>]+@[^\s<>]+")


def reason_of(s: Session, address: str) -> str | None:
    """bounce | never | None."""
    if not address:
        return None
    return s.exec(select(MailBlockRow.reason).where(MailBlockRow.address_hash == address_hash(address))).first()


def _detail_of(s: Session, address: str) -> str | None:
    return s.exec(select(MailBlockRow.detail).where(MailBlockRow.address_hash == address_hash(address))).first()


def block(s: Session, address: str, reason: str, detail: str = "") -> bool:
    """Put `address` on the list (a "never" overrides a "bounce") and end its unsent mails. True
    when it was not blocked for that reason before (so whoever must be told is told once)."""
    digest = address_hash(address)
    detail = _NO_ADDRESS.sub("<address>", detail)[:200]  # a server's answer often names it: the list keeps none
    values = {"address_hash": digest, "reason": reason, "detail": detail, "created_at": utcnow()}
    dialect = s.get_bind().dialect.name
    insert = (postgresql if dialect == "postgresql" else sqlite).insert(MailBlockRow)
    new = s.connection().execute(
        insert.values(**values).on_conflict_do_nothing(index_elements=["address_hash"]).returning(MailBlockRow.id)
    ).first() is not None
    if not new and reason == NEVER:
        changed = s.connection().execute(
            update(MailBlockRow).where(MailBlockRow.address_hash == digest, MailBlockRow.reason != NEVER)
            .values(reason=NEVER, detail=values["detail"])
        ).rowcount
        new = bool(changed)
    end_unsent(s, address, ENDED_AS[reason], detail)
    return new


def end_unsent(s: Session, address: str, transport: str, detail: str = "") -> int:
    """Every unsent mail to `address` ends unsent (whatever its claim: a sender that holds one
    finds it gone). Returns how many."""
    t = OutboxMail.__table__.c
    result = s.connection().execute(
        update(OutboxMail.__table__).where(t.to_addr.in_(_spellings(address)), t.sent_at.is_(None))
        .values(sent_at=utcnow(), transport=transport, claimed_until=None, claimed_by=None,
                last_error=detail[:500] or None)
    )
    return result.rowcount


def _spellings(address: str) -> list[str]:
    """The forms an address has in the outbox (`clean_address` lowercases the domain only)."""
    local, _, domain = address.strip().rpartition("@")
    return list(dict.fromkeys([address.strip(), f"{local}@{domain.lower()}", address.strip().lower()]))


def lift_bounce(s: Session, address: str) -> None:
    s.connection().execute(delete(MailBlockRow).where(MailBlockRow.address_hash == address_hash(address),
                                                      MailBlockRow.reason == BOUNCE))


def unblock(s: Session, address: str) -> str | None:
    """`skyjo-pbem unblock` (issue 31.3): take `address` off the list whatever the reason. Returns
    the reason it had (None: it was not on the list)."""
    reason = reason_of(s, address)
    if reason is not None:
        s.connection().execute(delete(MailBlockRow).where(MailBlockRow.address_hash == address_hash(address)))
    return reason


def check_invited(s: Session, addresses: list[str]) -> None:
    """/new and the correction page: refuse an address that asked for no mail (Invalid, the form
    kept), and give one that bounced another chance."""
    for address in addresses:
        reason = reason_of(s, address)
        if reason == NEVER and _detail_of(s, address) == OPERATOR:
            raise Invalid(_("%(email)s cannot be invited to games here. Please invite someone else.",
                            email=address))
        if reason == NEVER:
            raise Invalid(_("%(email)s asked for no mail from this service. Please invite someone else.",
                            email=address))
        if reason == BOUNCE:
            lift_bounce(s, address)
