"""The operator's use cases (issue 31.3; `skyjo-pbem status|block|unblock|resend`, service/cli_operator.py):
the state of the service in figures, the block list by hand, a mail sent again. `cancel GAME` is
`games.operator_cancel`, `forget ADDRESS` is `play.forget`. Each refusal is a `UseCaseError` (the
command says it and exits with code 2)."""

from __future__ import annotations

import re
from datetime import datetime

from sqlmodel import Session

from service.mail.message import new_message_id
from service.play import blocklist
from service.play.errors import Conflict, Invalid, NotFound
from service.play.health import ServiceStatus
from service.store.bounce_models import NEVER
from service.store.outbox_models import OutboxMail, utcnow

ADDRESS = re.compile(r"[^\s<>@]+@[^\s<>@]+")


def address_of(text: str) -> str:
    """An address given on the command line, trimmed; Invalid unless it looks like one."""
    address = (text or "").strip()
    if not ADDRESS.fullmatch(address):
        raise Invalid(f"{text!r} is not an email address")
    return address


def status_lines(st: ServiceStatus) -> list[str]:
    """`skyjo-pbem status`: what an operator checks first, in lines, from the one reading of the
    service that `/readyz` and `/metrics` use too (`play.health.service_status`)."""

    def by(counts: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"

    out = [f"games: {by(st.games)}", f"moves: {st.moves}",
           f"migrations: {'at head' if st.at_head else 'NOT at head: run skyjo-pbem db upgrade'}",
           f"mails: {by(st.mails)}",
           f"outbox: {st.mail_backlog} due; oldest due {st.oldest_due_mail_s / 60:.1f} min ago",
           f"overdue deadlines: {st.overdue_deadlines}; oldest {st.oldest_overdue_s / 60:.1f} min ago",
           f"block list: {by(st.blocked)}", f"replies: {by(st.replies)}",
           f"clock workers: {len(st.heartbeats)} ({sum(h.alive for h in st.heartbeats)} alive)"]
    out += [f"  {h.worker} ({h.kind}): swept {h.age_s:.0f} s ago, every {h.interval_s:.0f} s, "
            f"last sweep {h.sweep_s:.2f} s{'' if h.alive else ', NOT alive'}" for h in st.heartbeats]
    return out


def block(s: Session, text: str) -> tuple[str, bool]:
    """`skyjo-pbem block ADDRESS`: nothing is mailed to it any more, its unsent mails end unsent, and
    /new refuses it as a player or host (the block list's "never", `play.blocklist`). Returns the
    address and whether it was not blocked so before."""
    address = address_of(text)
    return address, blocklist.block(s, address, NEVER, blocklist.OPERATOR)


def unblock(s: Session, text: str) -> tuple[str, str | None]:
    """`skyjo-pbem unblock ADDRESS`: off the list, whatever the reason (an address that asked for no
    mail too: the operator decides). Returns the address and the reason it had."""
    address = address_of(text)
    return address, blocklist.unblock(s, address)


def resend(s: Session, mail_id: int, now: datetime | None = None) -> OutboxMail:
    """`skyjo-pbem resend MAIL-ID`: the mail again, as a new delivery of the same text.

    It gets a new Message-ID: mail clients and Gmail drop a message whose Message-ID they have seen,
    so the same id would never reach someone who lost the mail, which is why it is resent. Its
    In-Reply-To and References stay: it lands in the same thread. Refused: no such mail, a mail not
    sent yet (it goes by itself), a mail whose body was pruned (MAIL_KEEP_DAYS) or an address on the
    block list (`unblock` it first)."""
    row = s.get(OutboxMail, mail_id)
    if row is None:
        raise NotFound(f"no mail with id {mail_id}")
    if row.sent_at is None:
        raise Conflict(f"mail {mail_id} is not sent yet; the sender delivers it by itself")
    if row.text_body is None:
        raise Conflict(f"mail {mail_id} keeps no body (pruned after MAIL_KEEP_DAYS, or dropped unrendered)")
    reason = blocklist.reason_of(s, row.to_addr)
    if reason is not None:
        raise Conflict(f"{row.to_addr} is on the block list ({reason}); `skyjo-pbem unblock` it first")
    domain = row.message_id.rsplit("@", 1)[-1].rstrip(">") or "localhost"
    now = now or utcnow()
    copy = OutboxMail(from_addr=row.from_addr, to_addr=row.to_addr, to_name=row.to_name, subject=row.subject,
                      text_body=row.text_body, html_body=row.html_body, headers=dict(row.headers or {}),
                      message_id=new_message_id(domain), created_at=now, send_after=now, seat=row.seat,
                      game_ref=row.game_ref)
    s.add(copy)
    s.flush()
    return copy
