"""The outbox table: one row per mail to one recipient (`OutboxMail`).

A row is queued in the transaction of the change that causes the mail (service.mail.outbox) and
delivered later by a sender (service.mail.delivery), which claims it with a lease (`claimed_by`,
`claimed_until`), and marks it sent (`sent_at`) or backs it off (`attempts`, `last_error`,
`send_after`).
After MAIL_KEEP_DAYS a sent row keeps no body, context or link (service.mail.retention); a finished
game's rows are deleted after GAME_KEEP_DAYS.
A turn mail for a decision its player is already looking at is held: due later, and dropped
then if the decision was made meanwhile (`hold_game`, `hold_decision`). Rows are never deleted by
the sender; the dev mailbox lists the sent ones.

A mail is queued either with its bodies or as an intent: `template` plus a JSON `context` that
the sender renders when it first claims the row (bodies NULL until then).

All timestamps are naive UTC (explicit `DateTime()`: sqlmodel >= 0.0.50 would otherwise map
`datetime` to a timezone-aware type that rejects naive values).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, DateTime, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from service.store import naming  # noqa: F401  (the shared naming convention, whichever module loads first)
from service.store.naming import NULLABLE_JSON


def utcnow() -> datetime:
    """Naive UTC, the form every timestamp in the outbox table has."""
    return datetime.now(UTC).replace(tzinfo=None)


def naive_utc(value: datetime | None) -> datetime:
    """`value` as naive UTC (aware values converted); None is now."""
    if value is None:
        return utcnow()
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


class OutboxMail(SQLModel, table=True):
    """One mail to one recipient. Rows are never deleted by the sender; `sent_at` marks delivery."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("message_id", name="uq_outbox_message_id"),
        # The sweep reads `sent_at IS NULL AND send_after <= now`: this index makes its cost depend
        # on the unsent rows, not on the size of the table (sent rows sort apart). The dev mailbox
        # lists `sent_at IS NOT NULL ORDER BY sent_at DESC` from the same index.
        Index("ix_outbox_due", "sent_at", "send_after"),
        # Per-recipient order: "is an older row to this address still unsent?" is one index probe.
        Index("ix_outbox_to_unsent", "to_addr", "sent_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, nullable=True)
    seat: int | None = Field(default=None, nullable=True)
    from_addr: str = Field(sa_type=String(400))
    to_addr: str = Field(sa_type=String(320))
    to_name: str = Field(default="", sa_type=Text)
    subject: str = Field(sa_type=Text)
    # NULL until rendered: a mail queued as an intent (`template` + `context`) gets its bodies when a
    # sender first claims it; a mail queued with bodies has no template.
    text_body: str | None = Field(default=None, sa_type=Text, nullable=True)
    html_body: str | None = Field(default=None, sa_type=Text, nullable=True)
    template: str | None = Field(default=None, sa_type=String(40), nullable=True)
    context: dict | None = Field(default=None, sa_type=NULLABLE_JSON, nullable=True)
    headers: dict = Field(default_factory=dict, sa_type=JSON)
    message_id: str = Field(sa_type=String(255))
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    send_after: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text, nullable=True)
    claimed_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    claimed_by: str | None = Field(default=None, sa_type=String(64), nullable=True)
    sent_at: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    transport: str | None = Field(default=None, sa_type=String(20), nullable=True)  # "dropped": never sent
    # a held turn mail (issue 15.2): it asks seat `seat` of game `hold_game` for decision
    # `hold_decision` (engine `Game.decision_id`), and goes out at `send_after` only if that seat
    # still owes that decision then; else delivery drops it (sent_at set, transport "dropped")
    hold_game: str | None = Field(default=None, sa_type=String(24), nullable=True)
    hold_decision: str | None = Field(default=None, sa_type=String(64), nullable=True)
    # the game a mail is about (issue 29: `skyjo-pbem prune` deletes a finished game's mails after
    # GAME_KEEP_DAYS; a bounce of it tells that game's host); None: a mail for an address ("mail me
    # my links", a digest). (`game_id` is an older integer column, unused: game ids are strings.)
    game_ref: str | None = Field(default=None, sa_type=String(24), nullable=True)
    # issue 32.2: the calendar invitation and/or cancellation this mail carries, as plain data
    # ({"request": {...}, "cancel": {...}}, `service.mail.calendar`); its MIME parts are built from it
    # and `created_at` (DTSTAMP), so a retry has the same bytes. None: no calendar part.
    calendar: dict | None = Field(default=None, sa_type=NULLABLE_JSON, nullable=True)

    def __repr__(self) -> str:  # bodies carry secret links: never show them in logs or tracebacks
        return (
            f"<OutboxMail id={self.id} game={self.game_id} seat={self.seat} sent={self.sent_at is not None}>"
        )

    __str__ = __repr__
