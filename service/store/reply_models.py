"""The inbound reply log: every reply mail the service has taken in, by its Message-ID (or a hash of
its bytes), so a mail delivered twice (SMTP retries, IMAP re-polls) is processed once."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from service.store.models import utcnow


class InboundReplyRow(SQLModel, table=True):
    __tablename__ = "inbound_reply"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, max_length=255)  # replies.message_key(): Message-ID or sha256:...
    game_id: str | None = Field(default=None, max_length=24)
    seat: int | None = None
    outcome: str = Field(default="", max_length=16)  # applied | refused | stale | unknown | closed
    received_at: datetime = Field(default_factory=utcnow)
