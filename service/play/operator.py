"""The operator's use cases (issue 31.3; `skyjo-pbem status|block|unblock|resend`, service/cli_operator.py):
the state of the service in figures, the block list by hand, a mail sent again. `cancel GAME` is
`games.operator_cancel`, `forget ADDRESS` is `play.forget`. Each refusal is a `UseCaseError` (the
command says it and exits with code 2)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import MetaData, Table, func, inspect
from sqlmodel import Session, select

from service.mail.message import new_message_id
from service.play import blocklist
from service.play.errors import Conflict, Invalid, NotFound
from service.store.bounce_models import NEVER
from service.store.clock_models import Deadline
from service.store.models import GameRow
from service.store.outbox_models import OutboxMail, utcnow

ADDRESS = re.compile(r"[^\s<>@]+@[^\s<>@]+")
HEARTBEAT_TABLE = "worker_heartbeat"  # issue 31.2 (the workers' table); absent: the status says n/a


def address_of(text: str) -> str:
    """An address given on the command line, trimmed; Invalid unless it looks like one."""
    address = (text or "").strip()
    if not ADDRESS.fullmatch(address):
        raise Invalid(f"{text!r} is not an email address")
    return address


@dataclass
class Status:
    """`skyjo-pbem status`: what an operator checks first."""

    games: dict[str, int] = field(default_factory=dict)  # status -> how many
    outbox_unsent: int = 0
    outbox_due: int = 0  # unsent and due now (not held for later)
    oldest_due: datetime | None = None  # the send_after of the oldest due unsent mail
    overdue_deadlines: int = 0  # open deadlines past their time
    oldest_overdue: datetime | None = None
    heartbeats: list[str] | None = None  # None: no heartbeat table in this database

    def lines(self, now: datetime) -> list[str]:
        def age(at: datetime | None) -> str:
            return "-" if at is None else f"{(now - at).total_seconds() / 60:.1f} min ago ({at:%Y-%m-%d %H:%M} UTC)"

        games = ", ".join(f"{k} {v}" for k, v in sorted(self.games.items())) or "none"
        out = [f"games: {games}",
               f"outbox: {self.outbox_unsent} unsent, {self.outbox_due} due; oldest due {age(self.oldest_due)}",
               f"overdue deadlines: {self.overdue_deadlines}; oldest {age(self.oldest_overdue)}"]
        if self.heartbeats is None:
            out.append("worker heartbeats: n/a (this database has no heartbeat table)")
        else:
            out.append(f"worker heartbeats: {len(self.heartbeats)}")
            out += [f"  {beat}" for beat in self.heartbeats]
        return out


def status(s: Session, now: datetime | None = None) -> Status:
    now = now or utcnow()
    st = Status()
    st.games = {k: v for k, v in s.exec(select(GameRow.status, func.count()).group_by(GameRow.status))}
    unsent = OutboxMail.sent_at.is_(None)
    st.outbox_unsent = s.exec(select(func.count()).select_from(OutboxMail).where(unsent)).one()
    st.outbox_due, st.oldest_due = s.exec(select(func.count(), func.min(OutboxMail.send_after))
                                          .where(unsent, OutboxMail.send_after <= now)).one()
    st.overdue_deadlines, st.oldest_overdue = s.exec(
        select(func.count(), func.min(Deadline.deadline_at))
        .where(Deadline.fired_at.is_(None), Deadline.deadline_at < now)).one()
    st.heartbeats = _heartbeats(s)
    return st


def _heartbeats(s: Session) -> list[str] | None:
    """The rows of issue 31.2's heartbeat table, each as its columns' text, when the database has it
    (read by reflection: the workers own its columns)."""
    conn = s.connection()
    if not inspect(conn).has_table(HEARTBEAT_TABLE):
        return None
    table = Table(HEARTBEAT_TABLE, MetaData(), autoload_with=conn)
    return [" ".join(f"{k}={v}" for k, v in row._mapping.items()) for row in conn.execute(select(table))]


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
