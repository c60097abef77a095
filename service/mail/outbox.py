"""Outbox: mails are rows, queued in the move's transaction and delivered by a sender.

A mail exists if and only if the transaction that queued it committed: `queue_mail` only adds a row
to the caller's session and never commits. `deliver_due` (called by the background sender in
`skyjo-pbem serve`, or by a dedicated worker) claims due rows with a conditional UPDATE (rowcount 1
wins; plus `FOR UPDATE SKIP LOCKED` on PostgreSQL), sends them, and marks them sent. A failed send
keeps the row with `attempts + 1`, `last_error` and `send_after` pushed back exponentially (capped,
never given up). A sender that dies mid-send leaves its claim to expire; another sender retries, so
delivery to the SMTP server is at least once, and two live senders never send the same row.

Mails to one address go out in the order they were queued: a row is only due when no older row to
the same address is still unsent (so a turn mail in backoff also holds back the follow-up).

Nothing here needs a Flask app context: configuration comes from the app when one is active, else
from `configure(...)`, else from environment variables (MAIL_FROM, BASE_URL).

Nothing hidden is logged: logs name row ids and exception classes, never bodies, links, addresses
or the SMTP password.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import secrets
import smtplib
import socket
import ssl
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

import css_inline
from sqlalchemy import (
    JSON,
    DateTime,
    Index,
    String,
    Text,
    UniqueConstraint,
    and_,
    bindparam,
    event,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, aliased
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)

__all__ = [
    "OutboxMail",
    "MailConfig",
    "configure",
    "queue_mail",
    "insert_mail",
    "mail_values",
    "render_pending",
    "Renderer",
    "build_message",
    "Transport",
    "TransportUnavailable",
    "SmtpTransport",
    "DevTransport",
    "transport_from_url",
    "deliver_due",
    "backoff_delay",
    "BackgroundSender",
    "start_background_sender",
    "stop_background_sender",
    "wake_background_sender",
    "utcnow",
]


def utcnow() -> datetime:
    """Naive UTC, the form every timestamp in the outbox table has."""
    return datetime.now(UTC).replace(tzinfo=None)


def _naive_utc(value: datetime | None) -> datetime:
    if value is None:
        return utcnow()
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


# --------------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------------


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
    # sender first claims it (see `render_claimed`); a mail queued with bodies has no template.
    text_body: str | None = Field(default=None, sa_type=Text, nullable=True)
    html_body: str | None = Field(default=None, sa_type=Text, nullable=True)
    template: str | None = Field(default=None, sa_type=String(40), nullable=True)
    context: dict | None = Field(default=None, sa_type=JSON, nullable=True)
    headers: dict = Field(default_factory=dict, sa_type=JSON)
    message_id: str = Field(sa_type=String(255))
    # Naive UTC everywhere (explicit DateTime(): sqlmodel >= 0.0.50 otherwise maps datetime to a
    # timezone-aware UTCDateTime that rejects naive values).
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    send_after: datetime = Field(default_factory=utcnow, sa_type=DateTime())
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text, nullable=True)
    claimed_until: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    claimed_by: str | None = Field(default=None, sa_type=String(64), nullable=True)
    sent_at: datetime | None = Field(default=None, sa_type=DateTime(), nullable=True)
    transport: str | None = Field(default=None, sa_type=String(20), nullable=True)

    def __repr__(self) -> str:  # bodies carry secret links: never show them in logs or tracebacks
        return (
            f"<OutboxMail id={self.id} game={self.game_id} seat={self.seat} sent={self.sent_at is not None}>"
        )

    __str__ = __repr__


# --------------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------------

DEFAULT_MAIL_FROM = "SKYJO <skyjo@localhost>"
DEFAULT_BASE_URL = "http://localhost:5000"


@dataclass(frozen=True)
class MailConfig:
    """Values derived once per configuration (`current_config` keeps one per MAIL_FROM/BASE_URL)."""

    mail_from: str = DEFAULT_MAIL_FROM
    base_url: str = DEFAULT_BASE_URL

    @functools.cached_property
    def base_host(self) -> str:
        return _host_of(self.base_url)

    @functools.cached_property
    def from_address(self) -> Address:
        """MAIL_FROM as an Address; a bare local part gets BASE_URL's host as its domain."""
        return _parse_from(self.mail_from, self.base_host)

    @functools.cached_property
    def domain(self) -> str:
        """Domain for Message-IDs: MAIL_FROM's domain (else BASE_URL's host, else localhost)."""
        return _domain_of(self.from_address.domain, self.base_host)

    @functools.cached_property
    def from_header(self) -> str:
        """`from_address` as header text (formatting an Address is slow; it is asked for every mail)."""
        return str(self.from_address)


