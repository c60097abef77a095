"""Addresses the service no longer mails (issue 29): one row per address, by a hash of it.

* reason "bounce": a permanent delivery failure (an SMTP 5xx when sending, a hard bounce, or too many
  soft failures); the host may enter the address again (a correction, or /new), which lifts it;
* reason "never": the address asked for no mail from this service at all ("I don't want mail from
  this service" in an invitation, or its RFC 8058 one-click header); only that lifts nothing.

The address is stored as SHA-256 of its normalized form (`address_hash`): checking an address costs
one hash and needs no secret (the sender thread has none), and the table alone is no list of
addresses to mail. (An unkeyed hash of a guessed address can be confirmed; the seat rows hold the
addresses of players anyway, so a keyed hash, which a SECRET_KEY rotation would void, buys little.)
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import DateTime
from sqlmodel import Field, SQLModel

from service.store import naming  # noqa: F401  (the shared naming convention)
from service.store.outbox_models import utcnow

BOUNCE, NEVER = "bounce", "never"


def normalized(address: str) -> str:
    """The form an address is compared in: trimmed, lower case (local parts are case-insensitive
    at every mail provider the service will meet; a +tag is kept: it may be another mailbox)."""
    return str(address or "").strip().lower()


def address_hash(address: str) -> str:
    return hashlib.sha256(normalized(address).encode("utf-8", "surrogateescape")).hexdigest()


class MailBlockRow(SQLModel, table=True):
    """An address nothing is mailed to (see the module docstring)."""

    __tablename__ = "mail_block"

    id: int | None = Field(default=None, primary_key=True)
    address_hash: str = Field(unique=True, max_length=64)
    reason: str = Field(max_length=16)  # bounce | never
    detail: str = Field(default="", max_length=200)  # the server's answer or the report's status (no address)
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())  # naive UTC, like the outbox
