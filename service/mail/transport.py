"""Transports: how a built message leaves. `SmtpTransport` (smtplib, one reused connection) for a
MAIL_URL, `DevTransport` (delivers nowhere: the row marked sent is what the dev mailbox shows).

A transport raises `TransportUnavailable` when no message can go now (refused, timeout, TLS or AUTH
failure, disconnect): the sender then ends its sweep and retries later. Any other exception concerns
this one message (recipient or data refused), and the next one may go.

Nothing secret leaves through errors: `describe_error` gives the class and the server's reply for
`last_error`, and `repr(SmtpTransport)` masks the password. A password is never sent in clear text
to a host other than loopback.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from service.mail.config import clean_header_text


class TransportUnavailable(Exception):
    """The server cannot be reached or refused the session: no row in this sweep can go."""


class Transport(Protocol):
    name: str

    def send(self, msg: EmailMessage, envelope_from: str | None = None) -> None:
        """`envelope_from`: the SMTP MAIL FROM (the mail's VERP return path), else the From."""

    def close(self) -> None: ...


class DevTransport:
    """Delivers nowhere: the row marked sent with transport "dev" is what the dev mailbox shows."""

    name = "dev"

    def __init__(self) -> None:
        self.sent_count = 0

    def send(self, msg: EmailMessage, envelope_from: str | None = None) -> None:
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
            raise TransportUnavailable(describe_error(exc)) from None
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

    def send(self, msg: EmailMessage, envelope_from: str | None = None) -> None:
        if self._conn is None:
            self._conn = self._connect()
        try:
            refused = self._conn.send_message(msg, from_addr=envelope_from)
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
            raise TransportUnavailable(describe_error(exc)) from None
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


def describe_error(exc: BaseException) -> str:
    """Short error text for last_error: class and server reply, never credentials."""
    text = f"{type(exc).__name__}: {exc}"
    return clean_header_text(text, 500)