@functools.lru_cache(maxsize=64)
def _host_of(base_url: str) -> str:
    host = urlsplit(base_url).hostname or ""
    host = re.sub(r"[^A-Za-z0-9.-]", "", host.encode("idna").decode("ascii") if host else "")
    return host or "localhost"


@functools.lru_cache(maxsize=64)
def _domain_of(from_domain: str, base_host: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "", from_domain) or base_host


_configured: MailConfig | None = None


def configure(*, mail_from: str | None = None, base_url: str | None = None) -> MailConfig:
    """Set the module-level configuration (for workers without an app). Returns it."""
    global _configured
    base = _configured or MailConfig()
    _configured = MailConfig(
        mail_from=mail_from if mail_from is not None else base.mail_from,
        base_url=base_url if base_url is not None else base.base_url,
    )
    return _configured


@functools.lru_cache(maxsize=16)
def _config_of(mail_from: str, base_url: str) -> MailConfig:
    return MailConfig(mail_from=mail_from, base_url=base_url)


def current_config() -> MailConfig:
    """App config when an app context is active, else `configure(...)`, else environment."""
    try:
        from flask import current_app, has_app_context

        if has_app_context():
            cfg = current_app.config
            return _config_of(cfg.get("MAIL_FROM") or DEFAULT_MAIL_FROM, cfg.get("BASE_URL") or DEFAULT_BASE_URL)
    except ImportError:  # pragma: no cover - flask is a dependency
        pass
    if _configured is not None:
        return _configured
    return MailConfig(
        mail_from=os.environ.get("MAIL_FROM") or DEFAULT_MAIL_FROM,
        base_url=os.environ.get("BASE_URL") or DEFAULT_BASE_URL,
    )


# --------------------------------------------------------------------------------------------------
# Header hygiene
# --------------------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


@functools.lru_cache(maxsize=4096)
def clean_header_text(value: str, max_len: int = 200) -> str:
    """One line of text safe for a header: control characters (CR, LF, ...) become spaces.
    Cached: a game's names and subject come back in every mail it sends."""
    value = unicodedata.normalize("NFC", str(value))
    value = _CONTROL.sub(" ", value)
    value = re.sub(r"\s+", " ", value).strip()
    if len(value) > max_len:
        value = value[: max_len - 1].rstrip() + "…"
    return value


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_ADDRESS = re.compile(rf"({_ATEXT}(?:\.{_ATEXT})*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)")


@functools.lru_cache(maxsize=4096)
def clean_address(addr: str) -> str:
    """A single plain addr-spec (`local@domain`), or ValueError. IDN domains become punycode.
    Cached, and a plain ASCII dot-atom address (every reply address we make) skips the full parser."""
    addr = str(addr).strip()
    plain = _PLAIN_ADDRESS.fullmatch(addr)
    if plain and len(addr) <= 254:
        return f"{plain.group(1)}@{plain.group(2).lower()}"
    if not addr or _CONTROL.search(addr) or re.search(r"[\s,;<>()\[\]\\\"]", addr) or addr.count("@") != 1:
        raise ValueError("not a single plain e-mail address")
    local, _, domain = addr.rpartition("@")
    if not local or not domain:
        raise ValueError("not a single plain e-mail address")
    try:
        domain = domain.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise ValueError("invalid domain in e-mail address") from exc
    if not local.isascii():
        raise ValueError("non-ASCII local parts are not supported")
    parsed = Address(addr_spec=f"{local}@{domain}")  # raises ValueError when not one addr-spec
    return parsed.addr_spec


@functools.lru_cache(maxsize=64)
def _parse_from(mail_from: str, fallback_domain: str = "localhost") -> Address:
    """Parsed once per (MAIL_FROM, domain): queueing a mail asks for it several times."""
    name, addr = parseaddr(clean_header_text(mail_from, 400))
    addr = addr or "skyjo"
    if "@" not in addr:
        addr = f"{addr}@{fallback_domain}"
    return Address(display_name=clean_header_text(name, 100), addr_spec=clean_address(addr))


@functools.lru_cache(maxsize=4096)  # a seat's unsubscribe URL comes back in every mail
def _clean_url(url: str) -> str:
    url = str(url).strip()
    if not url or _CONTROL.search(url) or re.search(r"[\s<>\"]", url):
        raise ValueError("URL not usable in a header")
    return url


@functools.lru_cache(maxsize=4096)
def _clean_thread_key(key: str) -> str:
    key = re.sub(r"[^A-Za-z0-9._+-]", "-", str(key)).strip(".-")
    if not key:
        raise ValueError("empty thread key")
    return key[:120]


def new_message_id(domain: str) -> str:
    """`<time.random@domain>`: the time in ns (hex) first, so new ids land at the end of the unique
    index instead of on a random page of it (each mail a move queues wrote a page of its own
    there), then 128 random bits, which make it unique."""
    return f"<{time.time_ns():x}.{secrets.token_hex(16)}@{domain}>"


def thread_root_id(thread_key: str, domain: str) -> str:
    return f"<{_clean_thread_key(thread_key)}@{domain}>"


# --------------------------------------------------------------------------------------------------
# Queueing
# --------------------------------------------------------------------------------------------------

_inliner = css_inline.CSSInliner(load_remote_stylesheets=False, keep_at_rules=True)


def inline_css(html: str) -> str:
    """`<style>` rules into `style=` attributes (mail clients drop style sheets); never fetches."""
    return _inliner.inline(html)


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
    seat: int | None = None,
    thread_key: str | None = None,
    unsubscribe_url: str | None = None,
    reply_to: str | None = None,
    now: datetime | None = None,
    config: MailConfig | None = None,
) -> dict:
    """The column values of one outbox row (headers cleaned, Message-ID fixed now).

    Either the bodies (`text`, optional `html`, CSS inlined here) or an intent: `template` and a
    JSON `context` that the sender's renderer turns into the bodies at send time (the move's
    transaction then only writes a small row; nothing hidden may be in the context either).
    thread_key: e.g. "game-12-seat-1"; In-Reply-To/References point to `<thread_key@domain>` so every
    mail of that game and seat threads together (keep the subject fixed too, for Gmail).
    unsubscribe_url: RFC 8058 one-click URL (must act on POST only).
    reply_to: e.g. the seat's secret reply address.
    """
    if (text is None) == (template is None):
        raise ValueError("a mail has either its text or a template to render it from")
    cfg = config or current_config()
    domain = cfg.domain
    now = _naive_utc(now)

    headers: dict[str, str] = {}
    if thread_key:
        root = thread_root_id(thread_key, domain)
        headers["In-Reply-To"] = root
        headers["References"] = root
    if unsubscribe_url:
        headers["List-Unsubscribe"] = f"<{_clean_url(unsubscribe_url)}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    if reply_to:
        headers["Reply-To"] = clean_address(reply_to)
    return {
        "game_id": game_id,
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
        "message_id": new_message_id(domain),
        "created_at": now,
        "send_after": now,
        "attempts": 0,
    }


def queue_mail(session: Session, **kwargs) -> OutboxMail:
    """Add one mail to `session` as an ORM row (never commits: it goes out iff the caller's
    transaction commits). Arguments: those of `mail_values`."""
    flush_mails(session)  # after the mails queued before it
    row = OutboxMail(**mail_values(**kwargs))
    session.add(row)
    session.flush()  # and before those queued after it (insert_mail's rows wait for the commit)
    return row


_PENDING = "outbox_pending"


def insert_mail(session: Session, **kwargs) -> None:
    """Like `queue_mail`, without an ORM object (the move's hot path): the rows of a transaction
    are written together by one Core INSERT (executemany: one round trip on PostgreSQL) when it
    commits, or earlier by `flush_mails`. Rows are sent per recipient in id order, which is the
    order of the calls."""
    session.connection()  # in a transaction (begun now if need be): the mail ends with it
    session.info.setdefault(_PENDING, []).append(mail_values(**kwargs))


def flush_mails(session: Session) -> None:
    """Write the mails `insert_mail` holds for this session's transaction now."""
    pending = session.info.pop(_PENDING, None)
    if pending:
        session.connection().execute(_INSERT_MAILS, pending)


_INSERT_MAILS = insert(OutboxMail.__table__).inline()  # no RETURNING: nothing reads the new ids


@event.listens_for(Session, "before_commit")
def _flush_before_commit(session: Session) -> None:
    flush_mails(session)


@event.listens_for(Session, "after_transaction_end")
def _forget_at_the_end(session: Session, transaction) -> None:
    if transaction.parent is None:  # rolled back or closed unfinished: its mails go with it
        session.info.pop(_PENDING, None)


# --------------------------------------------------------------------------------------------------
# Rendering intents
# --------------------------------------------------------------------------------------------------

Renderer = Callable[[str, dict], tuple[str, str | None]]
"""(template, context) -> (text body, HTML body before CSS inlining); needs no database."""


class RenderFailed(Exception):
    """The renderer could not turn an intent into bodies (a bug or no renderer configured)."""


def resolve_renderer(renderer: Renderer | None) -> Renderer | None:
    """The renderer to use: the one given, else the active Flask app's (`create_app` sets it)."""
    if renderer is not None:
        return renderer
    try:
        from flask import current_app, has_app_context

        if has_app_context():
            return current_app.extensions.get("outbox_renderer")
    except ImportError:  # pragma: no cover - flask is a dependency
        pass
    return None


def _bodies(row_template: str, row_context: dict | None, renderer: Renderer | None) -> tuple[str, str | None]:
    if renderer is None:
        raise RenderFailed("no renderer configured for template mails")
    try:
        text, html = renderer(row_template, row_context or {})
    except Exception as exc:  # noqa: BLE001 - a template bug must not stop the other mails
        raise RenderFailed(type(exc).__name__) from exc
    return text, inline_css(html) if html is not None else None


_STORE_BODIES = (update(OutboxMail.__table__)
                 .where(OutboxMail.__table__.c.id == bindparam("b_id"), OutboxMail.__table__.c.text_body.is_(None))
                 .values(text_body=bindparam("b_text"), html_body=bindparam("b_html"), context=None))


def _store_bodies(session: Session, rows: list[tuple[int, str, str | None]]) -> int:
    """Bodies of rendered rows (id, text, html), one executemany (one round trip on PostgreSQL);
    rows another sender rendered meanwhile keep theirs. Returns how many were stored."""
    if not rows:
        return 0
    result = session.connection().execute(
        _STORE_BODIES, [{"b_id": row_id, "b_text": text, "b_html": html} for row_id, text, html in rows])
    return result.rowcount if result.rowcount >= 0 else len(rows)


def render_pending(source: SessionSource, renderer: Renderer | None = None, limit: int = 10_000) -> int:
    """Render every queued intent now, without sending (tests, and tools that read bodies before a
    sender ran). Returns how many rows got their bodies. Senders do this themselves per claimed row."""
    renderer = resolve_renderer(renderer)
    t = OutboxMail.__table__.c
    done = 0
    with _session_factory(source)() as session:
        pending = list(session.execute(
            select(t.id, t.template, t.context).where(t.text_body.is_(None)).order_by(t.id).limit(limit)))
        session.commit()
        for start in range(0, len(pending), 50):  # one transaction per 50 rows
            bodies = [(row_id, *_bodies(template, context, renderer))
                      for row_id, template, context in pending[start:start + 50]]
            with _writers(session):
                done += _store_bodies(session, bodies)
                session.commit()
    return done


# --------------------------------------------------------------------------------------------------
# Building the message
# --------------------------------------------------------------------------------------------------


def build_message(row: OutboxMail) -> EmailMessage:
    """The RFC 5322 message for a row (stdlib only; the same bytes on every retry except transport)."""
    msg = EmailMessage()
    msg["From"] = _parse_from(row.from_addr)
    msg["To"] = Address(
        display_name=clean_header_text(row.to_name or "", 100), addr_spec=clean_address(row.to_addr)
    )
    msg["Subject"] = clean_header_text(row.subject, 250)
    created = row.created_at or utcnow()
    msg["Date"] = format_datetime(created.replace(tzinfo=UTC))
    msg["Message-ID"] = row.message_id
    for name, value in (row.headers or {}).items():
        name = re.sub(r"[^A-Za-z0-9-]", "", str(name))
        if name and name.lower() not in {"from", "to", "cc", "bcc", "subject", "date", "message-id"}:
            msg[name] = clean_header_text(value, 2000)
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Auto-Response-Suppress"] = "OOF, AutoReply"
    msg.set_content(row.text_body or "")
    if row.html_body is not None:
        msg.add_alternative(row.html_body, subtype="html")
    return msg


# --------------------------------------------------------------------------------------------------
# Transports
# --------------------------------------------------------------------------------------------------


class TransportUnavailable(Exception):
    """The server cannot be reached or refused the session: no row in this sweep can go."""


class Transport(Protocol):
    name: str

    def send(self, msg: EmailMessage) -> None: ...

    def close(self) -> None: ...


class DevTransport:
    """Delivers nowhere: the row marked sent with transport "dev" is what the dev mailbox shows."""

    name = "dev"

    def __init__(self) -> None:
        self.sent_count = 0

    def send(self, msg: EmailMessage) -> None:
        msg.as_bytes()  # the same serialisation checks an SMTP send would do
        self.sent_count += 1

    def close(self) -> None:
        pass


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


class SmtpTransport:
    """SMTP via smtplib. URL forms:

    smtp://user:pass@host:587        STARTTLS (port 587, or `?starttls=1` on any port)
    smtps://user:pass@host:465       implicit TLS
    smtp://host:25                   plain (no credentials allowed unless the host is loopback)
    Query options: `timeout=SECONDS` (default 20), `starttls=0|1`, `helo=NAME`.
    User and password are percent-decoded. One connection is reused until `close()`.
    """

    name = "smtp"

    def __init__(self, url: str, *, timeout: float | None = None, ssl_context: ssl.SSLContext | None = None):
        parts = urlsplit(url)
        if parts.scheme not in {"smtp", "smtps"}:
            raise ValueError("MAIL_URL must start with smtp:// or smtps://")
        if not parts.hostname:
            raise ValueError("MAIL_URL has no host")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        self.host = parts.hostname
        self.implicit_tls = parts.scheme == "smtps"
        self.port = parts.port or (465 if self.implicit_tls else 587)
        if "starttls" in query:
            self.starttls = _truthy(query["starttls"]) and not self.implicit_tls
        else:
            self.starttls = not self.implicit_tls and self.port == 587
        self.username = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else None
        self.timeout = float(timeout if timeout is not None else query.get("timeout", 20))
        self.helo = query.get("helo") or None
        self.ssl_context = ssl_context
        if self.username and not (self.implicit_tls or self.starttls) and self.host not in _LOOPBACK:
            raise ValueError(
                "refusing to send the SMTP password unencrypted: use port 587, ?starttls=1 or smtps://"
            )
        self._conn: smtplib.SMTP | None = None

    def __repr__(self) -> str:
        scheme = "smtps" if self.implicit_tls else "smtp"
        user = f"{self.username}:***@" if self.username else ""
        return f"SmtpTransport({scheme}://{user}{self.host}:{self.port})"

    def _context(self) -> ssl.SSLContext:
        return self.ssl_context or ssl.create_default_context()

    def _connect(self) -> smtplib.SMTP:
        helo = self.helo or socket.gethostname() or "localhost"
        try:
            if self.implicit_tls:
                conn: smtplib.SMTP = smtplib.SMTP_SSL(
                    self.host, self.port, local_hostname=helo, timeout=self.timeout, context=self._context()
                )
            else:
                conn = smtplib.SMTP(self.host, self.port, local_hostname=helo, timeout=self.timeout)
            try:
                conn.ehlo()
                if self.starttls:
                    conn.starttls(context=self._context())  # raises if the server does not offer it
                    conn.ehlo()
                if self.username:
                    self._login(conn)
            except BaseException:
                conn.close()
                raise
        except (OSError, smtplib.SMTPException) as exc:  # refused, timeout, TLS, auth, HELO
            raise TransportUnavailable(_describe(exc)) from None
        return conn

    def _login(self, conn: smtplib.SMTP) -> None:
        """One AUTH attempt with the best offered mechanism (smtplib's login() falls back from a
        refused PLAIN to LOGIN, which some servers answer by hanging until the timeout)."""
        offered = conn.esmtp_features.get("auth", "").upper().split()
        conn.user, conn.password = self.username, self._password or ""
        for mech in ("PLAIN", "LOGIN", "CRAM-MD5"):
            if mech in offered:
                conn.auth(mech, getattr(conn, "auth_" + mech.lower().replace("-", "_")))
                return
        conn.login(self.username or "", self._password or "")  # raises: no usable mechanism

    def send(self, msg: EmailMessage) -> None:
        if self._conn is None:
            self._conn = self._connect()
        try:
            refused = self._conn.send_message(msg)
        except (
            smtplib.SMTPRecipientsRefused,
            smtplib.SMTPSenderRefused,
            smtplib.SMTPDataError,
            smtplib.SMTPNotSupportedError,
        ):
            self._reset()
            raise  # this message only; the next one may go
        except (OSError, smtplib.SMTPException) as exc:  # disconnected, timeout, broken pipe
            self.close()
            raise TransportUnavailable(_describe(exc)) from None
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)

    def _reset(self) -> None:
        try:
            if self._conn is not None:
                self._conn.rset()
        except (OSError, smtplib.SMTPException):
            self.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.quit()
            except (OSError, smtplib.SMTPException):
                conn.close()


def transport_from_url(url: str | None) -> Transport:
    """SmtpTransport for a MAIL_URL, DevTransport when it is empty (development only)."""
    return SmtpTransport(url) if url else DevTransport()


def _describe(exc: BaseException) -> str:
    """Short error text for last_error: class and server reply, never credentials."""
    text = f"{type(exc).__name__}: {exc}"
    return clean_header_text(text, 500)


# --------------------------------------------------------------------------------------------------
# Delivering
# --------------------------------------------------------------------------------------------------

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
LEASE = timedelta(minutes=2)


def backoff_delay(attempts: int, base: timedelta = BACKOFF_BASE, cap: timedelta = BACKOFF_CAP) -> timedelta:
    """Delay after the `attempts`-th failure: base, 2·base, 4·base, ... capped (retries forever)."""
    exp = min(max(attempts, 1) - 1, 30)
    return min(cap, base * (2**exp))


SessionSource = Engine | Callable[[], Session]


def _session_factory(source: SessionSource) -> Callable[[], Session]:
    if isinstance(source, Engine):
        return lambda: Session(source, expire_on_commit=False)
    return source


def _older_unsent(extra):
    """EXISTS an older unsent row to the same address (matching `extra` conditions)."""
    t = OutboxMail.__table__.c
    older = aliased(OutboxMail.__table__)
    return exists().where(
        and_(older.c.to_addr == t.to_addr, older.c.sent_at.is_(None), older.c.id < t.id, *extra(older.c))
    )


def _due_condition(now: datetime):
    """Due, unclaimed (or claim expired), and no older mail to the same address is waiting
    (backed off) or held by a live claim."""
    t = OutboxMail.__table__.c
    return and_(
        t.sent_at.is_(None),
        t.send_after <= now,
        or_(t.claimed_until.is_(None), t.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.send_after > now, o.claimed_until >= now),)),
    )


def _claimable(now: datetime, token: str):
    """What a claim re-checks: still due and unclaimed, and every older unsent mail to the same
    address is claimed by this very sender (so it goes first, in this sender's id order)."""
    t = OutboxMail.__table__.c
    return and_(
        t.sent_at.is_(None),
        t.send_after <= now,
        or_(t.claimed_until.is_(None), t.claimed_until < now),
        ~_older_unsent(lambda o: (or_(o.claimed_by.is_(None), o.claimed_by != token),)),
    )


def _writers(session: Session):
    """(The writer queue is gone: SQLite writers wait in BEGIN IMMEDIATE's busy timeout.)"""
    return contextlib.nullcontext()


def _write(session: Session, statement):
    """One write statement in its own committed transaction, queued with the other writers."""
    with _writers(session):
        result = session.execute(statement.execution_options(synchronize_session=False))
        session.commit()
    return result


def _claim_batch(
    session: Session, now: datetime, token: str, size: int, lease: timedelta
) -> list[tuple[int, str]]:
    """Claim up to `size` due rows for `token`; returns (id, to_addr) in id order. Commits."""
    t = OutboxMail.__table__.c
    is_pg = session.get_bind().dialect.name == "postgresql"
    query = select(t.id, t.to_addr).where(_due_condition(now)).order_by(t.id).limit(size)
    if is_pg:
        query = query.with_for_update(skip_locked=True, of=OutboxMail.__table__)
    candidates = [(row_id, addr) for row_id, addr in session.execute(query)]
    if not is_pg:
        # SQLite: end the read before writing (a read-then-write transaction cannot wait for the
        # write lock); each claim below is its own write-first transaction.
        session.commit()
    claimed: list[tuple[int, str]] = []
    for row_id, addr in candidates:
        claim = (update(OutboxMail.__table__).where(t.id == row_id, _claimable(now, token))
                 .values(claimed_until=now + lease, claimed_by=token))
        if is_pg:  # in the transaction holding the candidates' row locks
            result = session.execute(claim.execution_options(synchronize_session=False))
        else:
            result = _write(session, claim)
        if result.rowcount == 1:
            claimed.append((row_id, addr))
    session.commit()
    return claimed


def _renew(session: Session, row_id: int, token: str, now: datetime, lease: timedelta) -> OutboxMail | None:
    """Extend our claim right before sending; None when it was lost (expired and taken, or sent)."""
    t = OutboxMail.__table__.c
    result = _write(session, update(OutboxMail.__table__)
                    .where(t.id == row_id, t.claimed_by == token, t.sent_at.is_(None))
                    .values(claimed_until=now + lease))
    if result.rowcount != 1:
        return None
    row = session.get(OutboxMail, row_id, populate_existing=True)
    if row is not None:
        session.expunge(row)  # a plain loaded object: no lazy reloads while the send runs
    session.commit()  # end the read before the next write (SQLite cannot upgrade a read to a write)
    return row


def _mark_sent(session: Session, row_id: int, transport_name: str, now: datetime, bodies: dict) -> None:
    t = OutboxMail.__table__.c
    _write(session, update(OutboxMail.__table__)
           .where(t.id == row_id, t.sent_at.is_(None))
           .values(sent_at=now, transport=transport_name, claimed_until=None, claimed_by=None, last_error=None,
                   **bodies))


def _mark_failed(session: Session, row: OutboxMail, token: str, error: str, now: datetime,
                 bodies: dict | None = None) -> datetime:
    t = OutboxMail.__table__.c
    attempts = (row.attempts or 0) + 1
    retry_at = now + backoff_delay(attempts)
    _write(session, update(OutboxMail.__table__)
           .where(t.id == row.id, t.claimed_by == token, t.sent_at.is_(None))
           .values(attempts=t.attempts + 1, last_error=error, send_after=retry_at, claimed_until=None,
                   claimed_by=None, **(bodies or {})))
    return retry_at


def _release(session: Session, ids: list[int], token: str) -> None:
    if not ids:
        return
    t = OutboxMail.__table__.c
    _write(session, update(OutboxMail.__table__)
           .where(t.id.in_(ids), t.claimed_by == token, t.sent_at.is_(None))
           .values(claimed_until=None, claimed_by=None))


def deliver_due(
    session_factory_or_engine: SessionSource,
    transport: Transport,
    now: datetime | None = None,
    limit: int = 100,
    *,
    batch_size: int = 10,
    lease: timedelta = LEASE,
    renderer: Renderer | None = None,
) -> int:
    """Send up to `limit` due rows, oldest first; returns how many were sent.

    A row queued as an intent is rendered right after it is claimed (`renderer`, default: the
    active app's); its bodies are stored with the outcome (sent, or backed off), so a retry sends
    the same bytes and the dev mailbox shows what went out. (A sender that dies between the send and
    that UPDATE leaves the row to be rendered again from the same context: the same mail, at least
    once, like any send.) A render failure backs that row off like a send failure.

    `now` (naive UTC or aware) fixes the clock for tests; otherwise the real time is read per step.
    A failure of one message backs that row off and goes on; an unreachable server backs off the
    row being sent, releases the rest untouched and ends the sweep (they wait for the next one).
    """
    make_session = _session_factory(session_factory_or_engine)
    renderer = resolve_renderer(renderer)
    fixed_now = _naive_utc(now) if now is not None else None

    def clock() -> datetime:
        return fixed_now or utcnow()

    token = secrets.token_hex(16)
    sent = tried = 0
    try:
        with make_session() as session:
            while tried < limit:
                batch = _claim_batch(session, clock(), token, min(batch_size, limit - tried), lease)
                if not batch:
                    break
                tried += len(batch)
                held: set[str] = set()  # addresses whose earlier mail did not go: later ones wait
                for index, (row_id, addr) in enumerate(batch):
                    if addr in held:
                        _release(session, [row_id], token)
                        continue
                    row = _renew(session, row_id, token, clock(), lease)
                    if row is None:
                        held.add(addr)
                        continue
                    bodies: dict = {}
                    try:
                        if row.text_body is None:  # stored with the outcome below (same bytes on retry)
                            row.text_body, row.html_body = _bodies(row.template, row.context, renderer)
                            bodies = {"text_body": row.text_body, "html_body": row.html_body, "context": None}
                        msg = build_message(row)
                        transport.send(msg)
                    except TransportUnavailable as exc:
                        retry_at = _mark_failed(session, row, token, _describe(exc), clock(), bodies)
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
                        retry_at = _mark_failed(session, row, token, _describe(exc), clock(), bodies)
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


# --------------------------------------------------------------------------------------------------
# Background sender (single-process default of `skyjo-pbem serve`)
# --------------------------------------------------------------------------------------------------


class BackgroundSender:
    """A daemon thread calling `deliver_due` every `interval` seconds (or at once after `wake()`)."""

    def __init__(
        self,
        source: SessionSource,
        transport: Transport,
        *,
        interval: float = 3.0,
        error_interval_cap: float = 300.0,
        renderer: Renderer | None = None,
    ):
        self.source = source
        self.transport = transport
        self.renderer = renderer
        self.interval = interval
        self.error_interval_cap = error_interval_cap
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
        self.sweeps = 0

    def start(self) -> BackgroundSender:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        delay = self.interval
        while not self._stop.is_set():
            try:
                deliver_due(self.source, self.transport, renderer=self.renderer)
                delay = self.interval
            except Exception as exc:  # DB down, etc.: log the class only (messages may hold data)
                delay = min(self.error_interval_cap, max(delay * 2, self.interval))
                log.error("outbox: sweep failed (%s); next try in %.0f s", type(exc).__name__, delay)
            self.sweeps += 1
            self._wake.wait(delay)
            self._wake.clear()


_EXT_KEY = "outbox_sender"


def app_engine(app) -> Engine:
    for key in ("skyjo_db", "db_engine", "engine"):
        engine = app.extensions.get(key)
        if isinstance(engine, Engine):
            return engine
    url = app.config.get("DATABASE_URL") or app.config.get("SQLALCHEMY_DATABASE_URI")
    if not url:
        raise RuntimeError("no database engine: pass engine= or set DATABASE_URL")
    from sqlalchemy import create_engine

    engine = create_engine(url, pool_pre_ping=True)
    app.extensions["db_engine"] = engine  # one engine per app, not one per call
    return engine


def start_background_sender(
    app,
    engine: SessionSource | None = None,
    *,
    transport: Transport | None = None,
    interval: float = 3.0,
    use_reloader: bool | None = None,
) -> BackgroundSender | None:
    """Start the outbox sender thread for `app` (once per process); returns it, or None.

    None when this is the Werkzeug reloader's watcher process (the child with WERKZEUG_RUN_MAIN
    runs the sender instead). The transport comes from MAIL_URL; with no MAIL_URL the dev transport
    is used only when DEV_MAILBOX is on, otherwise RuntimeError (marking mails sent that went
    nowhere would lose them).
    """
    existing = app.extensions.get(_EXT_KEY)
    if existing is not None and existing.running:
        return existing
    reloader = app.debug if use_reloader is None else use_reloader
    if reloader and os.environ.get("WERKZEUG_RUN_MAIN") != "true":
        return None
    if transport is None:
        url = app.config.get("MAIL_URL")
        if url:
            transport = SmtpTransport(url)
        elif app.config.get("DEV_MAILBOX"):
            transport = DevTransport()
        else:
            raise RuntimeError("MAIL_URL is not set and the dev mailbox is off: mails would go nowhere")
    configure(mail_from=app.config.get("MAIL_FROM") or None, base_url=app.config.get("BASE_URL") or None)
    sender = BackgroundSender(
        engine if engine is not None else app_engine(app), transport, interval=interval,
        renderer=app.extensions.get("outbox_renderer"),
    )
    app.extensions[_EXT_KEY] = sender
    return sender.start()


def stop_background_sender(app, timeout: float = 10.0) -> None:
    sender = app.extensions.pop(_EXT_KEY, None)
    if sender is not None:
        sender.stop(timeout)


def wake_background_sender(app) -> None:
    """Ask the sender to sweep now (e.g. right after a move committed); no-op when none runs."""
    sender = app.extensions.get(_EXT_KEY)
    if sender is not None:
        sender.wake()
